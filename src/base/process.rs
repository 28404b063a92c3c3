//! The processes above this one, read from `/proc`: their parents, whether one is Claude
//! Code, and when it started. Nothing here blocks: `/proc` files are read bounded.

use std::io::Read;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

/// Most processes above this one looked at.
pub const MAX_ANCESTORS: usize = 64;

/// Clock ticks per second of `/proc/<pid>/stat`'s times (`USER_HZ`, 100 on every
/// architecture Linux ships for).
const TICKS_PER_SECOND: u64 = 100;

/// The fields of `/proc/<pid>/stat` after the command name, which may hold spaces and
/// brackets: `state ppid pgrp …`.
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    Some(after.split_whitespace().map(str::to_owned).collect())
}

/// The parent of process `pid`.
pub fn parent_of(pid: u32) -> Option<u32> {
    stat_fields(pid)?.get(1)?.parse().ok()
}

/// Whether process `pid` is Claude Code: named `claude` (or the native build's
/// `claude.exe`), or run from a `claude-code` package (`node …/claude-code/cli.js`,
/// `…/@anthropic-ai/claude-code-linux-x64/bin/claude.exe`).
pub fn is_claude(pid: u32) -> bool {
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    if matches!(comm.trim(), "claude" | "claude.exe") {
        return true;
    }
    let mut cmdline = Vec::new();
    if let Ok(file) = std::fs::File::open(format!("/proc/{pid}/cmdline")) {
        let _ = file.take(4096).read_to_end(&mut cmdline);
    }
    cmdline.split(|b| *b == 0).take(2).any(|w| {
        let w = String::from_utf8_lossy(w);
        matches!(w.rsplit('/').next(), Some("claude" | "claude.exe"))
            || w.contains("/claude-code/")
            || w.contains("/@anthropic-ai/claude-code")
    })
}

/// When process `pid` started: its start in ticks after boot, and the boot time.
fn started(pid: u32) -> Option<SystemTime> {
    // Field 22 of the whole line, the 20th after the name.
    let ticks: u64 = stat_fields(pid)?.get(19)?.parse().ok()?;
    let mut stat = String::new();
    std::fs::File::open("/proc/stat")
        .ok()?
        .take(1 << 16)
        .read_to_string(&mut stat)
        .ok()?;
    let boot: u64 = stat
        .lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    let millis = ticks.checked_mul(1000)? / TICKS_PER_SECOND;
    SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(boot) + Duration::from_millis(millis))
}

/// When the Claude Code process this one runs under started, if it runs under one: what
/// was written since is what the session may have written. Read once per process.
pub fn claude_started() -> Option<SystemTime> {
    static STARTED: OnceLock<Option<SystemTime>> = OnceLock::new();
    *STARTED.get_or_init(|| {
        let mut pid = parent_of(std::process::id())?;
        for _ in 0..MAX_ANCESTORS {
            if pid <= 1 {
                return None;
            }
            if is_claude(pid) {
                return started(pid);
            }
            pid = parent_of(pid)?;
        }
        None
    })
}

static TRANSCRIPT: OnceLock<std::path::PathBuf> = OnceLock::new();

/// The transcript of the session the `nagger hook` process answers for: when no Claude
/// Code process is above it (an agent harness that sends Claude Code's events), the
/// session is taken to have begun when that file was made. Only kept here; looked at
/// when a check needs the session's start.
pub fn session_transcript(path: &std::path::Path) {
    let _ = TRANSCRIPT.set(path.to_path_buf());
}

/// When the session the process runs in started, as far as it can be told: Claude Code's
/// start, or, for a hook run by another program, its transcript's making
/// ([`session_transcript`]).
pub fn session_started() -> Option<SystemTime> {
    static FROM_TRANSCRIPT: OnceLock<Option<SystemTime>> = OnceLock::new();
    claude_started().or_else(|| {
        *FROM_TRANSCRIPT.get_or_init(|| {
            let path = TRANSCRIPT.get()?;
            std::fs::symlink_metadata(path)
                .and_then(|m| m.created())
                .ok()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_started_before_now_and_after_boot() {
        let at = started(std::process::id()).expect("a start time on Linux");
        let now = SystemTime::now();
        assert!(at <= now + Duration::from_secs(1));
        assert!(now.duration_since(at).unwrap_or_default() < Duration::from_hours(24 * 365));
    }

    #[test]
    fn the_parent_of_this_process_is_read() {
        assert!(parent_of(std::process::id()).is_some_and(|p| p > 0));
        assert!(!is_claude(std::process::id()));
    }
}
