//! `nagger hook`: what Claude Code runs for every event. Always exits 0.

use super::CommandResult;
use crate::paths::Env;
use std::io::Write;

pub fn run(env: &Env) -> CommandResult {
    // nagger reports a panic as one line itself; the default hook would print more.
    std::panic::set_hook(Box::new(|_| {}));
    let run = crate::hook::run_stdin(env);
    if let Some(out) = run.stdout {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout
            .write_all(out.as_bytes())
            .and_then(|_| stdout.write_all(b"\n"));
    }
    if let Some(err) = run.stderr {
        let _ = writeln!(std::io::stderr(), "{err}");
    }
    Ok(())
}
