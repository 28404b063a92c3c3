//! nagger starts without Rust's own runtime set-up: a hook process runs once per tool
//! call, and that set-up (reading `/proc/self/maps` to place a guard page under the main
//! thread's stack, an alternate signal stack for overflow reports) cost every run a few
//! percent of its instructions and five system calls. What nagger needs of it is done here:
//! a write to a closed pipe fails with an error (`EPIPE`) instead of killing the process,
//! and stdout is flushed before the process ends.
// (Built as a test, the harness brings its own `main`.)
#![cfg_attr(not(test), no_main)]

#[cfg(not(test))]
use std::io::Write;

#[cfg(not(test))]
#[unsafe(no_mangle)]
pub extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    // SAFETY: setting a signal's disposition to "ignore" before any thread is started.
    // A write past the file-size limit (`ulimit -f`) then fails with an error that is
    // handled like any other database error, instead of killing the hook before it
    // answers.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    // SAFETY: `umask` only swaps the process's mask. The owner keeps reading and writing
    // what nagger creates (its database, lock and trust files): a mask that takes that
    // away (`umask 0777`) left empty files no later run could open. The rest of the
    // user's mask (who else may read) holds.
    #[cfg(unix)]
    unsafe {
        let mask = libc::umask(0o077);
        libc::umask(mask & 0o077);
    }
    let code = if main_stack_is_small() {
        // A stack limit set low (`ulimit -s 32`) would end the process on its first deep
        // call before it answers. The work then runs on a thread whose stack nagger sizes
        // itself; the limit does not bound it.
        std::thread::Builder::new()
            .stack_size(WORK_STACK)
            .spawn(nagger::edge::cmd::main)
            .ok()
            .and_then(|worker| worker.join().ok())
            .unwrap_or(1)
    } else {
        nagger::edge::cmd::main()
    };
    // A reader that went away leaves nothing more to do.
    let _ = std::io::stdout().flush();
    std::ffi::c_int::from(code)
}

/// The stack nagger's work is given when the main thread's limit is below it.
#[cfg(not(test))]
const WORK_STACK: usize = 8 << 20;

/// Whether the main thread's stack limit is below [`WORK_STACK`] (one system call).
#[cfg(not(test))]
fn main_stack_is_small() -> bool {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `getrlimit` writes only into the struct it is given.
        let got = unsafe { libc::getrlimit(libc::RLIMIT_STACK, &raw mut limit) };
        got == 0 && limit.rlim_cur != libc::RLIM_INFINITY && limit.rlim_cur < WORK_STACK as u64
    }
    #[cfg(not(unix))]
    {
        false
    }
}
