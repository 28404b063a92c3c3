use std::path::Path;

use serde_json::{Value, json};

use super::*;
use crate::domain::rules::testing;
use crate::domain::rules::{MatchContext, Severity};

fn views_rule() -> FileRule {
    FileRule {
        name: "views".into(),
        patterns: vec!["**/app/views/**/*.erb".into()],
        exclude: vec!["**/vendor/**".into()],
        severity: Severity::Block,
        token_threshold: Some(35000),
        scope: vec![],
        message: "Views follow docs/views.md.".into(),
    }
}

fn leader() -> MatchContext<'static> {
    MatchContext {
        project_root: Path::new("/work/proj"),
        cwd: None,
        is_leader: true,
        role: None,
        agent_type: None,
    }
}

// Callers hand it json! literals.
#[allow(clippy::needless_pass_by_value)]
fn fire(rules: &[FileRule], tool: &str, input: Value, ctx: &MatchContext) -> Vec<String> {
    let config = RulesConfig {
        file: rules.to_vec(),
        ..Default::default()
    };
    testing::fire(&config, tool, &input, ctx)
}

#[test]
fn double_star_crosses_directories_and_single_star_does_not() {
    let rule = views_rule();
    let ctx = leader();
    for path in [
        "app/views/a.erb",
        "app/views/users/show.erb",
        "engines/admin/app/views/x/y/z.erb",
        "/work/proj/app/views/a.erb",
        "./app/views/a.erb",
    ] {
        let why = fire(
            std::slice::from_ref(&rule),
            "Edit",
            json!({"file_path": path}),
            &ctx,
        );
        assert_eq!(why.len(), 1, "{path}");
    }
    let star = FileRule {
        name: "top".into(),
        patterns: vec!["src/*.rs".into()],
        ..Default::default()
    };
    assert_eq!(
        fire(
            std::slice::from_ref(&star),
            "Write",
            json!({"file_path": "src/lib.rs"}),
            &ctx
        )
        .len(),
        1
    );
    assert!(
        fire(
            &[star],
            "Write",
            json!({"file_path": "src/rules/mod.rs"}),
            &ctx
        )
        .is_empty()
    );
    assert!(
        fire(
            &[rule],
            "Edit",
            json!({"file_path": "app/views/a.rb"}),
            &ctx
        )
        .is_empty()
    );
}

#[test]
fn exclude_wins_over_patterns() {
    let why = fire(
        &[views_rule()],
        "Edit",
        json!({"file_path": "/work/proj/vendor/gems/x/app/views/a.erb"}),
        &leader(),
    );
    assert!(why.is_empty());
}

#[test]
fn why_names_the_relative_path_and_the_pattern() {
    let why = fire(
        &[views_rule()],
        "MultiEdit",
        json!({"file_path": "/work/proj/app/views/a.erb", "edits": []}),
        &leader(),
    );
    assert_eq!(why, ["app/views/a.erb matches **/app/views/**/*.erb"]);
}

#[test]
fn notebook_and_search_paths_count_too() {
    let nb = FileRule {
        name: "nb".into(),
        patterns: vec!["notebooks/**".into()],
        ..Default::default()
    };
    let ctx = leader();
    assert_eq!(
        fire(
            std::slice::from_ref(&nb),
            "NotebookEdit",
            json!({"notebook_path": "/work/proj/notebooks/a.ipynb"}),
            &ctx
        )
        .len(),
        1
    );
    assert_eq!(
        fire(
            std::slice::from_ref(&nb),
            "Grep",
            json!({"pattern": "x", "path": "notebooks/sub"}),
            &ctx
        )
        .len(),
        1
    );
    assert!(fire(&[nb], "Bash", json!({"command": "cat notebooks/a"}), &ctx).is_empty());
}

#[test]
fn scope_leader_does_not_fire_inside_a_subagent() {
    let rule = FileRule {
        scope: vec!["leader".into()],
        ..views_rule()
    };
    let input = json!({"file_path": "app/views/a.erb"});
    assert_eq!(
        fire(
            std::slice::from_ref(&rule),
            "Edit",
            input.clone(),
            &leader()
        )
        .len(),
        1
    );
    let coder = MatchContext {
        is_leader: false,
        role: Some("coder"),
        agent_type: Some("coder-fix"),
        ..leader()
    };
    assert!(fire(&[rule], "Edit", input, &coder).is_empty());
}

#[test]
fn scope_role_names_match_role_or_agent_type() {
    let rule = FileRule {
        scope: vec!["reviewer".into()],
        ..views_rule()
    };
    let input = json!({"file_path": "app/views/a.erb"});
    let by_role = MatchContext {
        is_leader: false,
        role: Some("reviewer"),
        agent_type: Some("general-purpose"),
        ..leader()
    };
    let by_type = MatchContext {
        is_leader: false,
        role: None,
        agent_type: Some("reviewer"),
        ..leader()
    };
    let other = MatchContext {
        is_leader: false,
        role: Some("coder"),
        agent_type: Some("coder"),
        ..leader()
    };
    assert_eq!(
        fire(std::slice::from_ref(&rule), "Edit", input.clone(), &by_role).len(),
        1
    );
    assert_eq!(
        fire(std::slice::from_ref(&rule), "Edit", input.clone(), &by_type).len(),
        1
    );
    assert!(fire(std::slice::from_ref(&rule), "Edit", input.clone(), &other).is_empty());
    assert!(fire(&[rule], "Edit", input, &leader()).is_empty());
}

#[test]
fn a_path_outside_the_project_is_matched_as_given() {
    let rule = FileRule {
        name: "etc".into(),
        patterns: vec!["/etc/**".into()],
        ..Default::default()
    };
    assert_eq!(
        fire(
            &[rule],
            "Read",
            json!({"file_path": "/etc/hosts"}),
            &leader()
        )
        .len(),
        1
    );
}
