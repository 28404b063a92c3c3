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
        // Through the one writer: a reader that went away changes nothing, the hook
        // still exits 0, and says on stderr that the answer was lost. An answer a file's
        // size limit would cut short is not begun: half an answer reads as plain text.
        let written = match room_in_stdout(out.len() + 1) {
            Err(why) => Err(why),
            Ok(()) => Output::stdout().line(&out).map_err(|e| e.to_string()),
        };
        if let Err(why) = written {
            crate::edge::hook::write_stderr_line(&format!(
                "nagger: the answer could not be written to stdout ({why})"
            ));
        }
    }
    if let Some(err) = run.stderr {
        crate::edge::hook::write_stderr_line(&err);
    }
    crate::edge::hook::answer_written();
    // Answered: a checkpoint the run put off now delays only the exit.
    crate::storage::store::checkpoint_deferred();
}

/// Whether stdout takes `len` more bytes whole: a regular file under a file-size limit
/// (`ulimit -f`) past which the write would stop part-way.
fn room_in_stdout(len: usize) -> Result<(), String> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `getrlimit` writes only into the struct it is given.
        if unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &raw mut limit) } != 0
            || limit.rlim_cur == libc::RLIM_INFINITY
        {
            return Ok(());
        }
        // SAFETY: `lseek` on the process's own stdout, moving nothing.
        let at = unsafe { libc::lseek(1, 0, libc::SEEK_CUR) };
        let Ok(at) = u64::try_from(at) else {
            // Not a file (a pipe, a socket): no size limit applies.
            return Ok(());
        };
        if at.saturating_add(len as u64) > limit.rlim_cur {
            return Err(format!(
                "stdout is a file that may not grow past {} bytes",
                limit.rlim_cur
            ));
        }
    }
    Ok(())
}
