//! One check that fired on one simple command or tool call, before it is told as an
//! objection; and the operands of a command, which most checks look at.

use super::shell::short_cluster;
use super::verdict::Severity;

/// One check that fired on one simple command.
pub(super) struct Finding {
    pub(super) check: &'static str,
    /// What the command does, e.g. "deletes the filesystem root".
    pub(super) harm: String,
    pub(super) advice: &'static str,
    pub(super) severity: Severity,
    /// About a secret kept outside the project (the home's, the system's): raised from a
    /// file the agent may have written too, where a project's own secrets are its
    /// scripts' to use.
    pub(super) outside: bool,
}

impl Finding {
    pub(super) fn deny(check: &'static str, harm: String, advice: &'static str) -> Finding {
        Finding {
            check,
            harm,
            advice,
            severity: Severity::Deny,
            outside: false,
        }
    }

    pub(super) fn ask(check: &'static str, harm: String, advice: &'static str) -> Finding {
        Finding {
            check,
            harm,
            advice,
            severity: Severity::Ask,
            outside: false,
        }
    }
}

/// The words of `args` that are operands: not options, everything after `--`.
pub(super) fn operands(args: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut options_done = false;
    for arg in args {
        if !options_done && arg == "--" {
            options_done = true;
        } else if options_done || !arg.starts_with('-') || arg == "-" {
            out.push(arg.as_str());
        }
    }
    out
}

/// The operands of `args`, the values of the options in `valued` (short `-x`, long
/// `--xx`) left out.
pub(super) fn operands_with<'a>(args: &'a [String], short: &[&str], long: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut skip = false;
    let mut done = false;
    for arg in args {
        if skip {
            skip = false;
            continue;
        }
        if done || !arg.starts_with('-') || arg == "-" {
            out.push(arg.as_str());
            continue;
        }
        if arg == "--" {
            done = true;
            continue;
        }
        if let Some(name) = arg.strip_prefix("--") {
            skip = !name.contains('=') && long.contains(&name);
            continue;
        }
        // A cluster ending in a letter that takes a value takes the next word.
        if let Some(cluster) = short_cluster(arg) {
            for (k, c) in cluster.char_indices() {
                if short
                    .iter()
                    .any(|s| s.strip_prefix('-') == Some(&c.to_string()))
                {
                    skip = k + c.len_utf8() == cluster.len();
                    break;
                }
            }
        }
    }
    out
}
