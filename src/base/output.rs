//! [`Output`]: the one writer every command, the demo and the dashboard print their output
//! through. Each write returns an `io::Result`, so a reader that went away
//! (`nagger stats | head -1`) ends the command through `?` as a broken pipe (exit 141,
//! nothing on stderr) instead of a panic. Tests give it a buffer.

use serde::Serialize;
use std::io::{self, Write};

pub struct Output<'a> {
    w: Box<dyn Write + 'a>,
}

impl Output<'static> {
    /// The process's standard output. Not locked for the command's whole run: the
    /// dashboard and the demo also write to it.
    pub fn stdout() -> Self {
        Output {
            w: Box::new(io::stdout()),
        }
    }
}

impl<'a> Output<'a> {
    /// Output into any writer (a `Vec<u8>` in tests).
    pub fn to(w: &'a mut dyn Write) -> Self {
        Output { w: Box::new(w) }
    }

    /// `text` and a newline.
    pub fn line(&mut self, text: &str) -> io::Result<()> {
        self.w.write_all(text.as_bytes())?;
        self.w.write_all(b"\n")
    }

    /// `value` as pretty-printed JSON and a newline.
    pub fn json<T: Serialize + ?Sized>(&mut self, value: &T) -> io::Result<()> {
        let text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
        self.line(&text)
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// One line on stderr, for what is not the command's output (a config problem `check`
/// reports before its answer). A stderr that is gone too is no reason to stop.
pub fn warn(line: &str) {
    let _ = writeln!(io::stderr(), "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that has gone away.
    struct ClosedPipe;

    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_and_json_end_with_a_newline() {
        let mut buf = Vec::new();
        let mut out = Output::to(&mut buf);
        out.line("a").unwrap();
        out.json(&serde_json::json!({"k": 1})).unwrap();
        out.flush().unwrap();
        drop(out);
        assert_eq!(String::from_utf8(buf).unwrap(), "a\n{\n  \"k\": 1\n}\n");
    }

    #[test]
    fn a_closed_pipe_is_an_error_not_a_panic() {
        let mut pipe = ClosedPipe;
        let mut out = Output::to(&mut pipe);
        let e = out.line("x").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
    }
}
