//! The hook's last line of defence: whatever hangs or runs long once the run began (stdin
//! that never ends, a check that takes too long, an open that blocks, a slow disk, a
//! write stuck in the kernel), the process prints the answer it already has (the guard's,
//! decided before the database; before the guard has decided, an `ask` for a tool call),
//! closes its output and exits 0 by [`HARD_LIMIT`] after the run began. The waits nagger
//! knows of end sooner: stdin's at [`STDIN_LIMIT`], the database's at [`WAIT_BUDGET`].
//!
//! A watchdog thread, not a signal: a signal handler runs only once the thread it
//! interrupts leaves the kernel, and a thread stuck in `fsync` or `open` on a slow disk
//! does not leave it until the disk answers. The watchdog sleeps until the deadline on
//! its own; if the run has not answered by then it writes the answer rendered
//! beforehand, closes stdout and stderr (the reader sees the end of the answer even if
//! the stuck thread keeps the process alive a little longer) and ends the process
//! (`_exit`). One atomic state decides who answers: the watchdog, or the run that
//! finished in time; never both. Armed only in the `nagger hook` process ([`enable`]),
//! never in a caller that runs a hook in its own process.

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, Ordering};
use std::time::{Duration, Instant};

/// How long after its start a run waits for stdin to hold a whole input; what comes
/// later leaves the guard too little of the second every hook answers in.
pub const STDIN_LIMIT: Duration = Duration::from_millis(500);
/// How long after its start a run may wait for the database, all waits together.
pub const WAIT_BUDGET: Duration = Duration::from_millis(650);
/// The same for a run whose answer the guard gave before the database (a refusal or a
/// question), which the database only records.
pub const DECIDED_WAIT_BUDGET: Duration = Duration::from_millis(350);
/// When, after its start, a run that has not answered answers with what it has.
pub const HARD_LIMIT: Duration = Duration::from_millis(800);
/// The same under valgrind (`NAGGER_NO_DEADLINE=1`, [`stretch`]), which runs a process
/// tens of times slower: still below the timeout `nagger install` writes.
pub const STRETCHED_LIMIT: Duration = Duration::from_secs(8);
/// The least time the watchdog waits, when the run is already late.
const LEAST: Duration = Duration::from_millis(20);
/// The watchdog's stack: it only sleeps, compares and writes.
const WATCHDOG_STACK: usize = 64 * 1024;

/// Not armed (or not enabled).
const IDLE: u8 = 0;
/// Armed: the watchdog answers if the deadline comes.
const ARMED: u8 = 1;
/// The run answers itself; the watchdog does nothing.
const ANSWERED: u8 = 2;
/// The watchdog answers; the run must never print.
const FIRED: u8 = 3;
/// The run's answer is written: what is left (a checkpoint's fsyncs on a busy disk) only
/// delays the exit, which Claude Code waits for; the deadline ends the process then.
const PRINTED: u8 = 4;
/// How long past the deadline the watchdog waits for a run that has answered to finish
/// writing its answer before it ends the process anyway.
const PRINT_GRACE: Duration = Duration::from_millis(250);

static ENABLED: AtomicBool = AtomicBool::new(false);
static STATE: AtomicU8 = AtomicU8::new(IDLE);
/// The answers the watchdog prints: each a leaked, immutable line, swapped whole.
static OUT: AtomicPtr<&'static [u8]> = AtomicPtr::new(std::ptr::null_mut());
static ERR: AtomicPtr<&'static [u8]> = AtomicPtr::new(std::ptr::null_mut());

/// A second opinion for a run still undecided near its deadline: the guard with its
/// built-in settings, which need no file of the project's. Given the answer (and the
/// stderr line) it may replace: it never replaces one the run put there since.
pub type Fallback = Box<dyn FnOnce() -> Option<(String, String)> + Send>;
/// A registered fallback: the closure, the answer it may replace, and what the deadline
/// prints while it runs (answer and stderr line; `None` keeps the answer it replaces).
type Registered = (Fallback, usize, Option<(String, String)>);
static FALLBACK: std::sync::Mutex<Option<Registered>> = std::sync::Mutex::new(None);
/// How long before the deadline a run that has not decided hands its call to the
/// fallback: the built-in guard takes a few milliseconds.
const FALLBACK_LEAD: Duration = Duration::from_millis(250);
/// The fallback's stack: the guard's readers recurse into nested commands.
const FALLBACK_STACK: usize = 16 * 1024 * 1024;

/// Lets this process arm the deadline: only the `nagger hook` process, whose stdout
/// and exit are the hook's answer.
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
    on_faults();
}

/// What the hook says when a fault ended its run.
const FAULT_LINE: &[u8] =
    b"nagger: stopped by a fault in a file it maps (its database's shared memory changed \
under it); the guard's answer stands\n";

/// Answers for the run when the process faults: another process that truncates the
/// database's shared-memory file (`state.db-shm`, which SQLite maps) makes the next read
/// of it raise `SIGBUS`, which would end the process before it answers, the guard's
/// refusal with it. The handler prints the answer the run armed (the guard's, decided
/// before the database) as the watchdog would and exits 0; a run that has printed its
/// own answer just exits 0. It runs on the signal stack, and does only what a signal
/// handler may: atomics, `poll`, `write`, `close`, `_exit`.
fn on_faults() {
    // SAFETY: a zeroed `sigaction` is a valid start; the handler below is
    // async-signal-safe and never returns.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = fault as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigemptyset(&raw mut action.sa_mask);
        for signal in [libc::SIGBUS, libc::SIGSEGV] {
            libc::sigaction(signal, &raw const action, std::ptr::null_mut());
        }
    }
}

extern "C" fn fault(
    _signal: libc::c_int,
    _info: *mut libc::siginfo_t,
    _context: *mut libc::c_void,
) {
    match STATE.compare_exchange(ARMED, FIRED, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => {
            let line = OUT.load(Ordering::Acquire);
            if !line.is_null() {
                // SAFETY: every pointer stored is a leaked box, never freed.
                write_when_ready(1, unsafe { *line }, WRITE_WAIT);
            }
            write_when_ready(2, FAULT_LINE, WRITE_WAIT);
        }
        // The watchdog is answering: it ends the process.
        Err(FIRED) => loop {
            // SAFETY: waits for the watchdog's `_exit`.
            unsafe { libc::pause() };
        },
        // The run printed its answer (or is printing it), or had not armed one: a fault
        // is nagger's own failure, which never blocks the agent.
        Err(_) => write_when_ready(2, FAULT_LINE, WRITE_WAIT),
    }
    // SAFETY: ends the process at once, running nothing else.
    unsafe { libc::_exit(0) }
}

static STRETCHED: AtomicBool = AtomicBool::new(false);

/// Gives runs of this process [`STRETCHED_LIMIT`] instead of [`HARD_LIMIT`] when it runs
/// under valgrind: a variable alone never takes the second away from a hook that Claude
/// Code runs.
pub fn stretch() {
    if under_valgrind() {
        STRETCHED.store(true, Ordering::Relaxed);
    }
}

/// Whether valgrind runs this process: its tool is mapped into it (the first 256 KiB of
/// the map list, which holds it near the start).
fn under_valgrind() -> bool {
    use std::io::Read;
    let Ok(maps) = std::fs::File::open("/proc/self/maps") else {
        return false;
    };
    let mut text = Vec::new();
    if maps.take(256 * 1024).read_to_end(&mut text).is_err() {
        return false;
    }
    text.windows(b"/valgrind/".len())
        .any(|w| w == b"/valgrind/")
}

/// When, after its start, a run of this process that has not answered answers.
pub fn hard_limit() -> Duration {
    if STRETCHED.load(Ordering::Relaxed) {
        STRETCHED_LIMIT
    } else {
        HARD_LIMIT
    }
}

/// Whether this process may arm the deadline.
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
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
    OUT.store(leak_line(stdout), Ordering::Release);
    ERR.store(leak_line(Some(stderr)), Ordering::Release);
    STATE.store(ARMED, Ordering::Release);
    let after = at.saturating_duration_since(Instant::now()).max(LEAST);
    let spawned = std::thread::Builder::new()
        .name("nagger-deadline".into())
        .stack_size(WATCHDOG_STACK)
        .spawn(move || watch(Instant::now() + after));
    // No thread to be had (a limit on the user's processes, memory): a timer signal in
    // its place, which ends every wait that can be interrupted (a lock, a FIFO, a sleep).
    if spawned.is_err() && !on_timer(after) {
        STATE.store(IDLE, Ordering::Release);
        return Armed { armed: false };
    }
    Armed { armed: true }
}

/// Arms `SIGALRM` to answer for the run `after` from now, as the watchdog would (with
/// no fallback to start). False when the timer cannot be set.
/// The deadline answers by a timer signal, not a watchdog thread ([`on_timer`]).
static ON_TIMER: AtomicBool = AtomicBool::new(false);

fn on_timer(after: Duration) -> bool {
    // SAFETY: a zeroed `sigaction` and `itimerval` are valid starts; the handler is
    // async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = timer_fired as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&raw mut action.sa_mask);
        if libc::sigaction(libc::SIGALRM, &raw const action, std::ptr::null_mut()) != 0 {
            return false;
        }
        let mut timer: libc::itimerval = std::mem::zeroed();
        timer.it_value.tv_sec = libc::time_t::try_from(after.as_secs()).unwrap_or(1);
        timer.it_value.tv_usec = libc::suseconds_t::from(after.subsec_micros());
        let set = libc::setitimer(libc::ITIMER_REAL, &raw const timer, std::ptr::null_mut()) == 0;
        ON_TIMER.store(set, Ordering::Release);
        set
    }
}

extern "C" fn timer_fired(
    _signal: libc::c_int,
    _info: *mut libc::siginfo_t,
    _context: *mut libc::c_void,
) {
    if STATE
        .compare_exchange(ARMED, FIRED, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        // The run answered: it goes on to its end.
        return;
    }
    for (fd, line) in [(1, &OUT), (2, &ERR)] {
        let line = line.load(Ordering::Acquire);
        if !line.is_null() {
            // SAFETY: every pointer stored is a leaked box, never freed.
            write_when_ready(fd, unsafe { *line }, WRITE_WAIT);
        }
    }
    // SAFETY: ends the process at once, running nothing else.
    unsafe { libc::_exit(0) }
}

/// Replaces the answer an armed deadline prints with `stdout`: the run's own answer,
/// once the run has one. One pointer swap: the watchdog sees the old answer or the new
/// one, never a mix.
pub fn answer_with(stdout: Option<&str>) {
    if STATE.load(Ordering::Acquire) != ARMED {
        return;
    }
    OUT.store(leak_line(stdout), Ordering::Release);
}

/// [`answer_with`] for an answer fixed in the program: `line` is printed as it is (it
/// ends with its newline), nothing is copied.
pub fn answer_with_line(line: Option<&'static str>) {
    if STATE.load(Ordering::Acquire) != ARMED {
        return;
    }
    let bytes: &'static [u8] = line.map_or(&[], str::as_bytes);
    OUT.store(Box::into_raw(Box::new(bytes)), Ordering::Release);
}

/// Registers `fallback` for the answer the deadline would print now: if that answer is
/// still in place [`FALLBACK_LEAD`] before the deadline, the watchdog runs `fallback` on
/// a thread of its own and, if it gives an answer before the deadline and the run has
/// still put no other there, the deadline prints that one (with its stderr line).
pub fn fall_back_on(fallback: Fallback) {
    register(fallback, None);
}

/// [`fall_back_on`] with an answer the deadline prints while the fallback runs
/// (`provisional`: answer and stderr line), in place of the one it would print now; a
/// fallback that gives no answer puts the one before back.
pub fn fall_back_on_with(fallback: Fallback, provisional: (String, String)) {
    register(fallback, Some(provisional));
}

fn register(fallback: Fallback, provisional: Option<(String, String)>) {
    if STATE.load(Ordering::Acquire) != ARMED {
        return;
    }
    // Answered by a timer signal: no thread runs the fallback, so the provisional answer
    // stands from now on, in place of the one it would replace.
    if ON_TIMER.load(Ordering::Acquire) {
        if let Some((stdout, stderr)) = provisional {
            let expected = OUT.load(Ordering::Acquire);
            let line = leak_line(Some(&stdout));
            if OUT
                .compare_exchange(expected, line, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                ERR.store(leak_line(Some(&stderr)), Ordering::Release);
            }
        }
        drop(fallback);
        return;
    }
    let expected = OUT.load(Ordering::Acquire) as usize;
    if let Ok(mut slot) = FALLBACK.lock() {
        *slot = Some((fallback, expected, provisional));
    }
}

/// Runs the registered fallback, if any, on its own thread (the watchdog never waits
/// for it: a fallback stuck on the same disk as the run leaves the deadline's answer
/// as it was).
fn start_fallback() {
    let Some((fallback, expected, provisional)) =
        FALLBACK.lock().ok().and_then(|mut slot| slot.take())
    else {
        return;
    };
    let expected = expected as *mut &'static [u8];
    let before_err = ERR.load(Ordering::Acquire);
    // While the fallback runs, the deadline prints the provisional answer.
    let in_place = match provisional {
        Some((stdout, stderr)) => {
            let line = leak_line(Some(&stdout));
            if OUT
                .compare_exchange(expected, line, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                return;
            }
            ERR.store(leak_line(Some(&stderr)), Ordering::Release);
            Some(line)
        }
        None if OUT.load(Ordering::Acquire) != expected => return,
        None => None,
    };
    // Addresses cross to the thread as numbers: every pointer is a leaked box.
    let (expected, before_err, in_place) = (
        expected as usize,
        before_err as usize,
        in_place.map(|p| p as usize),
    );
    let _ = std::thread::Builder::new()
        .name("nagger-fallback".into())
        .stack_size(FALLBACK_STACK)
        .spawn(move || {
            let now = in_place.unwrap_or(expected) as *mut &'static [u8];
            let (line, err) = match fallback() {
                Some((stdout, stderr)) => (leak_line(Some(&stdout)), leak_line(Some(&stderr))),
                // No answer of its own: what was there before the provisional one.
                None if in_place.is_some() => (
                    expected as *mut &'static [u8],
                    before_err as *mut &'static [u8],
                ),
                None => return,
            };
            if OUT
                .compare_exchange(now, line, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                ERR.store(err, Ordering::Release);
            }
        });
}

/// Tells the watchdog the run's answer is written whole: from the deadline on, the
/// process may end whatever it is still doing.
pub fn printed() {
    let _ = STATE.compare_exchange(ANSWERED, PRINTED, Ordering::AcqRel, Ordering::Acquire);
}

/// Replaces the stderr line an armed deadline prints: what the run is waiting on now.
pub fn tell(stderr: &str) {
    if STATE.load(Ordering::Acquire) != ARMED {
        return;
    }
    ERR.store(leak_line(Some(stderr)), Ordering::Release);
}

impl Drop for Armed {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        if STATE
            .compare_exchange(ARMED, ANSWERED, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // The deadline came on the watchdog: its answer is being written and the
            // process is ending. A second answer must never follow it.
            loop {
                std::thread::park();
            }
        }
    }
}

/// `text` and a newline (nothing for `None`), kept for the rest of the process.
fn leak_line(text: Option<&str>) -> *mut &'static [u8] {
    let bytes: &'static [u8] = match text {
        Some(text) => {
            let mut bytes = Vec::with_capacity(text.len() + 1);
            bytes.extend_from_slice(text.as_bytes());
            bytes.push(b'\n');
            Box::leak(bytes.into_boxed_slice())
        }
        None => &[],
    };
    Box::into_raw(Box::new(bytes))
}

/// The watchdog: sleeps until `at`; if the run has not answered, answers for it and
/// ends the process with 0.
fn watch(at: Instant) {
    let lead = at.checked_sub(FALLBACK_LEAD).unwrap_or(at);
    loop {
        let now = Instant::now();
        if now >= lead {
            break;
        }
        std::thread::sleep(lead - now);
    }
    if STATE.load(Ordering::Acquire) == ARMED {
        start_fallback();
    }
    loop {
        let now = Instant::now();
        if now >= at {
            break;
        }
        std::thread::sleep(at - now);
    }
    if STATE
        .compare_exchange(ARMED, FIRED, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        // The run answered: once its answer is written (or a short grace has passed),
        // whatever it still does after it ends here, and the exit comes in time too.
        let grace = Instant::now() + PRINT_GRACE;
        while STATE.load(Ordering::Acquire) == ANSWERED && Instant::now() < grace {
            std::thread::sleep(Duration::from_millis(2));
        }
        match STATE.load(Ordering::Acquire) {
            FIRED => return,
            // The answer is still being written: stdout's reader takes nothing.
            ANSWERED => write_when_ready(2, UNWRITTEN_LINE, WRITE_WAIT),
            _ => {}
        }
        // SAFETY: ends the process at once; the answer is out, and SQLite's log and
        // database survive an exit in the middle of a checkpoint.
        unsafe { libc::_exit(0) }
    }
    for (fd, line) in [(1, &OUT), (2, &ERR)] {
        let line = line.load(Ordering::Acquire);
        if !line.is_null() {
            // SAFETY: every pointer stored is a leaked box, never freed.
            write_when_ready(fd, unsafe { *line }, WRITE_WAIT);
        }
        // SAFETY: closing the process's own stdout/stderr; nothing writes to them after
        // FIRED (the run stops at its `Armed` drop, and `_exit` follows).
        unsafe { libc::close(fd) };
    }
    // SAFETY: ends the process at once, running nothing else.
    unsafe { libc::_exit(0) }
}

/// The stderr line of a run whose answer stdout did not take by the deadline.
const UNWRITTEN_LINE: &[u8] = b"nagger: the answer was not written whole: stdout took nothing \
    more by the deadline (its reader does not drain it)\n";

/// How long a write of the answer or the stderr line waits for its reader: a reader
/// that never drains its pipe (a full stderr) must not keep the process from exiting.
pub const WRITE_WAIT: Duration = Duration::from_millis(100);

/// Writes `bytes` to `fd` while the reader takes them: each write waits at most `wait`
/// for room (`poll`), and what does not fit by then is dropped. A pipe's write of up to
/// `PIPE_BUF` bytes is whole once there is room, so a short line is never cut.
pub fn write_when_ready(fd: libc::c_int, mut bytes: &[u8], wait: Duration) {
    let deadline = Instant::now() + wait;
    let mut tries = 0;
    while !bytes.is_empty() && tries < 64 {
        tries += 1;
        let left = deadline.saturating_duration_since(Instant::now());
        let mut pollfd = libc::pollfd {
            fd,
            events: libc::POLLOUT,
            revents: 0,
        };
        let ms = libc::c_int::try_from(left.as_millis()).unwrap_or(libc::c_int::MAX);
        // SAFETY: one valid pollfd, for the length given.
        let ready = unsafe { libc::poll(&raw mut pollfd, 1, ms) };
        if ready == 0 {
            return;
        }
        if ready < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        if pollfd.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0
            && pollfd.revents & libc::POLLOUT == 0
        {
            return;
        }
        // At most a pipe's atomic write at a time: one that fits does not block.
        let chunk = &bytes[..bytes.len().min(libc::PIPE_BUF)];
        // SAFETY: the pointer and length come from a live slice.
        let n = unsafe { libc::write(fd, chunk.as_ptr().cast(), chunk.len()) };
        match usize::try_from(n) {
            Ok(n) => bytes = &bytes[n.min(bytes.len())..],
            Err(_) if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {
            }
            Err(_) => return,
        }
    }
}
