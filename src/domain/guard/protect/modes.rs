//! A mode change of a folder above nagger's files: `chmod 000 .`, `chmod u-x ~`,
//! `chmod 600 ..`. Without the owner's right to enter it, nothing below is reached by
//! its user: Claude Code no longer reads its settings, nagger no longer reads its config,
//! its database or the kept copy of the trusted settings, and the nagger program itself
//! may be out of reach. The folders themselves (`.claude`, `.claude-nagger`) are judged as
//! protected paths; this is about the folders that hold them.

use super::super::shell::SimpleCommand;

/// A program that changes only the modes, owners or attributes of its operands.
pub(super) fn changes_modes(name: &str) -> bool {
    matches!(name, "chmod" | "chown" | "chgrp" | "setfacl" | "chattr")
}

/// A `chmod` whose mode takes from the owner the right to enter a folder: the mode and
/// the paths it is given (`--reference` modes are not known here).
pub(super) fn takes_entry_of(command: &SimpleCommand) -> Option<(&str, Vec<&str>)> {
    if command.name() != "chmod" {
        return None;
    }
    let args = command.args();
    if args.iter().any(|a| a.starts_with("--reference")) {
        return None;
    }
    let mut words = Vec::new();
    let mut options_done = false;
    for arg in args {
        if !options_done && arg == "--" {
            options_done = true;
        } else if !options_done
            && arg.starts_with('-')
            && arg.len() > 1
            && !(words.is_empty() && is_mode(arg))
        {
            // an option (`-R`, `-v`, `--silent`); `-x` in the mode's place is the mode
        } else {
            words.push(arg.as_str());
        }
    }
    let (mode, paths) = words.split_first()?;
    takes_entry(mode).then(|| (*mode, paths.to_vec()))
}

/// A mode word of `chmod` written with a leading `-` (`-x`, `-rwx`).
fn is_mode(arg: &str) -> bool {
    arg.strip_prefix('-')
        .is_some_and(|m| !m.is_empty() && m.bytes().all(|b| b"rwxXst".contains(&b)))
}

/// Whether `mode` leaves the owner without the right to enter a folder: octal without the
/// owner's `x`; symbolic taking `x` from `u` or everyone, or setting it without `x`.
fn takes_entry(mode: &str) -> bool {
    if !mode.is_empty() && mode.bytes().all(|b| b.is_ascii_digit()) {
        let digits = mode.as_bytes();
        // `0`, `00`: every digit missing counts as 0.
        let owner = if digits.len() >= 3 {
            digits[digits.len() - 3] - b'0'
        } else {
            0
        };
        return owner & 1 == 0;
    }
    mode.split(',').any(|clause| {
        let Some(at) = clause.find(['+', '-', '=']) else {
            return false;
        };
        let (who, rest) = clause.split_at(at);
        let owner = who.is_empty() || who.contains(['u', 'a']);
        let (op, perms) = rest.split_at(1);
        owner
            && match op {
                "-" => perms.contains('x'),
                "=" => !perms.contains(['x', 'X']),
                _ => false,
            }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_that_take_the_owners_entry() {
        for mode in [
            "000", "0", "600", "0644", "u-x", "a-rwx", "-x", "=r", "u=rw", "go+r,u-x",
        ] {
            assert!(takes_entry(mode), "{mode}");
        }
        for mode in [
            "755", "700", "0711", "go-rwx", "u+x", "a=rwx", "o-x", "+t", "g=", "u=rwX",
        ] {
            assert!(!takes_entry(mode), "{mode}");
        }
    }
}
