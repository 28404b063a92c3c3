//! Rules and the guard through the real hook path, and `nagger check`.

use crate::common::*;
use serde_json::json;

const RULES: &str = r#"
[session]
token_threshold = 50000
[[rules.file]]
name = "views"
patterns = ["**/app/views/**/*.erb"]
exclude = ["**/vendor/**"]
severity = "block"
token_threshold = 35000
message = "Views follow docs/views.md."
[[rules.file]]
name = "lead-only"
patterns = ["docs/**"]
severity = "warn"
scope = ["leader"]
message = "Docs are the leader's."
[[rules.command]]
name = "push"
patterns = ["git push*"]
severity = "ask"
message = "Pushing needs a green CI."
[[rules.tool]]
name = "ticket writes"
tool = "mcp__redmine__.*"
input = { status = "^closed$", project = "^web$" }
severity = "deny"
message = "Close tickets only after review."
[guard]
allow = ["rm -rf ./target"]
deny = ["terraform destroy*"]
"#;

fn edit(p: &Project, path: &str) -> HookResult {
    p.hook(&p.pre_tool_use(
        "Edit",
        json!({"file_path": path, "old_string": "a", "new_string": "b"}),
    ))
}

fn bash(p: &Project, command: &str) -> HookResult {
    p.hook(&p.pre_tool_use("Bash", json!({"command": command})))
}

#[test]
fn block_file_rule_fires_once_per_session_and_again_after_token_growth() {
    let p = Project::with_config(RULES);
    p.append(&[usage_line("m1", 10_000)]);
    let abs = p.root.join("app/views/users/show.html.erb");
    let first = edit(&p, &abs.display().to_string());
    assert_eq!(
        first.decision().as_deref(),
        Some("deny"),
        "{}",
        first.stdout
    );
    assert!(
        first
            .reason()
            .contains("[nagger] Views follow docs/views.md."),
        "{}",
        first.reason()
    );
    assert_eq!(
        edit(&p, "app/views/users/edit.html.erb").stdout.trim(),
        "",
        "once per session"
    );
    p.append(&[usage_line("m2", 44_999)]);
    assert_eq!(
        edit(&p, "app/views/a.html.erb").stdout.trim(),
        "",
        "grew 34,999 < 35,000"
    );
    p.append(&[usage_line("m3", 45_000)]);
    assert_eq!(
        edit(&p, "app/views/a.html.erb").decision().as_deref(),
        Some("deny"),
        "re-armed by growth"
    );
    // an excluded path never fires
    p.append(&[usage_line("m4", 200_000)]);
    assert_eq!(
        edit(&p, "vendor/gems/x/app/views/a.html.erb").stdout.trim(),
        ""
    );
    // the rule fired twice and both are recorded
    let hits: i64 = p
        .db()
        .query_row(
            "SELECT count(*) FROM rule_hits WHERE rule_name = 'views'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(hits, 2);
}

#[test]
fn a_compaction_rearms_block_rules() {
    let p = Project::with_config(RULES);
    assert_eq!(
        edit(&p, "app/views/a.erb").decision().as_deref(),
        Some("deny")
    );
    assert_eq!(edit(&p, "app/views/a.erb").stdout.trim(), "");
    p.hook(&p.session_start("compact"));
    assert_eq!(
        edit(&p, "app/views/a.erb").decision().as_deref(),
        Some("deny")
    );
}

#[test]
fn tool_rule_fires_only_when_every_input_regex_matches() {
    let p = Project::with_config(RULES);
    let call =
        |input: serde_json::Value| p.hook(&p.pre_tool_use("mcp__redmine__update_issue", input));
    assert_eq!(
        call(json!({"status": "closed", "project": "web"}))
            .decision()
            .as_deref(),
        Some("deny")
    );
    assert_eq!(
        call(json!({"status": "closed", "project": "web"}))
            .decision()
            .as_deref(),
        Some("deny"),
        "deny every time"
    );
    assert_eq!(
        call(json!({"status": "closed", "project": "api"}))
            .stdout
            .trim(),
        ""
    );
    assert_eq!(
        call(json!({"status": "open", "project": "web"}))
            .stdout
            .trim(),
        ""
    );
    assert_eq!(call(json!({"status": "closed"})).stdout.trim(), "");
    let other = p.hook(&p.pre_tool_use(
        "mcp__github__close",
        json!({"status": "closed", "project": "web"}),
    ));
    assert_eq!(other.stdout.trim(), "");
}

#[test]
fn leader_scope_does_not_fire_inside_a_subagent() {
    let p = Project::with_config(RULES);
    p.hook(&p.subagent_start("ag-1", "coder"));
    let sub =
        p.hook(&p.pre_tool_use_as("ag-1", "coder", "Edit", json!({"file_path": "docs/x.md"})));
    assert_eq!(sub.stdout.trim(), "", "{}", sub.stdout);
    let lead = edit(&p, "docs/x.md");
    assert_eq!(lead.decision(), None, "warn never refuses");
    assert!(
        lead.additional_context().contains("Docs are the leader's."),
        "{}",
        lead.stdout
    );
}

#[test]
fn guard_denies_dangerous_commands_every_time_and_ask_rules_ask() {
    let p = Project::with_config(RULES);
    let push = bash(&p, "git push origin main");
    assert_eq!(push.decision().as_deref(), Some("ask"));
    assert!(push.reason().contains("green CI"));
    for cmd in [
        "rm -rf /",
        "sudo rm -rf /",
        "bash -c 'rm -rf ~'",
        "git push --force origin main",
        "terraform destroy -auto-approve",
    ] {
        for _ in 0..2 {
            let r = bash(&p, cmd);
            assert_eq!(r.decision().as_deref(), Some("deny"), "{cmd}: {}", r.stdout);
            assert!(r.reason().starts_with("[nagger]"), "{cmd}");
        }
    }
    for cmd in [
        "rm -rf ./target",
        "rm -rf ./build",
        "echo 'rm -rf /'",
        "git push --force-with-lease",
    ] {
        let r = bash(&p, cmd);
        assert_ne!(r.decision().as_deref(), Some("deny"), "{cmd}: {}", r.stdout);
    }
}

#[test]
fn bypass_permissions_keeps_guard_denials_and_dont_ask_softens_rules() {
    let p = Project::with_config(RULES);
    let mut input = p.pre_tool_use("Bash", json!({"command": "rm -rf /"}));
    input["permission_mode"] = json!("bypassPermissions");
    assert_eq!(p.hook(&input).decision().as_deref(), Some("deny"));
    let mut push = p.pre_tool_use("Bash", json!({"command": "git push origin main"}));
    push["permission_mode"] = json!("bypassPermissions");
    assert_eq!(p.hook(&push).stdout.trim(), "");
    push["permission_mode"] = json!("dontAsk");
    let r = p.hook(&push);
    assert_eq!(r.decision(), None);
    assert!(r.additional_context().contains("green CI"));
}

#[test]
fn a_deny_wins_and_leaves_once_per_session_rules_for_the_next_call() {
    let p = Project::with_config(RULES);
    let r = bash(&p, "git push origin main && rm -rf /");
    assert_eq!(r.decision().as_deref(), Some("deny"));
    assert!(r.reason().contains("Refused"), "{}", r.reason());
    // The ask rule was not used up by a call that was refused anyway.
    assert!(!r.reason().contains("green CI"), "{}", r.reason());
    let r = bash(&p, "git push origin main");
    assert_eq!(r.decision().as_deref(), Some("ask"));
    assert!(r.reason().contains("green CI"), "{}", r.reason());
}

#[test]
fn check_names_each_rule_that_fires_and_why() {
    let p = Project::with_config(RULES);
    let r = p.run(&[
        "check",
        "--tool",
        "Bash",
        "--command",
        "git push -f origin main",
    ]);
    assert_eq!(r.code, 3, "refused: {}", r.stderr);
    assert!(
        r.stdout.contains("push") && r.stdout.contains("guard:"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("answer: refuse"), "{}", r.stdout);
    let j = p.run(&[
        "check",
        "--tool",
        "Edit",
        "--file",
        "app/views/a/b.erb",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&j.stdout).unwrap();
    assert_eq!(v["matches"][0]["name"], "views");
    assert_eq!(v["matches"][0]["kind"], "file");
    assert!(
        v["matches"][0]["why"]
            .as_str()
            .unwrap()
            .contains("**/app/views/**/*.erb")
    );
    assert_eq!(v["verdict"]["decision"], "deny");
    let none = p.run(&["check", "--command", "ls -la"]);
    assert!(none.stdout.contains("passes"));
    assert!(!p.db_path().exists(), "check changes no state");
}

#[test]
fn block_ask_and_warn_behind_a_conventions_refusal_fire_on_the_retry() {
    for (severity, expect) in [("block", "deny"), ("ask", "ask"), ("warn", "context")] {
        let p = Project::with_config(&format!(
            r#"
[session.first_time]
text = "SESSION-CONVENTIONS"
[[rules.command]]
name = "push"
patterns = ["git push*"]
severity = "{severity}"
message = "PUSH-RULE-MESSAGE"
"#
        ));
        let first = bash(&p, "git push origin main");
        assert_eq!(first.decision().as_deref(), Some("deny"), "{severity}");
        assert!(first.reason().contains("SESSION-CONVENTIONS"), "{severity}");
        let retry = bash(&p, "git push origin main");
        let shown = match expect {
            "context" => {
                assert_eq!(retry.decision(), None, "{severity}: {}", retry.stdout);
                retry.additional_context()
            }
            decision => {
                assert_eq!(retry.decision().as_deref(), Some(decision), "{severity}");
                retry.reason()
            }
        };
        assert!(
            shown.contains("PUSH-RULE-MESSAGE"),
            "{severity} was used up by the refused call: {}",
            retry.stdout
        );
        // once per session: the third call passes
        assert_eq!(
            bash(&p, "git push origin main").stdout.trim(),
            "",
            "{severity}"
        );
    }
}

#[test]
fn a_block_rule_on_the_same_call_never_uses_up_an_ask_or_warn_rule() {
    for (severity, expect) in [("ask", "ask"), ("warn", "context")] {
        let p = Project::with_config(&format!(
            r#"
[[rules.command]]
name = "push needs CI"
patterns = ["git push*"]
severity = "{severity}"
message = "USER-RULE-MESSAGE"
[[rules.command]]
name = "added block"
patterns = ["git push*"]
severity = "block"
message = "BLOCK-RULE-MESSAGE"
"#
        ));
        let first = bash(&p, "git push origin main");
        assert_eq!(first.decision().as_deref(), Some("deny"), "{severity}");
        assert!(first.reason().contains("BLOCK-RULE-MESSAGE"), "{severity}");
        // The block rule is used up; the user's rule is still armed for the retry.
        let retry = bash(&p, "git push origin main");
        let shown = match expect {
            "context" => retry.additional_context(),
            decision => {
                assert_eq!(
                    retry.decision().as_deref(),
                    Some(decision),
                    "{severity}: {}",
                    retry.stdout
                );
                retry.reason()
            }
        };
        assert!(
            shown.contains("USER-RULE-MESSAGE"),
            "{severity} was used up by the blocked call: {}",
            retry.stdout
        );
    }
}
