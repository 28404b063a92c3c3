//! What `nagger trust` asks before it trusts a weakening: that it does not run under an
//! agent, and an answer typed after the question was shown, that nothing could have
//! known beforehand. A code that changes on every run keeps a command that answers
//! blindly (`yes | …`, a line fed ahead on a terminal an agent opened, a script planted
//! for the user to run) from confirming for the user.

use std::ffi::OsString;

/// Variables an agent sets in every command it runs: Claude Code sets `CLAUDECODE`
/// (and refuses to start where it is set, so no terminal of the user's has it), newer
/// clients also `AI_AGENT`.
const AGENT_VARIABLES: [&str; 2] = ["CLAUDECODE", "AI_AGENT"];

/// The variable of `var` (the process's environment) that shows `nagger trust` runs
/// under an agent, if one does.
pub fn agent_variable(var: impl Fn(&str) -> Option<OsString>) -> Option<&'static str> {
    AGENT_VARIABLES
        .into_iter()
        .find(|name| var(name).is_some_and(|v| !v.is_empty()))
}

/// Most bytes of a process's environment read.
const MAX_ENVIRONMENT: u64 = 1 << 20;

/// A process above this one that is an agent or runs under one: its environment (as it
/// started) holds one of [`AGENT_VARIABLES`], or it is Claude Code itself. A command an
/// agent runs may clear its own environment and open a terminal of its own for `nagger
/// trust`; the processes it runs under still show where it comes from. `None` where
/// there is no `/proc` to read.
pub fn agent_ancestor() -> Option<(u32, String)> {
    use crate::base::process::{MAX_ANCESTORS, is_claude, parent_of};
    let mut pid = parent_of(std::process::id())?;
    for _ in 0..MAX_ANCESTORS {
        if pid <= 1 {
            return None;
        }
        if is_claude(pid) {
            return Some((pid, "Claude Code".to_owned()));
        }
        if let Some(name) = agent_variable_of(pid) {
            return Some((pid, format!("`{name}` is set")));
        }
        pid = parent_of(pid)?;
    }
    None
}

/// Most entries of `/proc` (processes, and open files of each) looked at when finding
/// who holds the terminal: enough for any desktop, bounded for a machine full of them.
const MAX_PROCESSES: usize = 16_384;
const MAX_FILES_PER_PROCESS: usize = 4_096;

/// Programs that run code given to them: a terminal held by one of these runs what it
/// was handed, unless that is a program installed outside the project and temporary
/// folders (a terminal emulator written in Python, say).
const INTERPRETERS: &[&str] = &[
    "python",
    "node",
    "nodejs",
    "perl",
    "ruby",
    "php",
    "lua",
    "luajit",
    "tclsh",
    "wish",
    "expect",
    "bash",
    "sh",
    "dash",
    "zsh",
    "ksh",
    "mksh",
    "fish",
    "deno",
    "bun",
    "pwsh",
    "julia",
    "Rscript",
    "osascript",
];

/// Why the terminal on stdin is not one a person holds, if it is not: the program that
/// holds it (the other side of the pseudo-terminal), a program above that one, or one
/// that feeds it through a pipe, is an agent, runs from inside `project` or a temporary
/// folder (where an agent's command can put a program: a helper that forks away from
/// the agent, opens a terminal of its own for `nagger trust` and types the code it
/// reads there), or is an interpreter running code from there. `None` where it cannot be
/// told (no `/proc`, a terminal whose holder is not visible, as with `ssh` or a
/// container's), or where the holder is a program installed elsewhere.
pub fn terminal_problem(project: &std::path::Path) -> Option<String> {
    let index = pts_index(&std::fs::read_link("/proc/self/fd/0").ok()?)?;
    let places = AgentPlaces::new(project);
    let table = OpenFiles::scan(index);
    for holder in &table.holders {
        if let Some(why) = places.judge_process(*holder, Role::Holder) {
            return Some(format!("the terminal is held by process {holder}: {why}"));
        }
        let mut pid = *holder;
        for _ in 0..crate::base::process::MAX_ANCESTORS {
            match crate::base::process::parent_of(pid) {
                Some(parent) if parent > 1 => pid = parent,
                _ => break,
            }
            if let Some(why) = places.judge_process(pid, Role::Above) {
                return Some(format!(
                    "the terminal is held by process {holder}, started under process {pid}: {why}"
                ));
            }
        }
        for fd in [0, 1] {
            let Some(pipe) = pipe_of(*holder, fd) else {
                continue;
            };
            for feeder in table.pipes.get(&pipe).into_iter().flatten() {
                if feeder == holder {
                    continue;
                }
                if let Some(why) = places.judge_process(*feeder, Role::Feeder) {
                    return Some(format!(
                        "the terminal is held by process {holder}, fed by process {feeder}: {why}"
                    ));
                }
            }
        }
    }
    None
}

/// `N` of `/dev/pts/N`.
fn pts_index(tty: &std::path::Path) -> Option<u32> {
    tty.to_str()?.strip_prefix("/dev/pts/")?.parse().ok()
}

/// The pipe open as `fd` of process `pid`, by its inode.
fn pipe_of(pid: u32, fd: u32) -> Option<u64> {
    let target = std::fs::read_link(format!("/proc/{pid}/fd/{fd}")).ok()?;
    target
        .to_str()?
        .strip_prefix("pipe:[")?
        .strip_suffix(']')?
        .parse()
        .ok()
}

/// What one pass over the open files of every visible process found: the processes
/// holding the master side of the terminal, and who holds each pipe.
struct OpenFiles {
    holders: Vec<u32>,
    pipes: std::collections::HashMap<u64, Vec<u32>>,
}

impl OpenFiles {
    fn scan(index: u32) -> OpenFiles {
        let mut table = OpenFiles {
            holders: Vec::new(),
            pipes: std::collections::HashMap::new(),
        };
        let Ok(procs) = std::fs::read_dir("/proc") else {
            return table;
        };
        let me = std::process::id();
        for entry in procs.flatten().take(MAX_PROCESSES) {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if pid == me {
                continue;
            }
            let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
                continue;
            };
            for fd in fds.flatten().take(MAX_FILES_PER_PROCESS) {
                let Ok(target) = std::fs::read_link(fd.path()) else {
                    continue;
                };
                let Some(target) = target.to_str() else {
                    continue;
                };
                if let Some(inode) = target
                    .strip_prefix("pipe:[")
                    .and_then(|t| t.strip_suffix(']'))
                    .and_then(|t| t.parse().ok())
                {
                    let holders = table.pipes.entry(inode).or_default();
                    if !holders.contains(&pid) {
                        holders.push(pid);
                    }
                } else if (target == "/dev/ptmx" || target == "/dev/pts/ptmx")
                    && master_index(pid, &fd.file_name()) == Some(index)
                    && !table.holders.contains(&pid)
                {
                    table.holders.push(pid);
                }
            }
        }
        table
    }
}

/// The terminal a master side open as `fd` of `pid` belongs to (`tty-index` of its
/// fdinfo).
fn master_index(pid: u32, fd: &std::ffi::OsStr) -> Option<u32> {
    use std::io::Read;
    let mut info = String::new();
    std::fs::File::open(format!("/proc/{pid}/fdinfo/{}", fd.to_str()?))
        .ok()?
        .take(4096)
        .read_to_string(&mut info)
        .ok()?;
    info.lines()
        .find_map(|l| l.strip_prefix("tty-index:"))?
        .trim()
        .parse()
        .ok()
}

/// How a process stands to the terminal `nagger trust` runs on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// It holds the terminal's other side: what it writes there is what is typed.
    Holder,
    /// It started the holder, or one above that.
    Above,
    /// It writes into the holder's input or reads its output through a pipe.
    Feeder,
}

/// The folders an agent's commands put programs in: the project, and the temporary ones.
struct AgentPlaces {
    project: Vec<std::path::PathBuf>,
    temporary: Vec<std::path::PathBuf>,
}

/// `folders` as given and as they resolve, absolute and not the root.
fn with_resolved(mut folders: Vec<std::path::PathBuf>) -> Vec<std::path::PathBuf> {
    let resolved: Vec<std::path::PathBuf> = folders
        .iter()
        .filter_map(|f| std::fs::canonicalize(f).ok())
        .collect();
    folders.extend(resolved);
    folders.retain(|f| f.is_absolute() && f.parent().is_some());
    folders
}

impl AgentPlaces {
    fn new(project: &std::path::Path) -> AgentPlaces {
        let mut temporary: Vec<std::path::PathBuf> = ["/tmp", "/var/tmp", "/dev/shm"]
            .iter()
            .map(std::path::PathBuf::from)
            .collect();
        temporary.extend(std::env::var_os("TMPDIR").map(std::path::PathBuf::from));
        AgentPlaces {
            project: with_resolved(vec![project.to_path_buf()]),
            temporary: with_resolved(temporary),
        }
    }

    /// Whether `path` lies where an agent's command puts programs. The temporary folders
    /// count for the holder alone: a program that drives a terminal for a person's
    /// tools (a test suite built in a checkout under `/tmp`) runs from there too.
    fn holds(&self, path: &std::path::Path, role: Role) -> bool {
        self.project.iter().any(|f| path.starts_with(f))
            || (role == Role::Holder && self.temporary.iter().any(|f| path.starts_with(f)))
    }

    /// Why process `pid` is no part of a person's terminal, if it is not. Whether it is
    /// an interpreter running code it was handed is asked of the holder and what feeds
    /// it, not of what is above them: a shell above them is the person's own.
    fn judge_process(&self, pid: u32, role: Role) -> Option<String> {
        use crate::base::process::is_claude;
        if is_claude(pid) {
            return Some("it is Claude Code".into());
        }
        if let Some(name) = agent_variable_of(pid) {
            return Some(format!("`{name}` is set in its environment"));
        }
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
        let text = exe.to_string_lossy();
        // A program replaced on disk since it started (an upgrade) is judged by where it was.
        let path = std::path::PathBuf::from(text.strip_suffix(" (deleted)").unwrap_or(&text));
        if self.holds(&path, role) {
            return Some(format!(
                "it runs {}, a program in the project or a temporary folder",
                path.display()
            ));
        }
        let name = path.file_name()?.to_string_lossy().into_owned();
        if role == Role::Above || !is_interpreter(&name) {
            return None;
        }
        let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok();
        let args = cmdline(pid);
        match args
            .iter()
            .skip(1)
            .find(|a| !a.starts_with('-') || is_inline(a))
        {
            Some(a) if is_inline(a) => Some(format!("it is {name} running code given inline")),
            Some(script) => {
                let script = std::path::Path::new(script);
                let script = match &cwd {
                    Some(cwd) if script.is_relative() => cwd.join(script),
                    _ => script.to_path_buf(),
                };
                self.holds(&script, role).then(|| {
                    format!(
                        "it is {name} running {}, in the project or a temporary folder",
                        script.display()
                    )
                })
            }
            None => Some(format!("it is {name} running code it reads from its input")),
        }
    }
}

/// An option that hands an interpreter its code on the command line.
fn is_inline(arg: &str) -> bool {
    matches!(
        arg,
        "-c" | "-e" | "-E" | "--eval" | "-p" | "--print" | "-r" | "-"
    ) || (arg.starts_with("-c") && arg.len() > 2 && !arg.starts_with("--"))
}

/// Whether a program of this file name runs code it is given.
fn is_interpreter(name: &str) -> bool {
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    INTERPRETERS.contains(&base) || INTERPRETERS.contains(&name)
}

/// The arguments process `pid` was started with (bounded).
fn cmdline(pid: u32) -> Vec<String> {
    use std::io::Read;
    let mut raw = Vec::new();
    if let Ok(file) = std::fs::File::open(format!("/proc/{pid}/cmdline")) {
        let _ = file.take(64 * 1024).read_to_end(&mut raw);
    }
    raw.split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
}

/// Which of [`AGENT_VARIABLES`] process `pid` started with, if any.
fn agent_variable_of(pid: u32) -> Option<&'static str> {
    use std::io::Read;
    let mut environ = Vec::new();
    if let Ok(file) = std::fs::File::open(format!("/proc/{pid}/environ")) {
        let _ = file.take(MAX_ENVIRONMENT).read_to_end(&mut environ);
    }
    for entry in environ.split(|b| *b == 0) {
        for name in AGENT_VARIABLES {
            if entry
                .strip_prefix(name.as_bytes())
                .and_then(|r| r.strip_prefix(b"="))
                .is_some_and(|v| !v.is_empty())
            {
                return Some(name);
            }
        }
    }
    None
}

/// How many digits the code has.
const CODE_DIGITS: u32 = 6;

/// A fresh code of [`CODE_DIGITS`] digits for the user to type, unpredictable to
/// anything that runs before it is shown.
pub fn code() -> String {
    let n = random_u64() % 10u64.pow(CODE_DIGITS);
    format!("{n:0width$}", width = CODE_DIGITS as usize)
}

/// Whether `answer`, a line typed by the user, is `code`.
pub fn confirms(answer: &str, code: &str) -> bool {
    answer.trim() == code
}

fn random_u64() -> u64 {
    use std::io::Read;
    let mut bytes = [0u8; 8];
    if std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .is_ok()
    {
        return u64::from_le_bytes(bytes);
    }
    // Where there is no /dev/urandom: the standard library's per-process random keys.
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agents_variable_is_named_and_an_empty_one_is_none() {
        let env = |set: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                set.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| OsString::from(*v))
            }
        };
        assert_eq!(
            agent_variable(env(&[("CLAUDECODE", "1")])),
            Some("CLAUDECODE")
        );
        assert_eq!(
            agent_variable(env(&[("AI_AGENT", "claude-code_2-1-332_harness")])),
            Some("AI_AGENT")
        );
        assert_eq!(agent_variable(env(&[("CLAUDECODE", "")])), None);
        assert_eq!(agent_variable(env(&[("TERM", "xterm")])), None);
    }

    #[test]
    fn interpreters_and_their_inline_code_are_told_apart() {
        for name in [
            "python3",
            "python3.12",
            "node",
            "perl5.36",
            "bash",
            "expect",
        ] {
            assert!(is_interpreter(name), "{name}");
        }
        for name in [
            "script",
            "tmux",
            "sshd",
            "gnome-terminal-server",
            "kitty",
            "runner-1f2e",
        ] {
            assert!(!is_interpreter(name), "{name}");
        }
        for arg in ["-c", "-e", "-", "-cimport os", "--eval"] {
            assert!(is_inline(arg), "{arg}");
        }
        for arg in ["-u", "--check", "-i", "script.py"] {
            assert!(!is_inline(arg), "{arg}");
        }
        assert_eq!(pts_index(std::path::Path::new("/dev/pts/17")), Some(17));
        assert_eq!(pts_index(std::path::Path::new("/dev/tty1")), None);
    }

    #[test]
    fn only_the_code_confirms() {
        let code = code();
        assert_eq!(code.len(), CODE_DIGITS as usize);
        assert!(code.bytes().all(|b| b.is_ascii_digit()), "{code}");
        assert!(confirms(&format!(" {code}\n"), &code));
        for answer in ["y", "yes", "Y", "", "\n", &code[1..]] {
            assert!(!confirms(answer, &code), "{answer:?}");
        }
        // Two runs ask for different codes (equal by chance once in a million).
        let codes: std::collections::BTreeSet<String> = (0..4).map(|_| super::code()).collect();
        assert!(codes.len() > 1, "{codes:?}");
    }
}
