//! Skills and slash commands: their `` !`…` `` shell lines judged like Bash calls, through
//! PreSkillShellCommand (Claude Code 2.1.332+) and through the skill's file at the Skill
//! tool's PreToolUse and at a typed `/name` prompt (every version).

use crate::common::*;
use serde_json::{Value, json};

/// No conventions: each answer is the skill check's alone.
const QUIET: &str = "[session]\nenabled = false\n";

fn event(p: &Project, name: &str) -> Value {
    json!({
        "session_id": p.session,
        "transcript_path": p.transcript_str(),
        "cwd": p.root.display().to_string(),
        "hook_event_name": name,
        "permission_mode": "default",
    })
}

fn shell_line(p: &Project, command: &str) -> Value {
    let mut v = event(p, "PreSkillShellCommand");
    v["tool_name"] = json!("Bash");
    v["tool_input"] = json!({ "command": command });
    v["tool_use_id"] = json!("toolu_1:preamble-0");
    v["command_name"] = json!("sweep");
    v["command_source"] = json!("projectSettings");
    v["invoked_by"] = json!("claude");
    v
}

fn prompt(p: &Project, text: &str) -> Value {
    let mut v = event(p, "UserPromptSubmit");
    v["prompt"] = json!(text);
    v
}

fn expansion(p: &Project, kind: &str, name: &str, args: &str) -> Value {
    let mut v = event(p, "UserPromptExpansion");
    v["expansion_type"] = json!(kind);
    v["command_name"] = json!(name);
    v["command_args"] = json!(args);
    v["prompt"] = json!(format!("/{name} {args}"));
    v
}

fn write(p: &Project, rel: &str, text: &str) {
    let path = p.root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A project skill `sweep` with a harmless line and one the guard refuses.
fn sweep(p: &Project) {
    write(
        p,
        ".claude/skills/sweep/SKILL.md",
        "---\nname: sweep\ndescription: Cleans up.\n---\nStatus: !`git status --short`\nClean: !`git -C /tmp/elsewhere clean -fdx`\n",
    );
}

/// `nagger hook` as a client that names its version in AI_AGENT (`None`: 2.1.68, which
/// names none).
fn hook_as(p: &Project, client: Option<&str>, input: &Value) -> HookResult {
    let mut cmd = p.command(&["hook"]);
    if let Some(agent) = client {
        cmd.env("AI_AGENT", agent);
    }
    run_with_stdin(cmd, input)
}

const V332: Option<&str> = Some("claude-code_2-1-332_harness");
const V328: Option<&str> = Some("claude-code_2-1-328_harness");

#[test]
fn a_shell_line_is_judged_like_a_bash_call() {
    let p = Project::with_config(QUIET);
    let out = p.hook(&shell_line(&p, "git -C /tmp/elsewhere clean -fdx"));
    out.assert_deny("git clean as a skill line");
    let v = out.json().unwrap();
    assert_eq!(
        v["hookSpecificOutput"]["hookEventName"],
        "PreSkillShellCommand"
    );
    assert!(
        out.reason()
            .contains("/sweep runs `git -C /tmp/elsewhere clean -fdx`"),
        "{}",
        out.reason()
    );
    // The same command as a Bash call gets the same answer.
    let bash = p.hook(&p.pre_tool_use(
        "Bash",
        json!({"command": "git -C /tmp/elsewhere clean -fdx"}),
    ));
    bash.assert_deny("git clean as a Bash call");

    let harmless = p.hook(&shell_line(&p, "git status --short"));
    assert_eq!(
        (harmless.code, harmless.stdout.as_str()),
        (0, ""),
        "{}",
        harmless.stderr
    );
    let unknown = p.hook(&shell_line(&p, "$tool -rf /"));
    assert_eq!(
        unknown.decision().as_deref(),
        Some("ask"),
        "{}",
        unknown.stdout
    );

    let log = p.hook_log();
    let lines: Vec<&(String, String, Value)> = log
        .iter()
        .filter(|(e, _, _)| e == "PreSkillShellCommand")
        .collect();
    let results: Vec<&str> = lines.iter().map(|(_, r, _)| r.as_str()).collect();
    assert_eq!(results, ["deny", "none", "ask"]);
    assert_eq!(lines[0].2["command_name"], "sweep");
    assert_eq!(lines[0].2["invoked_by"], "claude");
}

#[test]
fn a_shell_line_is_refused_without_the_database() {
    let p = Project::with_config(QUIET);
    let mut cmd = p.command(&["hook"]);
    cmd.env("NAGGER_DB", "/no/such/folder/state.db");
    let out = run_with_stdin(cmd, &shell_line(&p, "rm -rf ~"));
    out.assert_deny("rm -rf ~ without a database");
    assert!(out.stderr.contains("guard applied"), "{}", out.stderr);
}

#[test]
fn the_skill_tool_is_refused_for_a_line_the_guard_refuses() {
    let p = Project::with_config(QUIET);
    sweep(&p);
    let out = p.hook(&p.pre_tool_use("Skill", json!({"skill": "sweep"})));
    out.assert_deny("Skill sweep");
    let reason = out.reason();
    assert!(
        reason.contains("`git -C /tmp/elsewhere clean -fdx`"),
        "{reason}"
    );
    assert!(reason.contains(".claude/skills/sweep/SKILL.md"), "{reason}");
    assert!(
        !reason.contains("git status"),
        "harmless lines are not named: {reason}"
    );
    // On a client that checks each line itself, a refusal still comes first.
    hook_as(
        &p,
        V332,
        &p.pre_tool_use("Skill", json!({"skill": "sweep"})),
    )
    .assert_deny("Skill sweep on 2.1.332");
    let log = p.hook_log();
    let details = &log.iter().find(|(e, _, _)| e == "PreToolUse").unwrap().2["skill"];
    assert_eq!(details["lines"], 2);
    assert_eq!(details["refused"], 1);

    write(&p, ".claude/skills/fine/SKILL.md", "Log: !`git log -1`\n");
    let fine = p.hook(&p.pre_tool_use("Skill", json!({"skill": "fine"})));
    assert_eq!(fine.decision(), None, "{}", fine.stdout);
    let missing = p.hook(&p.pre_tool_use("Skill", json!({"skill": "no-such-skill"})));
    assert_eq!(missing.decision(), None, "{}", missing.stdout);
}

#[test]
fn the_skill_tool_fills_in_its_arguments() {
    let p = Project::with_config(QUIET);
    write(
        &p,
        ".claude/commands/ops/wipe.md",
        "Wiping: !`rm -rf $ARGUMENTS`\n",
    );
    let call = |args: Value| p.pre_tool_use("Skill", json!({"skill": "ops:wipe", "args": args}));
    assert_eq!(p.hook(&call(json!("build"))).decision(), None);
    p.hook(&call(json!("~")))
        .assert_deny("rm -rf ~ through the arguments");
    // Arguments nagger cannot read: it cannot vouch for what runs.
    let unknown = p.hook(&call(json!(["~"])));
    assert_eq!(
        unknown.decision().as_deref(),
        Some("ask"),
        "{}",
        unknown.stdout
    );
    assert!(
        unknown.reason().contains("arguments"),
        "{}",
        unknown.reason()
    );
    // A client that sends PreSkillShellCommand asks about the line itself, filled in.
    let left = hook_as(&p, V332, &call(json!(["~"])));
    assert_eq!(left.decision(), None, "{}", left.stdout);
    let log = p.hook_log();
    let last = &log
        .iter()
        .rev()
        .find(|(e, _, _)| e == "PreToolUse")
        .unwrap()
        .2["skill"];
    assert_eq!(last["left_to_PreSkillShellCommand"], 1);
}

#[test]
fn a_typed_command_is_refused_before_it_expands() {
    let p = Project::with_config(QUIET);
    sweep(&p);
    let out = hook_as(&p, V328, &prompt(&p, "/sweep now"));
    assert!(out.is_block(), "{} {}", out.stdout, out.stderr);
    let reason = out.json().unwrap()["reason"].as_str().unwrap().to_string();
    assert!(
        reason.contains("`git -C /tmp/elsewhere clean -fdx`"),
        "{reason}"
    );
    assert!(!reason.contains("may have run"), "{reason}");
    // 2.1.68 runs the lines before the prompt reaches any hook: the reason says so.
    let old = hook_as(&p, None, &prompt(&p, "/sweep"));
    assert!(old.is_block());
    assert!(
        old.stdout.contains("may have run already"),
        "{}",
        old.stdout
    );
    let exp = hook_as(&p, V328, &expansion(&p, "slash_command", "sweep", ""));
    assert!(exp.is_block(), "{}", exp.stdout);

    for quiet in [
        prompt(&p, "please sweep the floor"),
        prompt(&p, "/compact"),
        prompt(&p, "/usr/bin/env ls"),
        expansion(&p, "mcp_prompt", "sweep", ""),
    ] {
        let out = hook_as(&p, V328, &quiet);
        assert_eq!(
            (out.code, out.stdout.as_str()),
            (0, ""),
            "{quiet}: {}",
            out.stderr
        );
    }
    let results: Vec<String> = p
        .hook_log()
        .into_iter()
        .filter(|(e, _, _)| e.starts_with("UserPrompt"))
        .map(|(e, r, _)| format!("{e}:{r}"))
        .collect();
    assert_eq!(
        results,
        [
            "UserPromptSubmit:block",
            "UserPromptSubmit:block",
            "UserPromptExpansion:block",
            "UserPromptSubmit:none",
            "UserPromptSubmit:none",
            "UserPromptSubmit:none",
            "UserPromptExpansion:none"
        ]
    );
}

#[test]
fn a_typed_command_nagger_cannot_vouch_for_is_refused_unless_the_client_checks_lines() {
    let p = Project::with_config(QUIET);
    write(&p, ".claude/commands/run.md", "!`$tool -rf /`\n");
    let old = hook_as(&p, V328, &prompt(&p, "/run"));
    assert!(old.is_block(), "{}", old.stdout);
    assert!(old.stdout.contains("asks nothing"), "{}", old.stdout);
    let new = hook_as(&p, V332, &prompt(&p, "/run"));
    assert_eq!(new.stdout, "", "left to PreSkillShellCommand");
}

#[test]
fn user_and_plugin_skills_are_found() {
    let p = Project::with_config(QUIET);
    // HOME is the project root in these tests; a separate Claude Code folder instead.
    let user = p.root.join("user-claude");
    std::fs::create_dir_all(user.join("skills/mine")).unwrap();
    std::fs::write(user.join("skills/mine/SKILL.md"), "!`git reset --hard`\n").unwrap();
    let install = user.join("plugins/cache/market/kit/1.0.0");
    std::fs::create_dir_all(install.join("commands")).unwrap();
    std::fs::write(
        install.join("commands/nuke.md"),
        "!`git push --force origin main`\n",
    )
    .unwrap();
    std::fs::write(
        user.join("plugins/installed_plugins.json"),
        json!({"version": 2, "plugins": {"kit@market": [{"scope": "user", "installPath": install}]}})
            .to_string(),
    )
    .unwrap();
    for (skill, what) in [("mine", "reset --hard"), ("kit:nuke", "push --force")] {
        let mut cmd = p.command(&["hook"]);
        cmd.env("CLAUDE_CONFIG_DIR", &user);
        let out = run_with_stdin(cmd, &p.pre_tool_use("Skill", json!({"skill": skill})));
        out.assert_deny(skill);
        assert!(out.reason().contains(what), "{skill}: {}", out.reason());
    }
}

#[test]
fn a_fifo_in_place_of_a_skill_never_blocks() {
    let p = Project::with_config(QUIET);
    let dir = p.root.join(".claude/skills/pipe");
    std::fs::create_dir_all(&dir).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(dir.join("SKILL.md"))
        .status()
        .unwrap();
    assert!(status.success());
    let out = p.hook(&p.pre_tool_use("Skill", json!({"skill": "pipe"})));
    assert_eq!((out.code, out.decision()), (0, None), "{}", out.stderr);
}
