//! One check that fired on one simple command or tool call, before it is told as an
//! objection; and the operands of a command, which most checks look at.

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
