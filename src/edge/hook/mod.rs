//! `nagger hook`: stdin → wire → event → handler → store → stdout.
//! Fails open: nagger's own failure never blocks the agent (exit 0, no stdout,
//! one line on stderr, an error row in hook_log when the database is reachable).

mod ctx;
mod deadline;
pub mod event;
mod input;
mod oversize;
mod post_tool_use;
mod post_tool_use_failure;
mod pre_tool_use;
mod prompt;
mod session;
mod skill_file;
mod skill_shell;
mod subagent_start;
mod subagent_stop;
pub mod wire;

use crate::base::event::HookEvent;
use crate::base::mode::PermissionMode;
use crate::base::paths::{self, Env};
use crate::domain::config::LoadedConfig;
use crate::domain::trust::{self, TrustReport};
use crate::storage::store::{NaggerStateDB, NewHookLog, limit_waits};
use ctx::{Ctx, Outcome};
use event::{Common, Event};
use serde_json::{Map, Value, json};
use std::io::Read;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;
use wire::HookInput;

/// Largest stdin nagger reads; more is bad input.
pub const MAX_STDIN: u64 = 16 * 1024 * 1024;
/// Most bytes one hook run reads from transcripts, whatever they hold.
pub const READ_BUDGET: u64 = 16 * 1024 * 1024;
/// How long nagger waits for stdin to hold a whole input, from the run's start: Claude
/// Code writes the input and closes it.
pub const STDIN_TIMEOUT: std::time::Duration = deadline::STDIN_LIMIT;
/// How long stdin may stay quiet, still open, after what was read holds a whole JSON
/// object, before the run goes on with it.
const STDIN_SETTLE: std::time::Duration = std::time::Duration::from_millis(20);

/// What the process prints. The exit code of `nagger hook` is always 0.
#[derive(Debug, Default)]
pub struct HookRun {
    pub stdout: Option<String>,
    pub stderr: Option<String>,
}

/// Tells the deadline the answer of [`run_stdin`] is written: from the deadline on, what
/// the process still does (a checkpoint) ends with it.
pub fn answer_written() {
    deadline::printed();
}

/// Writes the run's stderr line, waiting a moment at most for a reader that does not
/// drain its pipe: a full stderr never keeps the hook from exiting.
pub fn write_stderr_line(line: &str) {
    let mut text = line[..line.floor_char_boundary(4000)].to_owned();
    text.push('\n');
    deadline::write_when_ready(2, text.as_bytes(), deadline::WRITE_WAIT);
}

/// Runs one hook invocation on the process's stdin, waiting for it with `poll` so that
/// a stdin never closed costs [`STDIN_TIMEOUT`] at most, not a hang. From the start, the
/// hard deadline holds: whatever runs long (stdin, the config, the checks, the
/// database), the run answers within a second.
pub fn run_stdin(env: &Env) -> HookRun {
    let started = Instant::now();
    // Valgrind runs a process tens of times slower: a run it counts with
    // `NAGGER_NO_DEADLINE=1` gets a later deadline, never none (the variable alone does
    // nothing).
    if std::env::var_os("NAGGER_NO_DEADLINE").is_some_and(|v| v == "1") {
        deadline::stretch();
    }
    deadline::enable();
    let _deadline = deadline::enabled().then(|| {
        deadline::arm(
            started + deadline::hard_limit(),
            None,
            &late_line("reading and checking the input"),
        )
    });
    match read_stdin_until(started + STDIN_TIMEOUT) {
        Ok(bytes) => run_from(&mut bytes.as_slice(), env, started),
        // Too large to read whole, yet an object whose deciding fields were kept: read
        // as what was kept, recording nothing.
        Err(Unread {
            compacted: Some(kept),
            ..
        }) if !kept.text.is_empty() && !kept.dropped_deciding() => {
            let note = kept.note(MAX_STDIN / (1024 * 1024));
            NOTE.with(|n| *n.borrow_mut() = Some(note));
            run_from(&mut kept.text.as_slice(), env, started)
        }
        Err(unread) => {
            log_bad_input(env, &unread.problem, started);
            let stderr = format!("bad hook input (passing): {}", unread.problem);
            match unread
                .cut
                .then(|| unchecked_tool_call(&unread.prefix, &unread.problem, unread.stalled))
                .flatten()
            {
                Some(ask) => HookRun {
                    stdout: Some(ask),
                    stderr: Some(format!(
                        "nagger: {}",
                        one_line(&stderr.replace("passing", "asking"))
                    )),
                },
                None => fail_open(&stderr),
            }
        }
    }
}

/// The stderr line of a run that reached its hard deadline while `doing` something.
fn late_line(doing: &str) -> String {
    format!(
        "nagger: no answer within {} ms ({doing} took too long; passing, asking about a tool \
         call the guard had not decided yet, or refusing a typed command whose shell lines \
         were not all judged)",
        deadline::hard_limit().as_millis()
    )
}

/// Stdin that could not be read whole: why, and what was read of it.
struct Unread {
    problem: String,
    /// The input was cut (too large, or not whole in time): what was read is its start.
    cut: bool,
    prefix: Vec<u8>,
    /// An object too large to read whole, read down to the fields nagger knows.
    compacted: Option<oversize::Compacted>,
    /// Stdin stopped coming before the input was whole (not a terminal).
    stalled: bool,
}

thread_local! {
    /// What the input read by the run had to leave out (an input too large, read as a
    /// stream): a problem of the input, so nothing of it is recorded.
    static NOTE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// How much of an input too large to read is searched for what it is.
const PREFIX_SEARCHED: usize = 64 * 1024;

/// The answer to an input that could not be read whole (`problem` says why) that begins
/// as a tool call (Claude Code writes the event's name and the tool's before its input):
/// the user is asked, since the guard cannot read what the call does.
/// An input that stopped coming (`stalled`) is a tool call unless what came of it names
/// another event or a tool's response.
fn unchecked_tool_call(prefix: &[u8], problem: &str, stalled: bool) -> Option<String> {
    let mut head =
        String::from_utf8_lossy(&prefix[..prefix.len().min(PREFIX_SEARCHED)]).into_owned();
    // Past the start searched whole, only the fields that tell what the input is.
    if let Some(rest) = prefix.get(PREFIX_SEARCHED..) {
        for field in TELLING_FIELDS {
            for at in memchr::memmem::find_iter(rest, field).take(64) {
                let end = (at + 96).min(rest.len());
                head.push('\n');
                head.push_str(&String::from_utf8_lossy(&rest[at..end]));
            }
        }
    }
    let event = regex::Regex::new(r#""hook_event_name"\s*:\s*"([^"]*)""#).ok()?;
    // Named PreToolUse (however spelled), or naming no other event nagger handles, a tool
    // and no response of one.
    let names: Vec<event::EventName> = event
        .captures_iter(&head)
        .map(|name| event::EventName::parse(&name[1]))
        .collect();
    let pre_tool_use = event::EventName::Handled(HookEvent::PreToolUse);
    let tool_call = names.contains(&pre_tool_use)
        || (names
            .iter()
            .all(|n| matches!(n, event::EventName::Other(_)))
            && (stalled
                || ["\"tool_name\"", "\"tool_input\""]
                    .iter()
                    .any(|field| head.contains(field)))
            && !head.contains("\"tool_response\""));
    tool_call.then(|| ask_unchecked(&format!("its input could not be read whole ({problem})")))?
}

/// A PreToolUse answer that asks the user about a call nagger could not check, and why.
fn ask_unchecked(why: &str) -> Option<String> {
    wire::HookOutput::PreToolUse {
        decision: Some(wire::PermissionDecision::Ask),
        reason: Some(format!(
            "[nagger] nagger could not check this tool call: {why}. Confirm only if you \
             know what it does."
        )),
        additional_context: None,
    }
    .to_json()
}

/// `struct pollfd` of poll(2).
#[repr(C)]
struct PollFd {
    fd: std::ffi::c_int,
    events: std::ffi::c_short,
    revents: std::ffi::c_short,
}

#[cfg(target_os = "linux")]
type PollCount = std::ffi::c_ulong;
#[cfg(not(target_os = "linux"))]
type PollCount = std::ffi::c_uint;

unsafe extern "C" {
    fn poll(fds: *mut PollFd, nfds: PollCount, timeout: std::ffi::c_int) -> std::ffi::c_int;
    fn read(fd: std::ffi::c_int, buf: *mut std::ffi::c_void, count: usize) -> isize;
}

/// Room made for each read of stdin: most hook inputs fit in one.
const READ_CHUNK: usize = 16 * 1024;

/// Readable, in poll(2)'s `events` (the same value on Linux, the BSDs and macOS).
const POLLIN: std::ffi::c_short = 0x1;

/// Whether stdin is a terminal: a person typing, not Claude Code.
fn stdin_is_terminal() -> bool {
    use std::io::IsTerminal as _;
    std::io::stdin().is_terminal()
}

/// Whether stdin is readable (or at its end) within `wait`, by poll(2).
fn stdin_ready(wait: std::time::Duration) -> std::io::Result<bool> {
    let mut fd = PollFd {
        fd: 0,
        events: POLLIN,
        revents: 0,
    };
    let millis = std::ffi::c_int::try_from(wait.as_millis()).unwrap_or(std::ffi::c_int::MAX);
    // SAFETY: one valid pollfd, owned here, for the duration of the call.
    let ready = unsafe { poll(&raw mut fd, 1, millis) };
    if ready < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(ready > 0)
}

/// Reads stdin to its end, at most [`MAX_STDIN`] bytes, giving up at `until`. Stdin left
/// open after a whole JSON object is not waited for: once it stays quiet for
/// [`STDIN_SETTLE`], the run goes on with the object (what could follow it is ignored
/// anyway). Waiting is done in poll(2), so no thread is started for it.
fn read_stdin_until(until: Instant) -> Result<Vec<u8>, Unread> {
    let mut bytes: Vec<u8> = Vec::new();
    let unread = |problem: String, prefix: Vec<u8>| Unread {
        problem,
        cut: false,
        prefix,
        compacted: None,
        stalled: false,
    };
    loop {
        let left = until.saturating_duration_since(Instant::now());
        // Once something was read, stdin is looked at in short waits: an input whole
        // but never closed goes on after one of them.
        let wait = if bytes.is_empty() {
            left
        } else {
            left.min(STDIN_SETTLE)
        };
        let ready = match stdin_ready(wait) {
            Ok(ready) => ready,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(unread(format!("cannot read stdin: {e}"), bytes)),
        };
        if !ready {
            if holds_whole_object(&bytes) {
                return Ok(bytes);
            }
            if Instant::now() < until {
                continue;
            }
            let problem = format!("stdin did not end within {} ms", STDIN_TIMEOUT.as_millis());
            // Claude Code writes the whole input at once: one that stops coming, before
            // it says which event it is, may be a tool call. A terminal is a person.
            let stalled = !stdin_is_terminal();
            return Err(Unread {
                cut: stalled || !bytes.is_empty(),
                stalled,
                ..unread(problem, bytes)
            });
        }
        // Readable, at its end or closed: a read does not block now. Read straight into
        // the buffer's spare room: nothing is zeroed or copied on the way.
        bytes.reserve(READ_CHUNK);
        let room = bytes.spare_capacity_mut();
        // SAFETY: `room` is writable memory owned by `bytes`, at least `room.len()` bytes.
        let n = unsafe { read(0, room.as_mut_ptr().cast(), room.len()) };
        let Ok(n) = usize::try_from(n) else {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(unread(format!("cannot read stdin: {e}"), bytes));
        };
        if n == 0 {
            return Ok(bytes);
        }
        // SAFETY: read(2) wrote the first `n` bytes of the spare room.
        unsafe { bytes.set_len(bytes.len() + n) };
        if bytes.len() as u64 > MAX_STDIN {
            let problem = format!("stdin is larger than {} MiB", MAX_STDIN / (1024 * 1024));
            let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
            let object = text
                .iter()
                .find(|b| !b.is_ascii_whitespace())
                .is_some_and(|b| *b == b'{');
            if object {
                let kept = read_compacting(&bytes, until);
                return Err(Unread {
                    cut: true,
                    prefix: kept.text.clone(),
                    compacted: Some(kept),
                    ..unread(problem, Vec::new())
                });
            }
            skim_rest(&mut bytes, until);
            return Err(Unread {
                cut: true,
                ..unread(problem, bytes)
            });
        }
    }
}

/// Reads an object too large to read whole on to its end (`until`, or [`MAX_SKIMMED`]
/// bytes), keeping the fields nagger knows: `head` is what was read of it so far.
fn read_compacting(head: &[u8], until: Instant) -> oversize::Compacted {
    let mut kept = oversize::Compactor::new(usize::try_from(MAX_STDIN).unwrap_or(usize::MAX));
    kept.feed(head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head));
    let mut buf = vec![0u8; 64 * 1024];
    let mut read_so_far: u64 = 0;
    while kept.wants_more() && read_so_far < MAX_SKIMMED {
        let Some(n) = next_chunk(&mut buf, until) else {
            break;
        };
        read_so_far += n as u64;
        kept.feed(&buf[..n]);
    }
    kept.finish()
}

/// The next bytes of stdin read into `room`, waiting for them until `until` at most;
/// None at its end, at `until`, or when it cannot be read.
fn next_chunk(room: &mut [u8], until: Instant) -> Option<usize> {
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        match stdin_ready(left) {
            Ok(true) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Ok(false) | Err(_) => return None,
        }
        // SAFETY: `room` is writable memory of `room.len()` bytes, borrowed for the call.
        let n = unsafe { read(0, room.as_mut_ptr().cast(), room.len()) };
        match usize::try_from(n) {
            Ok(0) => return None,
            Ok(n) => return Some(n),
            Err(_) if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {
            }
            Err(_) => return None,
        }
    }
}

/// Fields whose presence tells what an input too large to read is.
const TELLING_FIELDS: [&[u8]; 4] = [
    b"\"hook_event_name\"",
    b"\"tool_name\"",
    b"\"tool_input\"",
    b"\"tool_response\"",
];

/// Most bytes of an input too large to read that are skimmed for what it is.
const MAX_SKIMMED: u64 = 1 << 30;

/// Reads the rest of an input too large to read (until its end, `until`, or
/// [`MAX_SKIMMED`]), keeping after what was read (`head`) only its telling fields, each with what
/// follows it: a tool call whose event and tool come after a long field is still known
/// for one. A field's name cannot be forged inside a string, where its quotes are escaped.
fn skim_rest(head: &mut Vec<u8>, until: Instant) {
    const CHUNK: usize = 64 * 1024;
    const KEPT: usize = 96;
    const MAX_KEPT: usize = 64;
    let mut buf = vec![0u8; CHUNK + KEPT];
    // The end of the chunk before, so a field cut between two reads is still found.
    let mut carried = 0usize;
    let mut kept = 0usize;
    let mut skimmed: u64 = 0;
    head.push(b'\n');
    while skimmed < MAX_SKIMMED && kept < MAX_KEPT {
        let Some(n) = next_chunk(&mut buf[carried..], until) else {
            return;
        };
        skimmed += n as u64;
        let seen = &buf[..carried + n];
        for field in TELLING_FIELDS {
            for at in memchr::memmem::find_iter(seen, field) {
                // A field wholly in the carried part was kept from the chunk before.
                if at + field.len() <= carried || kept >= MAX_KEPT {
                    continue;
                }
                let end = (at + KEPT).min(seen.len());
                head.extend_from_slice(&seen[at..end]);
                head.push(b'\n');
                kept += 1;
            }
        }
        let keep = (carried + n).min(KEPT);
        buf.copy_within(carried + n - keep..carried + n, 0);
        carried = keep;
    }
}

/// Whether `bytes` begin with one whole JSON object (after a byte order mark and white
/// space), whatever follows it.
fn holds_whole_object(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace());
    if start.is_none_or(|i| bytes[i] != b'{') {
        return false;
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde::de::Deserializer::deserialize_ignored_any(&mut de, serde::de::IgnoredAny).is_ok()
}

/// Runs one hook invocation. Never panics and never fails: failures become one
/// stderr line and no stdout.
pub fn run(stdin: &mut dyn Read, env: &Env) -> HookRun {
    run_from(stdin, env, Instant::now())
}

/// [`run`] of a run that began at `started` (its budgets count from then).
fn run_from(stdin: &mut dyn Read, env: &Env, started: Instant) -> HookRun {
    SO_FAR.with(|so_far| so_far.borrow_mut().take());
    catch_panic(|| run_inner(stdin, env, started), "unknown panic").unwrap_or_else(|panic| {
        // What the run had decided before it failed still holds: above all the guard's
        // answer to a tool call (an `ask` when the guard had not decided yet).
        let stdout = SO_FAR.with(|so_far| so_far.borrow_mut().take());
        let what = if stdout.is_some() {
            "answering with what was decided"
        } else {
            "passing"
        };
        HookRun {
            stdout,
            stderr: Some(format!(
                "nagger: internal error ({what}): {}",
                one_line(&panic)
            )),
        }
    })
}

thread_local! {
    /// The answer the run has so far, which a panic still prints: the guard's answer once
    /// decided (before it, an `ask` for a tool call), then the run's own.
    static SO_FAR: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// The answer the run has so far is `stdout` (a line without its newline): the one the
/// hard deadline prints, and the one a panic still prints.
fn answer_so_far(stdout: Option<&str>) {
    deadline::answer_with(stdout);
    SO_FAR.with(|so_far| *so_far.borrow_mut() = stdout.map(str::to_owned));
}

/// Runs `f`; a panic in it comes back as its message (`unnamed` when it has none).
fn catch_panic<T>(f: impl FnOnce() -> T, unnamed: &str) -> Result<T, String> {
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(ToString::to_string)
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| unnamed.to_string())
    })
}

/// The steps of one run: read the event, find its project and config, check that it
/// can be recorded, open the database, then handle the event and log the run.
fn run_inner(stdin: &mut dyn Read, env: &Env, started: Instant) -> HookRun {
    crate::storage::transcript::set_run_budget(READ_BUDGET);
    let ReadEvent {
        input,
        problem,
        ambiguous,
        event,
    } = match read_event(stdin) {
        Ok(read) => read,
        Err(Unreadable { problem, answer }) => {
            log_bad_input(env, &problem, started);
            return match answer {
                Some(ask) => HookRun {
                    stdout: Some(ask),
                    stderr: Some(format!(
                        "nagger: bad hook input (asking): {}",
                        one_line(&problem)
                    )),
                },
                None => fail_open(&format!("bad hook input (passing): {problem}")),
            };
        }
    };
    // Run outside Claude Code, the session began with its transcript: what changed since
    // is what the session may have written.
    if let Some(transcript) = input.transcript_path.as_deref() {
        crate::base::process::session_transcript(std::path::Path::new(transcript));
    }
    // Until the guard has decided, a deadline asks about a tool call.
    deadline::answer_with_line(not_decided(&event));
    SO_FAR.with(|so_far| {
        *so_far.borrow_mut() = not_decided(&event).map(|line| line.trim_end().to_owned());
    });
    if matches!(event, Event::PreToolUse(_) | Event::PreSkillShellCommand(_)) {
        deadline::fall_back_on(built_in_refusal(env, &input, &event, ambiguous.as_deref()));
    }
    let (run, common) = prepare(env, input, event, ambiguous);
    let mut stderr: Vec<String> = run.loaded.warning().into_iter().collect();
    let common = match recordable(common, problem) {
        Ok(common) => common,
        Err(problem) => {
            // Nothing is recorded under ids like these, or without a session; a tool
            // call is still checked, its rules firing every time.
            let safety = run.without_state();
            answer_so_far(safety.as_deref());
            log_bad_input(env, &problem, started);
            let what = if safety.is_some() {
                "answered by the guard alone"
            } else {
                "passing"
            };
            stderr.push(format!("bad hook input ({what}): {problem}"));
            return answer(safety, &stderr);
        }
    };
    let db_path = env.db_path(&run.project_root);
    // From here on, whatever hangs, the guard's answer comes out in time; every wait for
    // the database ends sooner.
    let safety = run.safety();
    let _deadline = arm_deadline(started, safety.as_deref(), &stderr);
    SO_FAR.with(|so_far| so_far.borrow_mut().clone_from(&safety));
    run.fall_back_on_rules_without_state(safety.as_deref());
    // With the guard's answer in hand, the database only records it: a shorter wait, so
    // the answer comes well inside the second.
    let budget = if safety.is_some() {
        deadline::DECIDED_WAIT_BUDGET
    } else {
        deadline::WAIT_BUDGET
    };
    let _waits = limit_waits(started + budget);
    // Opening runs the migrations, whose library panics on some damaged histories: the
    // database is then as unusable as one that cannot be opened.
    let db = match catch_panic(|| NaggerStateDB::open_for_hook(&db_path), "unknown panic") {
        Ok(Ok(db)) => db,
        Ok(Err(e)) => return without_database(run.without_state(), &e, stderr),
        Err(panic) => {
            let problem = format!("cannot be opened: {panic}");
            return without_database(run.without_state(), &problem, stderr);
        }
    };
    if let Some(moved) = &db.report().quarantined {
        stderr.push(moved_aside(moved));
    }
    if let Some(moved) = &db.report().set_aside {
        stderr.push(moved.to_string());
    }
    let stdout = handle_and_log(&run, &common, db, &db_path, started, &mut stderr);
    answer(stdout, &stderr)
}

/// What a deadline answers to a tool call before the guard has decided it, rendered
/// once (the hook's output line, newline included): [`not_decided`]'s answer.
const NOT_DECIDED_TOOL_CALL: &str = concat!(
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","#,
    r#""permissionDecisionReason":"[nagger] nagger could not check this tool call: its "#,
    r#"checks did not finish (too slow, or a fault in nagger). Confirm only if you know what it does."}}"#,
    "\n"
);
/// What a deadline answers to a tool call the guard let through while the config's
/// `block` and `ask` rules are still being checked.
const UNCHECKED_RULES: &str = concat!(
    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","#,
    r#""permissionDecisionReason":"[nagger] nagger could not check this tool call against "#,
    r#"the config's rules in time (a slow database, or rules slow to check: `nagger doctor`). "#,
    r#"Confirm only if no rule of yours would stop it."}}"#
);

/// Whether `answer` (a hook's output line) refuses the call.
fn denies(answer: &str) -> bool {
    serde_json::from_str::<Value>(answer)
        .is_ok_and(|v| v["hookSpecificOutput"]["permissionDecision"].as_str() == Some("deny"))
}

/// The same for a skill's shell line.
const NOT_DECIDED_SHELL_LINE: &str = concat!(
    r#"{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"#,
    r#""ask","permissionDecisionReason":"[nagger] nagger could not check this shell line: "#,
    r#"its checks did not finish (too slow, or a fault in nagger). Confirm only if you know what it does."}}"#,
    "\n"
);

/// The same for a typed command whose file's shell lines were not all judged in time:
/// the prompt is refused (a typed command's lines run without a question).
const NOT_DECIDED_COMMAND: &str = concat!(
    r#"{"decision":"block","reason":"[nagger] nagger could not check the shell lines of this "#,
    r#"command's file in time (too many or too slow to judge on this machine now, or a fault "#,
    r#"in nagger), and a typed command's lines run without a question. Send it again, or run "#,
    r#"the lines yourself if you trust them."}"#,
    "\n"
);

/// What a deadline answers to `event` before the guard has decided it: a tool call or a
/// skill's shell line is asked about, a typed command (whose file's lines are being
/// judged) is refused.
fn not_decided(event: &Event) -> Option<&'static str> {
    match event {
        Event::PreToolUse(_) => Some(NOT_DECIDED_TOOL_CALL),
        Event::PreSkillShellCommand(_) => Some(NOT_DECIDED_SHELL_LINE),
        Event::UserPromptSubmit { prompt } => {
            skill_file::typed_command(prompt).map(|_| NOT_DECIDED_COMMAND)
        }
        Event::UserPromptExpansion(expansion) => expansion
            .expansion_type
            .as_deref()
            .is_none_or(|t| t == "slash_command")
            .then_some(NOT_DECIDED_COMMAND),
        _ => None,
    }
}

/// Gives the run's hard deadline the answer it has before the database: the guard's
/// (`safety`) and one stderr line saying the run ran out of time (armed here when the
/// run's process did not arm it from its start).
fn arm_deadline(started: Instant, safety: Option<&str>, stderr: &[String]) -> deadline::Armed {
    let what = if safety.is_some() {
        "guard applied without it"
    } else {
        "passing"
    };
    let mut lines = stderr.to_vec();
    let spent = started.elapsed();
    let limit = deadline::hard_limit();
    // A run that reaches the database late was slow before it: the line says where the
    // time went, not that the database blocked.
    lines.push(if spent * 2 > limit {
        format!(
            "no answer within {} ms ({what}): reading and checking the input took {} ms, \
             which left the state database too little time (a loaded machine, or an input \
             slow to check)",
            limit.as_millis(),
            spent.as_millis()
        )
    } else {
        format!(
            "state database unavailable ({what}): no answer within {} ms (a slow disk, or a \
             file of the database's that blocks: `nagger doctor`)",
            limit.as_millis()
        )
    });
    let late = answer(None, &lines);
    deadline::answer_with(safety);
    deadline::tell(late.stderr.as_deref().unwrap_or_default());
    deadline::arm(
        started + deadline::hard_limit(),
        safety,
        late.stderr.as_deref().unwrap_or_default(),
    )
}

/// When a hook that has not answered answers with what it has, in milliseconds.
pub fn deadline_limit_ms() -> u128 {
    deadline::HARD_LIMIT.as_millis()
}

/// The path of the nagger program running this hook, which the guard protects like
/// the nagger on PATH (whatever folder it was installed in).
pub fn running_binary() -> Option<String> {
    std::env::current_exe()
        .ok()
        .map(|path| path.to_string_lossy().into_owned())
}

/// A run's event and where it belongs: its permission mode, project and config.
struct Prepared {
    event: Event,
    mode: PermissionMode,
    project_root: PathBuf,
    /// The config with the trusted safety settings in force.
    loaded: LoadedConfig,
    /// What of the config waits for the user's confirmation.
    trust: TrustReport,
    /// The input's working folder and session, where skills are looked for.
    cwd: Option<String>,
    session_id: Option<String>,
    /// [`Prepared::safety`], once worked out.
    safety: std::cell::OnceCell<Option<String>>,
    /// The guard's answer to a tool call, worked out once for the safety answer and the
    /// full rule check.
    reviewed: crate::domain::rules::GuardReview,
    /// What makes the input's tool call mean two things, if anything.
    ambiguous: Option<String>,
}

impl Prepared {
    /// The guard's and the deny rules' answer to a tool call. They never depend on the
    /// database: when it cannot be used, or a handler fails, a tool call is still
    /// decided on them.
    fn safety(&self) -> Option<String> {
        self.safety
            .get_or_init(|| self.safety_now(pre_tool_use::Stateless::DenyRules))
            .clone()
    }

    /// The answer when the state cannot be used (the database locked, damaged or
    /// unreadable, or the input's session not one that can be recorded): [`Self::safety`]
    /// with every rule of the config that applies to everyone, its `block` and `ask`
    /// rules firing every time, since nothing can count that they fired once.
    fn without_state(&self) -> Option<String> {
        let rules = &self.loaded.config.rules;
        let has_rules =
            !(rules.file.is_empty() && rules.command.is_empty() && rules.tool.is_empty());
        if !has_rules || !matches!(self.event, Event::PreToolUse(_)) {
            return self.safety();
        }
        self.safety_now(pre_tool_use::Stateless::EveryRule)
    }

    /// Whether the config has a `block` or `ask` rule for everyone: one that may stop a
    /// tool call the guard and the deny rules let through.
    fn has_questions_for_everyone(&self) -> bool {
        use crate::domain::rules::Severity;
        let rules = &self.loaded.config.rules;
        let asks = |severity: Severity, scope: &[String]| {
            matches!(severity, Severity::Ask | Severity::Block) && scope.is_empty()
        };
        rules.file.iter().any(|r| asks(r.severity, &r.scope))
            || rules.command.iter().any(|r| asks(r.severity, &r.scope))
            || rules.tool.iter().any(|r| asks(r.severity, &r.scope))
    }

    /// For a tool call the guard and the deny rules did not refuse, when the config has
    /// `block` or `ask` rules for everyone: if the run has not answered near the
    /// deadline (the database slow to answer, or the rules slow to check), the deadline
    /// answers as a run without the database does, with those rules firing every time,
    /// worked out again on a thread of its own. Until that is done, a call the guard
    /// passed is asked about: a rule the user set may stop it.
    fn fall_back_on_rules_without_state(&self, safety: Option<&str>) {
        if !matches!(self.event, Event::PreToolUse(_))
            || !deadline::enabled()
            || !self.has_questions_for_everyone()
            || safety.is_some_and(denies)
        {
            return;
        }
        let origin = Origin {
            mode: self.mode.clone(),
            cwd: self.cwd.clone(),
            session_id: self.session_id.clone(),
        };
        let (event, root) = (self.event.clone(), self.project_root.clone());
        let ambiguous = self.ambiguous.clone();
        let limit = deadline::hard_limit().as_millis();
        let fallback: deadline::Fallback = Box::new(move || {
            let mut loaded = LoadedConfig::load(&paths::config_path(&root));
            let trust = trust::settle(&mut loaded.config, &loaded.path, trust::Ratchet::ReadOnly);
            loaded.config.guard.binary = running_binary();
            let run = Prepared::new(event, origin, root, (loaded, trust), ambiguous);
            run.without_state().map(|answer| {
                (
                    answer,
                    format!(
                        "state database unavailable (rules applied without it): no answer \
                         within {limit} ms (a slow disk, or a file of the database's that \
                         blocks: `nagger doctor`)"
                    ),
                )
            })
        });
        match safety {
            Some(_) => deadline::fall_back_on(fallback),
            None => deadline::fall_back_on_with(
                fallback,
                (
                    UNCHECKED_RULES.to_owned(),
                    format!(
                        "nagger: no answer within {limit} ms (the config's rules were not \
                         checked in time: asking)"
                    ),
                ),
            ),
        }
    }

    fn safety_now(&self, stateless: pre_tool_use::Stateless) -> Option<String> {
        let config = &self.loaded.config;
        let place = skill_file::Place {
            project_root: &self.project_root,
            cwd: self.cwd.as_deref(),
            session_id: self.session_id.as_deref(),
        };
        let answer = match &self.event {
            Event::PreToolUse(call) => pre_tool_use::safety_answer(
                config,
                &self.mode,
                call,
                (&self.project_root, &self.reviewed, stateless),
                place,
            ),
            Event::PreSkillShellCommand(shell) => {
                Some(skill_shell::answer(config, &self.mode, shell, &self.project_root).0)
            }
            Event::UserPromptSubmit { prompt } => {
                prompt::answer(config, &self.mode, prompt::Typed::Submit(prompt), place)
                    .map(|(_, output)| output)
            }
            Event::UserPromptExpansion(expansion) => prompt::answer(
                config,
                &self.mode,
                prompt::Typed::Expansion(expansion),
                place,
            )
            .map(|(_, output)| output),
            _ => None,
        };
        if answer.as_ref().is_none_or(|a| !a.denies())
            && let Some(ask) = self.unreadable_config_ask()
        {
            return Some(ask);
        }
        // A tool call that may mean two things is never passed silently.
        let answer = match (answer, &self.ambiguous, &self.event) {
            (answer, Some(why), Event::PreToolUse(_))
                if answer.as_ref().is_none_or(|a| !a.denies()) =>
            {
                return ask_unchecked(&format!("its input is ambiguous ({why})"));
            }
            (answer, ..) => answer?,
        };
        self.with_pending(answer.to_json())
    }

    /// The rules the user set cannot be checked, so a tool call the guard does not refuse
    /// is asked about: a config that is there but cannot be read (a link loop, a lease,
    /// something in its place that is no file) while the settings the user last trusted
    /// cannot be read either, or a trusted snapshot that is there but cannot be read, or
    /// is missing or weaker than the copy nagger keeps of a confirmation (nagger writes it
    /// whole, by a rename, never lowers it and never deletes it: one emptied, cut short,
    /// replaced or deleted was changed behind its back, and the rules it held may be gone from a config rewritten at the
    /// same time). `None` when both are read, or the trusted settings are in force in the
    /// config's place.
    fn unreadable_config_ask(&self) -> Option<String> {
        if !matches!(self.event, Event::PreToolUse(_)) {
            return None;
        }
        let shown = || {
            self.trust
                .path
                .strip_prefix(&self.project_root)
                .unwrap_or(&self.trust.path)
                .display()
                .to_string()
        };
        // nagger's folder made a link to another (another project's, with its own
        // settings and trust): the rules read are not this project's.
        let folder = self.project_root.join(crate::base::paths::NAGGER_DIR_NAME);
        if std::fs::symlink_metadata(&folder).is_ok_and(|m| m.file_type().is_symlink()) {
            let to = std::fs::read_link(&folder).unwrap_or_default();
            return ask_unchecked(&format!(
                "nagger's folder `{}` is a link to `{}`, so the settings read there may not \
                 be this project's: make it a folder again, then run `nagger trust` in your \
                 terminal",
                crate::base::paths::NAGGER_DIR_NAME,
                to.display()
            ));
        }
        match &self.trust.snapshot {
            trust::SnapshotState::Present
                if self.trust.copy.is_some() && !self.trust.copy_keeps.is_empty() =>
            {
                return ask_unchecked(&format!(
                    "the settings you last trusted ({}) were replaced by weaker ones behind \
                     nagger's back, so the rules added since your last confirmation cannot be \
                     checked: run `nagger trust` in your terminal",
                    shown()
                ));
            }
            trust::SnapshotState::Present => return None,
            trust::SnapshotState::Unreadable(why) => {
                return ask_unchecked(&format!(
                    "the settings you last trusted ({}) cannot be read ({why}), so the rules \
                     set there cannot be checked: run `nagger trust` in your terminal",
                    shown()
                ));
            }
            trust::SnapshotState::Missing if self.trust.copy.is_some() => {
                return ask_unchecked(&format!(
                    "the settings you last trusted ({}) were deleted, so the rules added since \
                     your last confirmation cannot be checked: run `nagger trust` in your \
                     terminal",
                    shown()
                ));
            }
            trust::SnapshotState::Missing => {}
        }
        let e = self
            .loaded
            .errors
            .iter()
            .find(|e| e.problem == crate::domain::config::Problem::Unreadable)?;
        ask_unchecked(&format!(
            "its config {}, so the rules set there cannot be checked (`nagger doctor`)",
            e.message.trim_end_matches("; running on the defaults")
        ))
    }

    /// A deny or ask answer while the config's weakenings wait for the user: its reason
    /// ends with a line that says so.
    fn with_pending(&self, stdout: Option<String>) -> Option<String> {
        let line = self.trust.pending_line();
        let (Some(text), Some(line)) = (&stdout, line) else {
            return stdout;
        };
        let Ok(mut value) = serde_json::from_str::<Value>(text) else {
            return stdout;
        };
        let Some(out) = value
            .get_mut("hookSpecificOutput")
            .and_then(Value::as_object_mut)
        else {
            return stdout;
        };
        if !matches!(
            out.get("permissionDecision").and_then(Value::as_str),
            Some("deny" | "ask")
        ) {
            return stdout;
        }
        let reason = out
            .get("permissionDecisionReason")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let reason = if reason.is_empty() {
            line
        } else {
            format!("{reason}\n{line}")
        };
        out.insert("permissionDecisionReason".into(), Value::String(reason));
        Some(value.to_string())
    }
}

/// Where an input comes from: its permission mode, working folder and session.
struct Origin {
    mode: PermissionMode,
    cwd: Option<String>,
    session_id: Option<String>,
}

impl Origin {
    fn of(input: &HookInput) -> Origin {
        Origin {
            mode: event::permission_mode(input),
            cwd: input.cwd.clone().filter(|c| !c.trim().is_empty()),
            session_id: input.session_id.clone().filter(|s| !s.trim().is_empty()),
        }
    }
}

impl Prepared {
    fn new(
        event: Event,
        origin: Origin,
        project_root: PathBuf,
        (loaded, trust): (LoadedConfig, TrustReport),
        ambiguous: Option<String>,
    ) -> Prepared {
        Prepared {
            event,
            mode: origin.mode,
            project_root,
            loaded,
            trust,
            cwd: origin.cwd,
            session_id: origin.session_id,
            safety: std::cell::OnceCell::new(),
            reviewed: crate::domain::rules::GuardReview::default(),
            ambiguous,
        }
    }
}

/// For a run that has not decided its tool call near the deadline (its config or trust
/// file on a disk that stalls): the guard with nagger's built-in settings, which read no
/// file of nagger's. Only a refusal is taken: the project's config may add refusals
/// and questions, so anything less stays a question.
fn built_in_refusal(
    env: &Env,
    input: &HookInput,
    event: &Event,
    ambiguous: Option<&str>,
) -> deadline::Fallback {
    let env = env.clone();
    let origin = Origin::of(input);
    let event = event.clone();
    let ambiguous = ambiguous.map(str::to_owned);
    Box::new(move || {
        let project_root = env.project_root(origin.cwd.as_deref());
        let mut loaded = LoadedConfig::default();
        loaded.config.guard.binary = running_binary();
        let trust = TrustReport::built_in();
        let run = Prepared::new(event, origin, project_root, (loaded, trust), ambiguous);
        let answer = run.safety()?;
        denies(&answer).then(|| {
            (
                answer,
                format!(
                    "nagger: no answer within {} ms (reading the config took too long); the \
                     guard refused the call with its built-in settings",
                    deadline::hard_limit().as_millis()
                ),
            )
        })
    })
}

/// Finds the input's permission mode, project and config, and its common fields (an
/// error when it has no session).
fn prepare(
    env: &Env,
    input: HookInput,
    event: Event,
    ambiguous: Option<String>,
) -> (Prepared, Result<Common, event::InputError>) {
    let origin = Origin::of(&input);
    let project_root = env.project_root(origin.cwd.as_deref());
    let common = event::common(input, &event, origin.mode.clone());
    let mut loaded = LoadedConfig::load(&paths::config_path(&project_root));
    // The settings in force are never weaker than the ones the user last trusted.
    let trust = trust::settle(&mut loaded.config, &loaded.path, trust::Ratchet::Write);
    loaded.config.guard.binary = running_binary();
    let run = Prepared::new(event, origin, project_root, (loaded, trust), ambiguous);
    (run, common)
}

/// Handles the event with the database and logs the run (moving a damaged database
/// aside); the run's stdout.
fn handle_and_log(
    run: &Prepared,
    common: &Common,
    db: NaggerStateDB,
    db_path: &Path,
    started: Instant,
    stderr: &mut Vec<String>,
) -> Option<String> {
    let ctx = Ctx {
        db: &db,
        config: &run.loaded.config,
        config_present: run.loaded.present,
        project_root: &run.project_root,
        common,
        reviewed: &run.reviewed,
        warnings: std::cell::RefCell::default(),
    };
    let (outcome, failure) = handle(&ctx, &run.event);
    stderr.extend(ctx.warnings.take());
    let mut details = run_details(outcome.details, &db, &run.loaded);
    let result = match &failure.error {
        Some(e) => record_failure(&run.event, e, &mut details, stderr),
        None => outcome.result.unwrap_or_else(|| outcome.output.result()),
    };
    let stdout = if failure.error.is_some() {
        run.without_state()
    } else {
        run.with_pending(outcome.output.to_json())
    };
    let stdout = match stdout {
        Some(text) if denies(&text) => Some(text),
        other => run.unreadable_config_ask().or(other),
    };
    if let Some(text) = &stdout {
        details.insert("output_chars".into(), json!(text.len()));
    }
    // From here on the run has its own answer: a deadline while it logs prints that one,
    // so that what the handler decided (and may have recorded) still reaches the agent.
    answer_so_far(stdout.as_deref());
    // After a busy timeout was waited out, logging would wait it out a second time
    // before failing the same way.
    if !failure.locked {
        let entry = LogEntry {
            session_id: &common.session_id,
            event: &run.event,
            agent_id: outcome.agent_id.as_deref().or(common.agent_id.as_deref()),
            result,
            started,
        };
        if log_run(&db, &entry, &details, failure.corrupt, stderr) {
            drop(db);
            quarantine_and_log_again(db_path, &entry, details, stderr);
        }
    }
    stdout
}

/// Reads stdin into the input, what is wrong with its fields (if anything: a wrong type,
/// an id nagger does not store) and the event it carries; what is wrong with it when it
/// carries none.
fn read_event(stdin: &mut dyn Read) -> Result<ReadEvent, Unreadable> {
    let bytes = read_bounded(stdin).map_err(|problem| Unreadable {
        problem,
        answer: None,
    })?;
    let (text, decoded) = input::decode(&bytes);
    if text.trim().is_empty() {
        return Err(Unreadable {
            problem: "stdin is empty; expected one JSON object".to_string(),
            answer: None,
        });
    }
    // Text that cannot be read, or read as no event, and that names a tool call: the
    // user is asked.
    let unreadable = |problem: String| Unreadable {
        answer: unchecked_tool_call(text.as_bytes(), &problem, false),
        problem,
    };
    let input::ReadInput {
        mut input,
        mut problems,
        ambiguous,
    } = input::parse(&text).map_err(unreadable)?;
    problems.extend(decoded);
    problems.extend(NOTE.with(|n| n.borrow_mut().take()));
    problems.extend(input.id_problem());
    problems.extend(infer_event(&mut input));
    if !ambiguous.is_empty() {
        // Nothing is recorded of it: only the guard speaks.
        problems.push(format!("input is ambiguous ({})", ambiguous.join("; ")));
    }
    // A tool call still to be made, whatever its event's name says.
    let before_call = input.tool_input.is_some()
        && input.tool_response.is_none()
        && input.hook_event_name.as_deref().is_none_or(|n| {
            matches!(
                event::EventName::parse(n),
                event::EventName::Handled(HookEvent::PreToolUse) | event::EventName::Other(_)
            )
        });
    match event::event(&mut input) {
        Ok(event) => Ok(ReadEvent {
            input,
            problem: (!problems.is_empty()).then(|| problems.join("; ")),
            ambiguous: (!ambiguous.is_empty()).then(|| ambiguous.join("; ")),
            event,
        }),
        Err(e) => {
            problems.push(e.to_string());
            let problem = problems.join("; ");
            // A tool input without a tool name nagger can read, or text after the object
            // that names a tool call: the user is asked.
            Err(if before_call {
                Unreadable {
                    answer: ask_unchecked(&format!("its input could not be read whole ({e})")),
                    problem,
                }
            } else if ambiguous.is_empty() {
                Unreadable {
                    problem,
                    answer: None,
                }
            } else {
                unreadable(problem)
            })
        }
    }
}

/// An input read: its fields, what is wrong with them, what makes a tool call in it
/// ambiguous, and the event it carries.
struct ReadEvent {
    input: HookInput,
    problem: Option<String>,
    ambiguous: Option<String>,
    event: Event,
}

/// An input without a usable hook_event_name that names a tool call (a tool and its
/// input, no response) is read as the PreToolUse it can only be before the call: the
/// guard decides it from `tool_name` and `tool_input`, whatever else is missing.
fn infer_event(input: &mut HookInput) -> Option<String> {
    // No name, or one of no event nagger handles (a tool call is never anything else).
    let unnamed = input.hook_event_name.as_deref().is_none_or(|n| {
        n.trim().is_empty() || matches!(event::EventName::parse(n), event::EventName::Other(_))
    });
    let tool_call = input
        .tool_name
        .as_deref()
        .is_some_and(|t| !t.trim().is_empty())
        && input.tool_input.is_some()
        && input.tool_response.is_none();
    (unnamed && tool_call).then(|| {
        input.hook_event_name = Some(HookEvent::PreToolUse.as_str().to_string());
        "input has no hook_event_name nagger handles (read as PreToolUse: it names a tool \
         call and no response)"
            .to_string()
    })
}

/// The common fields, when the input can be recorded: every field of its type, ids that
/// can be stored and a session; otherwise what is wrong with it.
fn recordable(
    common: Result<Common, event::InputError>,
    problem: Option<String>,
) -> Result<Common, String> {
    match (common, problem) {
        (Ok(common), None) => Ok(common),
        (common, problem) => Err(problem
            .or_else(|| common.err().map(|e| e.to_string()))
            .unwrap_or_default()),
    }
}

/// The run's answer when the database cannot be opened: the safety answer, if any.
fn without_database(
    stdout: Option<String>,
    e: &dyn std::fmt::Display,
    mut stderr: Vec<String>,
) -> HookRun {
    let what = if stdout.is_some() {
        "guard applied without it"
    } else {
        "passing"
    };
    stderr.push(format!("state database unavailable ({what}): {e}"));
    answer(stdout, &stderr)
}

fn moved_aside(moved: &Path) -> String {
    format!(
        "state database was corrupt; moved aside to {}",
        moved.display()
    )
}

/// How handling an event failed, if it did.
#[derive(Default)]
struct Failure {
    /// The error or panic, on one line.
    error: Option<String>,
    /// The database stayed locked past the busy timeout.
    locked: bool,
    /// The database file is damaged.
    corrupt: bool,
}

/// Handles the event; an error or a panic gives a silent outcome and its failure.
fn handle(ctx: &Ctx<'_>, event: &Event) -> (Outcome, Failure) {
    match catch_panic(|| dispatch(ctx, event), "panic") {
        Ok(Ok(outcome)) => (outcome, Failure::default()),
        Ok(Err(e)) => (
            Outcome::silent(),
            Failure {
                error: Some(error_text(&e)),
                locked: waited_out_a_lock(&e),
                corrupt: found_corruption(&e),
            },
        ),
        Err(what) => (
            Outcome::silent(),
            Failure {
                error: Some(format!("panic: {what}")),
                ..Failure::default()
            },
        ),
    }
}

fn dispatch(ctx: &Ctx<'_>, event: &Event) -> anyhow::Result<Outcome> {
    match event {
        Event::SessionStart { source } => session::start(ctx, source.as_ref()),
        Event::SessionEnd { reason } => session::end(ctx, reason.as_deref()),
        Event::PreCompact { trigger } => Ok(Outcome::silent().detail("trigger", trigger.clone())),
        Event::SubagentStart {
            agent_id,
            agent_type,
        } => subagent_start::handle(ctx, agent_id, agent_type),
        Event::SubagentStop(stop) => subagent_stop::handle(ctx, stop),
        Event::PreToolUse(call) => pre_tool_use::handle(ctx, call),
        Event::PostToolUse(call) => post_tool_use::handle(ctx, call),
        Event::PostToolUseFailure(failure) => post_tool_use_failure::handle(ctx, failure),
        Event::UserPromptSubmit { prompt } => prompt::handle(ctx, prompt::Typed::Submit(prompt)),
        Event::UserPromptExpansion(expansion) => {
            prompt::handle(ctx, prompt::Typed::Expansion(expansion))
        }
        Event::PreSkillShellCommand(shell) => skill_shell::handle(ctx, shell),
        Event::Other(_) => Ok(Outcome::silent()),
    }
}

/// The handler's details and what the run adds about the database and the config.
fn run_details(
    mut details: Map<String, Value>,
    db: &NaggerStateDB,
    loaded: &LoadedConfig,
) -> Map<String, Value> {
    if let Some(moved) = &db.report().quarantined {
        details.insert("quarantined".into(), json!(moved.display().to_string()));
    }
    if let Some(moved) = &db.report().set_aside {
        details.insert("set_aside".into(), json!(moved.to.display().to_string()));
    }
    if let Some(from) = db.report().migrated_from {
        details.insert("migrated_from".into(), json!(from));
    }
    if !loaded.errors.is_empty() {
        details.insert("config_errors".into(), json!(loaded.errors.len()));
    }
    details
}

/// Records a failed handler in the details and on stderr; the hook_log result.
fn record_failure(
    event: &Event,
    error: &str,
    details: &mut Map<String, Value>,
    stderr: &mut Vec<String>,
) -> &'static str {
    details.insert("error".into(), json!(error));
    stderr.push(format!(
        "{} failed (passing): {}",
        event.name(),
        one_line(error)
    ));
    "error"
}

/// What one run writes to hook_log, besides its details.
struct LogEntry<'a> {
    session_id: &'a str,
    event: &'a Event,
    agent_id: Option<&'a str>,
    result: &'a str,
    started: Instant,
}

impl LogEntry<'_> {
    fn write(
        &self,
        db: &NaggerStateDB,
        details: &Map<String, Value>,
    ) -> crate::storage::store::StoreResult<i64> {
        let details = (!details.is_empty()).then(|| Value::Object(details.clone()));
        db.hook_log().log(&NewHookLog {
            session_id: self.session_id,
            hook_name: self.event.handler(),
            event_type: self.event.name(),
            agent_id: self.agent_id,
            result: self.result,
            details: details.as_ref(),
            duration_ms: Some(self.started.elapsed().as_secs_f64() * 1000.0),
            timestamp: None,
        })
    }
}

/// Writes the run's hook_log row; true when the database turned out damaged (then it
/// is to be moved aside).
fn log_run(
    db: &NaggerStateDB,
    entry: &LogEntry<'_>,
    details: &Map<String, Value>,
    corrupt: bool,
    stderr: &mut Vec<String>,
) -> bool {
    match entry.write(db, details) {
        Ok(_) => corrupt,
        Err(e) => {
            stderr.push(format!("could not write hook_log: {e}"));
            corrupt || crate::storage::store::is_corrupt(&e)
        }
    }
}

/// A damaged page: the database is moved aside as `doctor --fix` does, so that the next
/// hooks work again, and the run is logged in the fresh one. A busy or read-only
/// database never comes here.
fn quarantine_and_log_again(
    db_path: &Path,
    entry: &LogEntry<'_>,
    mut details: Map<String, Value>,
    stderr: &mut Vec<String>,
) {
    match crate::storage::store::health::quarantine_and_recreate(db_path) {
        Ok(moved) => {
            stderr.push(moved_aside(&moved));
            details.insert("quarantined".into(), json!(moved.display().to_string()));
            if let Ok(fresh) = NaggerStateDB::open(db_path) {
                let _ = entry.write(&fresh, &details);
            }
        }
        Err(e) => stderr.push(format!("could not move the corrupt database aside: {e}")),
    }
}

/// The run's answer: its stdout, and its stderr lines as one line (none when empty).
fn answer(stdout: Option<String>, stderr: &[String]) -> HookRun {
    HookRun {
        stdout,
        stderr: (!stderr.is_empty()).then(|| format!("nagger: {}", one_line(&stderr.join("; ")))),
    }
}

fn fail_open(message: &str) -> HookRun {
    HookRun {
        stdout: None,
        stderr: Some(format!("nagger: {}", one_line(message))),
    }
}

/// Keeps stderr to one bounded line.
fn one_line(s: &str) -> String {
    crate::base::text::one_line(s, 400)
}

/// Reads stdin up to [`MAX_STDIN`] bytes; more is bad input.
fn read_bounded(stdin: &mut dyn Read) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    stdin
        .take(MAX_STDIN + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    if bytes.len() as u64 > MAX_STDIN {
        return Err(format!(
            "stdin is larger than {} MiB",
            MAX_STDIN / (1024 * 1024)
        ));
    }
    Ok(bytes)
}

/// An input that could not be read: why, and the answer to give (an ask, when it could
/// be a tool call).
struct Unreadable {
    problem: String,
    answer: Option<String>,
}

/// The error and its causes on one line, each said once: SQLite's message comes back
/// from every layer that wraps it ("database is locked: database is locked: Error code 5:
/// database is locked" becomes "Error code 5: database is locked").
fn error_text(e: &anyhow::Error) -> String {
    let mut said: Vec<String> = Vec::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if said.join(": ").contains(&text) {
            continue;
        }
        // A cause that ends with what was said last says it again with more in front:
        // keep its longer form once.
        let parts: Vec<&str> = text.split(": ").collect();
        let overlap = (1..=parts.len().min(said.len()))
            .rev()
            .find(|&n| said[said.len() - n..].iter().eq(&parts[parts.len() - n..]))
            .unwrap_or(0);
        said.truncate(said.len() - overlap);
        said.extend(parts.iter().map(ToString::to_string));
    }
    said.join(": ")
}

/// Whether the run failed because the database file is damaged (a corrupt page).
fn found_corruption(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<crate::storage::store::StoreError>()
            .is_some_and(crate::storage::store::is_corrupt)
            || cause
                .downcast_ref::<rusqlite::Error>()
                .is_some_and(crate::storage::store::is_corrupt_sqlite)
    })
}

/// Whether the run failed because the database stayed locked past the busy timeout.
fn waited_out_a_lock(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<crate::storage::store::StoreError>()
            .is_some_and(crate::storage::store::StoreError::is_lock_timeout)
            || cause
                .downcast_ref::<rusqlite::Error>()
                .is_some_and(crate::storage::store::is_busy)
    })
}

/// Records bad input when a database already exists where it would be; never
/// creates one for garbage.
fn log_bad_input(env: &Env, problem: &str, started: Instant) {
    let project_root = env.project_root(None);
    let db_path: PathBuf = env.db_path(&project_root);
    if !db_path.exists() {
        return;
    }
    let _waits = limit_waits(started + deadline::WAIT_BUDGET);
    if let Ok(db) = NaggerStateDB::open_for_hook(&db_path) {
        let _ = db
            .hook_log()
            .log_bad_input(problem, started.elapsed().as_secs_f64() * 1000.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_call_without_an_event_name_is_read_as_pretooluse() {
        let call = |name: Option<&str>, response: bool| {
            let mut input = HookInput {
                hook_event_name: name.map(Into::into),
                tool_name: Some("Bash".into()),
                tool_input: Some(json!({"command": "rm -rf /"})),
                tool_response: response.then(|| json!({})),
                ..HookInput::default()
            };
            let problem = infer_event(&mut input);
            (input.hook_event_name, problem.is_some())
        };
        assert_eq!(call(None, false), (Some("PreToolUse".into()), true));
        assert_eq!(call(Some(" "), false), (Some("PreToolUse".into()), true));
        // A name of no event nagger handles.
        for other in ["PermissionRequest", "Unknown", "\u{200b}"] {
            assert_eq!(call(Some(other), false), (Some("PreToolUse".into()), true));
        }
        assert_eq!(
            call(Some("Pre_Tool_Use\0"), false),
            (Some("Pre_Tool_Use\0".into()), false)
        );
        // Named, or after the call: left as it is.
        assert_eq!(
            call(Some("PostToolUse"), false),
            (Some("PostToolUse".into()), false)
        );
        assert_eq!(call(None, true), (None, false));
        let mut no_tool = HookInput::default();
        assert_eq!(infer_event(&mut no_tool), None);
        assert_eq!(no_tool.hook_event_name, None);
    }

    #[test]
    fn an_input_cut_short_that_begins_as_a_tool_call_is_asked_about() {
        let asked = |prefix: &str| {
            unchecked_tool_call(prefix.as_bytes(), "stdin is larger than 16 MiB", false)
                .is_some_and(|out| {
                    out.contains("\"permissionDecision\":\"ask\"")
                        && out.contains("could not be read whole (stdin is larger than 16 MiB)")
                })
        };
        assert!(asked(
            r#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"content":"aaaa"#
        ));
        assert!(asked(r#"{"hook_event_name" : "pretooluse", "#));
        assert!(asked(
            r#"{"tool_name":"Bash","tool_input":{"command":"aaaa"#
        ));
        assert!(!asked(
            r#"{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":"aaaa"#
        ));
        assert!(!asked(
            r#"{"hook_event_name":"UserPromptSubmit","prompt":"aaaa"#
        ));
        // Past the start searched whole: the telling fields still tell.
        let pad = "x".repeat(PREFIX_SEARCHED + 10);
        assert!(asked(&format!(
            r#"{{"pad":"{pad}","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"rm"#
        )));
        assert!(!asked(&format!(
            r#"{{"pad":"{pad}","hook_event_name":"Stop","stop_hook_active":false"#
        )));
        // A field's name inside a string has its quotes escaped: not a field.
        assert!(!asked(&format!(
            r#"{{"hook_event_name":"UserPromptSubmit","prompt":"{pad} \"hook_event_name\":\"PreToolUse\" \"tool_input\""#
        )));
        assert!(!asked(
            r#"{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"a"#
        ));
        // Two objects, the second a tool call; an event name of no event nagger handles.
        assert!(asked(
            r#"{}{"hook_event_name":"Pre_Tool_Use","tool_name":"Bash","tool_input":{"c"#
        ));
        assert!(asked(
            r#"{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"c"#
        ));
    }

    #[test]
    fn the_answers_before_the_guard_decides_are_the_hook_outputs_they_stand_for() {
        const NOT_DECIDED: &str = "its checks did not finish (too slow, or a fault in nagger)";
        let rendered = |event: HookEvent, subject: &str| {
            let reason = format!(
                "[nagger] nagger could not check this {subject}: {NOT_DECIDED}. Confirm only \
                 if you know what it does."
            );
            let out = match event {
                HookEvent::PreToolUse => wire::HookOutput::PreToolUse {
                    decision: Some(wire::PermissionDecision::Ask),
                    reason: Some(reason),
                    additional_context: None,
                },
                _ => wire::HookOutput::Permission {
                    event,
                    decision: wire::PermissionDecision::Ask,
                    reason,
                },
            };
            format!("{}\n", out.to_json().unwrap())
        };
        assert_eq!(
            NOT_DECIDED_TOOL_CALL,
            rendered(HookEvent::PreToolUse, "tool call")
        );
        assert_eq!(
            ask_unchecked(NOT_DECIDED).unwrap() + "\n",
            NOT_DECIDED_TOOL_CALL
        );
        assert_eq!(
            NOT_DECIDED_SHELL_LINE,
            rendered(HookEvent::PreSkillShellCommand, "shell line")
        );
    }

    #[test]
    fn only_a_whole_json_object_ends_the_wait_for_stdin() {
        for whole in [
            &b"{}"[..],
            b" \n{\"a\":[1,{\"b\":\"}\"}]}",
            b"\xef\xbb\xbf{\"a\":1}",
            b"{\"a\":1}{\"b\":",
            b"{\"a\":1} trailing",
        ] {
            assert!(
                holds_whole_object(whole),
                "{}",
                String::from_utf8_lossy(whole)
            );
        }
        for not_whole in [
            &b""[..],
            b"   ",
            b"{",
            b"{\"a\":\"}",
            b"{\"a\":[1,2}",
            b"[{}]",
            b"1",
            b"null",
            b"x{}",
        ] {
            assert!(
                !holds_whole_object(not_whole),
                "{}",
                String::from_utf8_lossy(not_whole)
            );
        }
    }

    fn busy() -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            Some("database is locked".into()),
        )
    }

    #[test]
    fn error_text_says_each_cause_once() {
        let e = anyhow::Error::new(crate::storage::store::StoreError::Query(busy()));
        assert_eq!(error_text(&e), "Error code 5: database is locked");
        let e = anyhow::Error::new(crate::storage::store::StoreError::Sqlite {
            path: "/p/state.db".into(),
            source: busy(),
        })
        .context("registering ag-1");
        assert_eq!(
            error_text(&e),
            "registering ag-1: database /p/state.db: Error code 5: database is locked"
        );
        let e = anyhow::anyhow!("no such table: x").context("reading spawns");
        assert_eq!(error_text(&e), "reading spawns: no such table: x");
    }

    #[test]
    fn a_lock_waited_out_is_recognised_through_the_chain() {
        assert!(waited_out_a_lock(
            &anyhow::Error::new(crate::storage::store::StoreError::Query(busy())).context("x")
        ));
        assert!(waited_out_a_lock(&anyhow::Error::new(busy())));
        assert!(!waited_out_a_lock(&anyhow::anyhow!("database is locked")));
    }
}
