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
    let code = nagger::edge::cmd::main();
    // A reader that went away leaves nothing more to do.
    let _ = std::io::stdout().flush();
    std::ffi::c_int::from(code)
}
