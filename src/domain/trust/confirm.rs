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
    use std::io::Read;
    let mut pid = parent_of(std::process::id())?;
    for _ in 0..MAX_ANCESTORS {
        if pid <= 1 {
            return None;
        }
        if is_claude(pid) {
            return Some((pid, "Claude Code".to_owned()));
        }
        let mut environ = Vec::new();
        if let Ok(file) = std::fs::File::open(format!("/proc/{pid}/environ")) {
            let _ = file.take(MAX_ENVIRONMENT).read_to_end(&mut environ);
        }
        for entry in environ.split(|b| *b == 0) {
            for name in AGENT_VARIABLES {
                if let Some(value) = entry
                    .strip_prefix(name.as_bytes())
                    .and_then(|r| r.strip_prefix(b"="))
                    && !value.is_empty()
                {
                    return Some((pid, format!("`{name}` is set")));
                }
            }
        }
        pid = parent_of(pid)?;
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
