use super::*;
use crate::domain::config::{self, TEMPLATE};
use std::path::Path;

fn sources(files: &[(&'static str, &str)]) -> Sources {
    Sources {
        files: files.iter().map(|(n, t)| (*n, (*t).to_string())).collect(),
    }
}

fn convert_all(files: &[(&'static str, &str)]) -> Imported {
    convert(&sources(files), Path::new(".claude-nagger")).unwrap()
}

fn entry<'a>(imported: &'a Imported, source: &str) -> &'a Entry {
    imported
        .report
        .iter()
        .find(|e| e.source.contains(source))
        .unwrap_or_else(|| panic!("no report entry for {source}: {:#?}", imported.report))
}

/// The config as nagger loads it after the import.
fn loaded(imported: &Imported) -> config::Config {
    let merged = merge(None, TEMPLATE, imported).unwrap();
    config::parse(&merged.text, Path::new("config.toml")).unwrap()
}

const CONFIG: &str = r#"
session_startup:
  enabled: true
  messages:
    first_time:
      title: "Setup"
      main_text: |
        Read the conventions.
      severity: "block"
    repeated:
      title: "Again"
      main_text: "Read them again."
  behavior:
    token_threshold: 80_000
  overrides:
    subagent_default:
      messages:
        first_time:
          title: "Subagent rules"
          main_text: "Stay in scope."
    subagent_types:
      Explore:
        enabled: no
      coder:
        messages:
          first_time:
            main_text: "Run the tests."
      tester: {}
role_resolution:
  trusted_prefixes:
    qa: tester
notifications:
  discord:
    enabled: true
"#;

#[test]
fn session_messages_roles_and_thresholds_carry_over() {
    let imported = convert_all(&[("config.yaml", CONFIG)]);
    let c = loaded(&imported);
    assert_eq!(c.session.first_time.title, "Setup");
    assert_eq!(c.session.first_time.text, "Read the conventions.");
    assert_eq!(c.session.repeated.text, "Read them again.");
    assert_eq!(c.session.token_threshold, 80_000, "YAML 1.1's 80_000");
    assert!(!c.roles["Explore"].enabled, "YAML 1.1's `no`");
    // base → subagent_default → type, deep-merged: the default's title, the type's text.
    assert_eq!(c.roles["coder"].title, "Subagent rules");
    assert_eq!(c.roles["coder"].text, "Run the tests.");
    assert_eq!(c.roles["tester"].text, "Stay in scope.");
    assert!(
        c.roles["default"].text.is_empty(),
        "types without an entry got nothing"
    );
    assert_eq!(c.role_resolution.prefixes["qa"], "tester");
    assert_eq!(entry(&imported, "notifications").outcome, Outcome::Dropped);
    assert_eq!(
        entry(&imported, "first_time.severity").outcome,
        Outcome::Dropped
    );
    assert_eq!(
        entry(&imported, "subagent_default").outcome,
        Outcome::Changed
    );
}

#[test]
fn missing_messages_get_claude_naggers_defaults_and_disabled_startup_imports_no_role() {
    let imported = convert_all(&[("config.yaml", "session_startup:\n  messages: {}\n")]);
    let c = loaded(&imported);
    assert_eq!(c.session.first_time.title, "セッション開始時の確認");
    assert_eq!(
        entry(&imported, "messages.first_time").outcome,
        Outcome::Changed
    );

    let off = "session_startup:\n  enabled: false\n  overrides:\n    subagent_types:\n      coder:\n        messages: {first_time: {main_text: x}}\n";
    let imported = convert_all(&[("config.yaml", off)]);
    let c = loaded(&imported);
    assert!(!c.session.enabled);
    assert!(!c.roles.contains_key("coder"));
    assert_eq!(
        entry(&imported, "subagent_types.coder").outcome,
        Outcome::Dropped
    );
}

const FILES: &str = r#"
rules:
  - name: "views"
    patterns: ["**/app/views/**/*.erb"]
    exclude_patterns: ["**/legacy/**"]
    severity: "block"
    message: "Views follow docs/views.md."
  - name: "secrets"
    patterns: ["config/{secrets}.yml"]
    severity: "deny"
    message: "Never."
  - name: "warned"
    patterns: ["docs/**"]
    message: "Docs."
  - name: "broken"
    patterns: ["x"]
"#;

const COMMANDS: &str = r#"
rules:
  - name: "push"
    patterns: ["git push*"]
    severity: "deny"
    message: "No pushing."
  - name: "npm"
    patterns: ["npm"]
    severity: "info"
    token_threshold: 5000
    message: "Use pnpm."
"#;

#[test]
fn severities_map_to_what_claude_nagger_did() {
    let imported = convert_all(&[
        ("file_conventions.yaml", FILES),
        ("command_conventions.yaml", COMMANDS),
    ]);
    let c = loaded(&imported);
    let file = |name: &str| c.rules.file.iter().find(|r| r.name == name).unwrap();
    let command = |name: &str| c.rules.command.iter().find(|r| r.name == name).unwrap();
    use crate::domain::rules::Severity;
    assert_eq!(file("views").severity, Severity::Block);
    assert_eq!(
        file("views").token_threshold,
        Some(20_000),
        "block's default"
    );
    assert_eq!(file("views").exclude, vec!["**/legacy/**"]);
    assert_eq!(file("secrets").severity, Severity::Deny);
    assert_eq!(file("secrets").token_threshold, None);
    assert_eq!(file("secrets").patterns, vec![r"config/\{secrets\}.yml"]);
    // warn (the default) refused once in claude-nagger: block, never nagger's warn.
    assert_eq!(file("warned").severity, Severity::Block);
    assert_eq!(
        file("warned").token_threshold,
        Some(40_000),
        "warn's default"
    );
    assert_eq!(entry(&imported, "\"warned\"").outcome, Outcome::Changed);
    assert_eq!(command("push").severity, Severity::Deny);
    assert_eq!(command("npm").severity, Severity::Block);
    assert_eq!(command("npm").token_threshold, Some(5000));
    assert_eq!(command("npm").patterns, vec!["npm", "npm *"]);
    // A rule claude-nagger's loader refused (no message): dropped; it made claude-nagger
    // drop the whole file, which the others' entries say.
    assert_eq!(entry(&imported, "\"broken\"").outcome, Outcome::Dropped);
    assert!(
        entry(&imported, "\"views\"")
            .note
            .contains("loaded no rule of this file")
    );
    assert!(c.rules.file.iter().all(|r| r.name != "broken"));
}

const MCP: &str = r#"
rules:
  - name: "tickets"
    tool_pattern: "mcp__redmine__update"
    input_match:
      status: "closed|rejected"
    severity: "block"
    message: "Review first."
  - name: "not serena"
    tool_pattern: "mcp__(?!serena).*"
    message: "x"
  - name: "everything"
    tool_pattern: ".*"
    severity: "deny"
    message: "y"
"#;

#[test]
fn tool_patterns_keep_re_match_anchoring_or_are_dropped_with_the_reason() {
    let imported = convert_all(&[("mcp_conventions.yaml", MCP)]);
    let c = loaded(&imported);
    let rules = crate::domain::rules::RuleSet::compile(&c.rules, &c.guard).unwrap();
    let fires = |tool: &str, input: serde_json::Value| {
        let call = crate::domain::rules::ToolCall {
            tool_name: tool,
            tool_input: &input,
        };
        let ctx = crate::domain::rules::MatchContext {
            project_root: Path::new("/p"),
            cwd: None,
            is_leader: true,
            role: None,
            agent_type: None,
        };
        rules
            .evaluate(&call, &ctx)
            .into_iter()
            .map(|m| m.name)
            .collect::<Vec<_>>()
    };
    let tickets = |tool: &str, status: &str| {
        fires(tool, serde_json::json!({"status": status})).contains(&"tickets".to_string())
    };
    assert!(tickets("mcp__redmine__update", "closed"));
    assert!(
        tickets("mcp__redmine__update_issue", "rejected"),
        "re.match: a prefix"
    );
    assert!(
        !tickets("x_mcp__redmine__update", "closed"),
        "anchored at the start"
    );
    assert!(!tickets("mcp__redmine__update", "reclosed"), "fullmatch");
    assert!(
        !tickets("mcp__redmine__update", "closed later"),
        "fullmatch"
    );
    let dropped = entry(&imported, "\"not serena\"");
    assert_eq!(dropped.outcome, Outcome::Dropped);
    assert!(dropped.note.contains("look-ahead"), "{}", dropped.note);
    let everything = entry(&imported, "\"everything\"");
    assert_eq!(everything.outcome, Outcome::Changed);
    assert!(everything.note.contains("Bash"), "{}", everything.note);
}

#[test]
fn an_existing_config_is_merged_into_never_overwritten() {
    let imported = convert_all(&[
        ("config.yaml", CONFIG),
        ("command_conventions.yaml", COMMANDS),
    ]);
    let mine = "# mine\n[session]\ndelivery = \"context\"\n\n[[rules.command]]\nname = \"mine\"\npatterns = [\"make *\"]\nmessage = \"m\"\n";
    let merged = merge(Some(mine), TEMPLATE, &imported).unwrap();
    assert!(merged.text.contains("# mine"));
    let c = config::parse(&merged.text, Path::new("c")).unwrap();
    assert_eq!(c.session.delivery, config::Delivery::Context);
    assert_eq!(c.session.first_time.title, "Setup");
    assert_eq!(c.rules.command.len(), 3);
    // Importing again changes nothing.
    let again = merge(Some(&merged.text), TEMPLATE, &imported).unwrap();
    assert!(again.changes.is_empty(), "{:?}", again.changes);
    assert_eq!(again.text, merged.text);
    assert_eq!(
        imported_state(
            Some(&merged.text),
            &sources(&[
                ("config.yaml", CONFIG),
                ("command_conventions.yaml", COMMANDS)
            ])
        ),
        ImportState::Current
    );

    // A key the user set otherwise is a conflict, and nothing is merged.
    let conflicting = "[session.first_time]\ntitle = \"My own\"\n";
    let conflicts = merge(Some(conflicting), TEMPLATE, &imported).unwrap_err();
    assert_eq!(conflicts.len(), 1, "{conflicts:?}");
    assert!(conflicts[0].key.contains("first_time"));
    let same_name =
        "[[rules.command]]\nname = \"push\"\npatterns = [\"git push --force*\"]\nmessage = \"m\"\n";
    assert!(merge(Some(same_name), TEMPLATE, &imported).is_err());
}

#[test]
fn yaml_claude_nagger_could_not_read_is_an_error() {
    let err = convert(
        &sources(&[("file_conventions.yaml", "rules: [\n")]),
        Path::new(".claude-nagger"),
    )
    .unwrap_err();
    assert!(err.to_string().contains("file_conventions.yaml"), "{err}");
}
