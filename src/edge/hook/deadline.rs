//! The hook's last line of defence: whatever hangs once the state database is touched
//! (an open that blocks, a slow disk), the process prints the answer it already has (the
//! guard's, decided before the database) and exits 0 by [`HARD_LIMIT`] after the run
//! began. The waits nagger knows of end sooner, at [`WAIT_BUDGET`].
//!
//! A one-shot `setitimer(ITIMER_REAL)`, no thread: its SIGALRM handler only writes the
//! answer rendered beforehand (write(2)) and ends the process (`_exit`). One atomic
//! state decides who answers: the handler, or the run that finished in time; never both.
//! Armed only in the `nagger hook` process ([`enable`]), never in a caller that runs a
//! hook in its own process.

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long after its start a run may wait for the database, all waits together.
pub const WAIT_BUDGET: Duration = Duration::from_millis(750);
/// When, after its start, a run that has not answered answers with what it has.
pub const HARD_LIMIT: Duration = Duration::from_millis(900);
/// The least time the timer is set for, when the run is already late.
const LEAST: Duration = Duration::from_millis(20);

/// Not armed (or not enabled).
const IDLE: u8 = 0;
/// Armed: the handler answers if it fires.
const ARMED: u8 = 1;
/// The run answers itself; the handler does nothing.
const ANSWERED: u8 = 2;
/// The handler answers; the run must never print.
const FIRED: u8 = 3;

static ENABLED: AtomicBool = AtomicBool::new(false);
static STATE: AtomicU8 = AtomicU8::new(IDLE);
static OUT: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static OUT_LEN: AtomicUsize = AtomicUsize::new(0);
static ERR: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static ERR_LEN: AtomicUsize = AtomicUsize::new(0);

/// Lets this process arm the deadline: only the `nagger hook` process, whose stdout
/// and exit are the hook's answer.
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

/// The armed deadline; dropped, it is disarmed and the run answers itself.
#[must_use = "the deadline is disarmed when this is dropped"]
pub struct Armed {
    armed: bool,
}

/// Arms the deadline at `at` (at least a few ms from now) with the answer to print
/// then: `stdout` (the guard's answer, if any) and one `stderr` line. Does nothing
/// unless [`enable`]d, or when already armed once in this process.
pub fn arm(at: Instant, stdout: Option<&str>, stderr: &str) -> Armed {
    if !ENABLED.load(Ordering::Relaxed) || STATE.load(Ordering::Acquire) != IDLE {
        return Armed { armed: false };
    }
    let out: &'static [u8] = stdout.map_or(&[], |s| leak_line(s));
    let err = leak_line(stderr);
    OUT.store(out.as_ptr().cast_mut(), Ordering::Relaxed);
    OUT_LEN.store(out.len(), Ordering::Relaxed);
    ERR.store(err.as_ptr().cast_mut(), Ordering::Relaxed);
    ERR_LEN.store(err.len(), Ordering::Relaxed);
    if !install_handler() {
        return Armed { armed: false };
    }
    STATE.store(ARMED, Ordering::Release);
    let after = at.saturating_duration_since(Instant::now()).max(LEAST);
    if !set_timer(after) {
        STATE.store(IDLE, Ordering::Release);
        return Armed { armed: false };
    }
    Armed { armed: true }
}

/// Replaces the answer an armed deadline prints with `stdout`: the run's own answer,
/// once the run has one. SIGALRM is blocked on this thread (the hook runs on one) while
/// the buffer and its length change, so the handler never sees one without the other.
pub fn answer_with(stdout: Option<&str>) {
    if STATE.load(Ordering::Acquire) != ARMED {
        return;
    }
    let out: &'static [u8] = stdout.map_or(&[], leak_line);
    // SAFETY: sigset_t values built by sigemptyset/sigaddset; the mask is restored to
    // what it was, and a SIGALRM that came meanwhile is delivered then.
    unsafe {
        let mut alarm: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&raw mut alarm);
        libc::sigaddset(&raw mut alarm, libc::SIGALRM);
        let mut before: libc::sigset_t = std::mem::zeroed();
        libc::pthread_sigmask(libc::SIG_BLOCK, &raw const alarm, &raw mut before);
        OUT.store(out.as_ptr().cast_mut(), Ordering::Relaxed);
        OUT_LEN.store(out.len(), Ordering::Relaxed);
        libc::pthread_sigmask(libc::SIG_SETMASK, &raw const before, std::ptr::null_mut());
    }
}

impl Drop for Armed {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        set_timer(Duration::ZERO);
        if STATE
            .compare_exchange(ARMED, ANSWERED, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // The deadline fired on another thread: its answer is being written and the
            // process is ending. A second answer must never follow it.
            loop {
                // SAFETY: pause(2) only waits for a signal.
                unsafe { libc::pause() };
            }
        }
    }
}

/// `text` and a newline, kept for the rest of the process (armed once per process).
fn leak_line(text: &str) -> &'static [u8] {
    let mut bytes = Vec::with_capacity(text.len() + 1);
    bytes.extend_from_slice(text.as_bytes());
    bytes.push(b'\n');
    Box::leak(bytes.into_boxed_slice())
}

fn install_handler() -> bool {
    // SAFETY: a zeroed sigaction is valid; the handler is an `extern "C" fn(c_int)` that
    // does only async-signal-safe things.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_deadline as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&raw mut action.sa_mask);
        libc::sigaction(libc::SIGALRM, &raw const action, std::ptr::null_mut()) == 0
    }
}

/// Sets the one-shot real-time timer to fire `after` from now; zero disarms it.
fn set_timer(after: Duration) -> bool {
    let value = libc::timeval {
        tv_sec: libc::time_t::try_from(after.as_secs()).unwrap_or(libc::time_t::MAX),
        // Below a million: fits every platform's suseconds_t.
        tv_usec: libc::suseconds_t::from(i32::try_from(after.subsec_micros()).unwrap_or(0)),
    };
    let timer = libc::itimerval {
        it_interval: libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
        it_value: value,
    };
    // SAFETY: valid itimerval passed by pointer; the old value is not asked for.
    unsafe { libc::setitimer(libc::ITIMER_REAL, &raw const timer, std::ptr::null_mut()) == 0 }
}

/// SIGALRM: if the run has not answered, writes the answer rendered at arming and ends
/// the process with 0. Only atomics, write(2) and _exit(2): async-signal-safe.
extern "C" fn on_deadline(_signal: libc::c_int) {
    if STATE
        .compare_exchange(ARMED, FIRED, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        return;
    }
    write_all(
        1,
        OUT.load(Ordering::Relaxed),
        OUT_LEN.load(Ordering::Relaxed),
    );
    write_all(
        2,
        ERR.load(Ordering::Relaxed),
        ERR_LEN.load(Ordering::Relaxed),
    );
    // SAFETY: ends the process at once, running nothing else.
    unsafe { libc::_exit(0) }
}

/// Writes `len` bytes from `ptr` to `fd`, retrying short writes and interruptions a
/// bounded number of times.
fn write_all(fd: libc::c_int, mut ptr: *const u8, mut len: usize) {
    let mut tries = 0;
    while len > 0 && !ptr.is_null() && tries < 64 {
        tries += 1;
        // SAFETY: `ptr..ptr+len` lies inside the leaked answer buffer.
        let n = unsafe { libc::write(fd, ptr.cast(), len) };
        match usize::try_from(n) {
            Ok(n) => {
                // SAFETY: n <= len bytes were written; the rest stays in the buffer.
                ptr = unsafe { ptr.add(n) };
                len -= n;
            }
            Err(_) if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {
            }
            Err(_) => return,
        }
    }
}
