//! The Claude Code on PATH against nagger's entries: events it does not know (2.1.68
//! ignores every hook of a settings file naming one), events it sends that no entry
//! receives, and what an older client offers no hook for (a skill's shell lines).

use super::check::{Check, Checks, Status};
use crate::base::event::{ClientVersion, HookEvent};
use crate::edge::install;
use std::collections::BTreeSet;

/// The client check, given the events nagger has entries for.
pub fn check_client(
    path_var: Option<&std::ffi::OsStr>,
    registered: &BTreeSet<String>,
) -> Vec<Check> {
    let mut checks = Checks::default();
    match install::detect_client(path_var) {
        None => checks.push(
            "client",
            Status::Ok,
            "no `claude` on PATH: doctor cannot tell which hook events your Claude Code sends",
        ),
        Some((claude, None)) => checks.push(
            "client",
            Status::Warn,
            format!("`{} --version` named no version", claude.display()),
        ),
        Some((_, Some(version))) => client_checks(version, registered, &mut checks),
    }
    checks.0
}

fn client_checks(version: ClientVersion, registered: &BTreeSet<String>, checks: &mut Checks) {
    let unknown: Vec<&str> = HookEvent::ALL
        .into_iter()
        .filter(|e| !e.known_by(Some(version)) && registered.contains(e.as_str()))
        .map(HookEvent::as_str)
        .collect();
    if !unknown.is_empty() {
        // 2.1.68 was seen to ignore the whole file; 2.1.328 ignores the unknown entry.
        let whole_file = !HookEvent::UserPromptExpansion.known_by(Some(version));
        checks.push(
            "client",
            if whole_file {
                Status::Fail
            } else {
                Status::Warn
            },
            format!(
                "nagger's settings name {}, which Claude Code {version} does not know{} \
                 (run `nagger install` with this `claude` on PATH)",
                unknown.join(", "),
                if whole_file {
                    ": it ignores every hook of that settings file, nagger's included"
                } else {
                    ""
                }
            ),
        );
    }
    let unheard: Vec<&str> = HookEvent::ALL
        .into_iter()
        .filter(|e| e.known_by(Some(version)) && !registered.contains(e.as_str()))
        .map(HookEvent::as_str)
        .collect();
    if !unheard.is_empty() && !registered.is_empty() {
        checks.push(
            "client",
            Status::Warn,
            format!(
                "Claude Code {version} sends {}, which no nagger entry receives (run `nagger install`)",
                unheard.join(", ")
            ),
        );
    }
    let skills = if HookEvent::PreSkillShellCommand.known_by(Some(version)) {
        (
            Status::Ok,
            format!(
                "Claude Code {version} sends PreSkillShellCommand: every shell line of a skill \
                 or command is judged by the guard before it runs"
            ),
        )
    } else if HookEvent::UserPromptExpansion.known_by(Some(version)) {
        (
            Status::Warn,
            format!(
                "Claude Code {version} sends no event before a skill's shell lines run; nagger \
                 reads the skill's file at PreToolUse Skill (the model's calls) and at \
                 UserPromptSubmit and UserPromptExpansion (typed commands) instead, and refuses \
                 the skill when a line would be refused (2.1.332 and later check each line)"
            ),
        )
    } else {
        (
            Status::Warn,
            format!(
                "Claude Code {version} sends no event before a skill's shell lines run; nagger \
                 reads the skill's file at PreToolUse Skill instead, so the model's skill calls \
                 are refused before they load. A command the user types runs its lines before \
                 any hook sees the prompt: nagger stops the prompt at UserPromptSubmit and says \
                 the lines may have run, but cannot stop them (2.1.328 and later can)"
            ),
        )
    };
    checks.push("client", skills.0, skills.1);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(version: ClientVersion, events: &[&str]) -> Vec<(Status, String)> {
        let registered = events.iter().map(ToString::to_string).collect();
        let mut checks = Checks::default();
        client_checks(version, &registered, &mut checks);
        checks
            .0
            .into_iter()
            .map(|c| (c.status, c.message))
            .collect()
    }

    #[test]
    fn an_old_client_with_newer_events_registered_fails() {
        let found = messages(
            ClientVersion(2, 1, 68),
            &["PreToolUse", "PreSkillShellCommand"],
        );
        assert_eq!(found[0].0, Status::Fail);
        assert!(found[0].1.contains("ignores every hook"), "{}", found[0].1);
        assert!(found.last().unwrap().1.contains("cannot stop them"));
    }

    #[test]
    fn a_new_client_without_its_events_is_told_to_install_again() {
        let found = messages(ClientVersion(2, 1, 332), &["PreToolUse"]);
        assert_eq!(found[0].0, Status::Warn);
        assert!(
            found[0].1.contains("PreSkillShellCommand"),
            "{}",
            found[0].1
        );
        let all = messages(ClientVersion(2, 1, 332), install::ALL_HOOK_EVENTS);
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].0, Status::Ok);
        let mid = messages(ClientVersion(2, 1, 328), install::ALL_HOOK_EVENTS);
        assert_eq!(mid[0].0, Status::Warn, "{mid:?}");
    }
}
