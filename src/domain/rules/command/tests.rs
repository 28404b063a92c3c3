use std::path::Path;

use serde_json::json;

use super::*;
use crate::domain::rules::testing;
use crate::domain::rules::{MatchContext, Severity};

fn rule(name: &str, patterns: &[&str], exclude: &[&str]) -> CommandRule {
    CommandRule {
        name: name.into(),
        patterns: patterns
            .iter()
            .map(std::string::ToString::to_string)
            .collect(),
        exclude: exclude
            .iter()
            .map(std::string::ToString::to_string)
            .collect(),
        severity: Severity::Ask,
        message: "m".into(),
        ..Default::default()
    }
}

fn fire(rules: &[CommandRule], tool: &str, command: &str) -> Vec<String> {
    let config = RulesConfig {
        command: rules.to_vec(),
        ..Default::default()
    };
    let ctx = MatchContext {
        project_root: Path::new("/p"),
        cwd: None,
        is_leader: true,
        role: None,
        agent_type: None,
    };
    testing::fire(&config, tool, &json!({ "command": command }), &ctx)
}

#[test]
fn every_simple_command_is_matched() {
    let push = [rule("push", &["git push*"], &[])];
    for command in [
        "git push origin main",
        "cargo test && git push",
        "git fetch; git push -u origin x",
        "echo start | tee log; (cd sub && git push)",
        "bash -c 'git push'",
        "FOO=1 timeout 30 git push",
        "  git   push  ",
    ] {
        assert_eq!(fire(&push, "Bash", command).len(), 1, "{command}");
    }
    for command in [
        "git status",
        "echo 'git push'",
        "grep -r 'git push' docs",
        "# git push",
    ] {
        assert!(fire(&push, "Bash", command).is_empty(), "{command}");
    }
    assert!(
        fire(&push, "Shell", "git push").is_empty(),
        "only Bash calls carry commands"
    );
}

#[test]
fn why_names_the_simple_command_and_where_it_came_from() {
    let push = [rule("push", &["git push*"], &[])];
    assert_eq!(
        fire(&push, "Bash", "sh -c 'git push -f'"),
        ["simple command `git push -f` (from `sh -c`) matches git push*"]
    );
}

#[test]
fn flags_match_in_any_spelling_and_program_paths_are_dropped() {
    let rm = [rule("rm", &["rm -r -f *"], &[])];
    assert_eq!(fire(&rm, "Bash", "rm -rf build").len(), 1);
    assert_eq!(fire(&rm, "Bash", "/bin/rm -rf build").len(), 1);
    let sudo = [rule("sudo", &["sudo *"], &[])];
    assert_eq!(
        fire(&sudo, "Bash", "sudo -u x ls").len(),
        1,
        "wrappers stay matchable"
    );
}

#[test]
fn exclude_wins_per_simple_command() {
    let push = [rule("push", &["git push*"], &["git push --dry-run*"])];
    assert!(fire(&push, "Bash", "git push --dry-run origin").is_empty());
    assert_eq!(fire(&push, "Bash", "git push --dry-run; git push").len(), 1);
}
