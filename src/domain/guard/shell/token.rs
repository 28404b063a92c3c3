//! One word as the lexer reads it, before it becomes an argument of a simple command.

use std::ops::Range;

#[derive(Default)]
#[allow(clippy::struct_excessive_bools)]
pub(super) struct Word {
    pub(super) text: Vec<u8>,
    /// Some part was quoted or escaped: not a reserved word.
    pub(super) quoted: bool,
    /// `NAME=value` with an unquoted name.
    pub(super) assignment: bool,
    /// Indices of the commands its substitutions ran.
    pub(super) runs: Range<usize>,
    /// Holds an expansion: see [`SimpleCommand::computed`](super::command::SimpleCommand::computed).
    pub(super) computed: bool,
    /// Where in `text` an unquoted `{`, `,`, `}` or `.` stands, ascending: brace syntax.
    pub(super) active: Vec<usize>,
    /// `name=(…)`: an array's elements follow the `=`.
    pub(super) array: bool,
}

impl Word {
    pub(super) fn into_string(self) -> String {
        String::from_utf8(self.text)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    pub(super) fn is_fd(&self) -> bool {
        !self.quoted
            && !self.text.is_empty()
            && (self.text.iter().all(u8::is_ascii_digit)
                || (self.text.starts_with(b"{") && self.text.ends_with(b"}")))
    }
}
