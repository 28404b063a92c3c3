//! `nagger hook`: what Claude Code runs for every event. Always exits 0.

use crate::base::output::Output;
use crate::base::paths::Env;

pub fn run(env: &Env) {
    // nagger reports a panic as one line itself; the default hook would print more.
    std::panic::set_hook(Box::new(|_| {}));
    // The process ends when the run is over: its exit closes the database.
    crate::storage::store::close_by_exit();
    let run = crate::edge::hook::run_stdin(env);
    if let Some(out) = run.stdout {
        // Through the one writer, its error dropped: a reader that went away changes
        // nothing, the hook still exits 0.
        let _ = Output::stdout().line(&out);
    }
    if let Some(err) = run.stderr {
        crate::edge::hook::write_stderr_line(&err);
    }
    crate::edge::hook::answer_written();
    // Answered: a checkpoint the run put off now delays only the exit.
    crate::storage::store::checkpoint_deferred();
}
