//! The guard as a library: one call and its settings in, a verdict out, with no config
//! file, no database and no rules anywhere.

use std::path::Path;

use serde_json::json;

use super::*;

#[test]
fn default_settings_deny_rm_rf_root_with_no_config_file_and_no_database() {
    let project = tempfile::tempdir().expect("a temporary project");
    let settings = GuardConfig::default();
    let guard = Guard::new(&settings);
    let input = json!({ "command": "rm -rf /" });
    let verdict = guard.review(&ToolCall {
        tool_name: "Bash",
        tool_input: &input,
        project_root: project.path(),
        cwd: None,
    });
    assert!(verdict.denies(), "{verdict:#?}");
    assert_eq!(verdict.objections.len(), 1, "{verdict:#?}");
    let objection = &verdict.objections[0];
    assert_eq!(objection.check, "guard:rm-rf");
    assert_eq!(objection.severity, Severity::Deny);
    assert_eq!(
        objection.message,
        "Refused `rm -rf /`: it deletes the filesystem root. \
         Delete specific paths inside the project instead."
    );
    assert_eq!(
        objection.why,
        "simple command `rm -rf /` deletes the filesystem root"
    );
    assert!(
        std::fs::read_dir(project.path())
            .expect("the project")
            .next()
            .is_none(),
        "the guard leaves the project as it found it"
    );
}

#[test]
fn a_command_line_read_by_the_caller_gets_the_same_verdict() {
    let settings = GuardConfig::default();
    let guard = Guard::new(&settings);
    for line in ["ls -la", "git push --force", "curl -s x | sh", "echo $(("] {
        let input = json!({ "command": line });
        let call = ToolCall {
            tool_name: "Bash",
            tool_input: &input,
            project_root: Path::new("/p"),
            cwd: None,
        };
        let commands = Commands::of_call(guard.shell_tools(), call.tool_name, call.tool_input);
        assert!(commands.is_some(), "{line}");
        assert_eq!(
            guard.review(&call),
            guard.review_read(&call, commands.as_ref()),
            "{line}"
        );
    }
}

#[test]
fn file_tools_are_reviewed_on_their_paths() {
    let settings = GuardConfig::default();
    let guard = Guard::new(&settings);
    let review = |tool_name: &str, path: &str| {
        let input = json!({ "file_path": path });
        guard
            .review(&ToolCall {
                tool_name,
                tool_input: &input,
                project_root: Path::new("/work/proj"),
                cwd: None,
            })
            .objections
            .into_iter()
            .map(|o| o.check)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        review("Edit", "/work/proj/.claude-nagger/config.toml"),
        ["guard:self-protect"]
    );
    assert_eq!(review("Read", "/work/proj/.env"), ["guard:secret"]);
    assert!(review("Read", "/work/proj/src/main.rs").is_empty());
}

#[test]
fn switched_off_it_passes_everything() {
    let settings = GuardConfig {
        enabled: false,
        ..GuardConfig::default()
    };
    let input = json!({ "command": "rm -rf /" });
    let verdict = Guard::new(&settings).review(&ToolCall {
        tool_name: "Bash",
        tool_input: &input,
        project_root: Path::new("/p"),
        cwd: None,
    });
    assert!(verdict.passes());
}

#[test]
fn bad_globs_are_its_own_problems() {
    let settings = GuardConfig {
        deny: vec!["ok*".into(), "[".into()],
        ..GuardConfig::default()
    };
    let problems = settings.validate::<PatternProblem>();
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0]
            .to_string()
            .starts_with("deny[1] `[` is not a valid glob"),
        "{}",
        problems[0]
    );
    let guard = Guard::new(&settings);
    assert!(guard.problems().is_empty(), "nothing compiled yet");
    let input = json!({ "command": "nope" });
    let _ = guard.review(&ToolCall {
        tool_name: "Bash",
        tool_input: &input,
        project_root: Path::new("/p"),
        cwd: None,
    });
    let met: Vec<String> = guard.problems().iter().map(|p| p.key.clone()).collect();
    assert_eq!(met, ["deny[1]"]);
}

/// The self-protection corpus through the guard alone: each line's answer as its first word
/// says (`deny`, `ask`, `pass`), and the harmless corpus with nothing stopped.
#[test]
fn self_protection_and_harmless_corpora_through_the_guard_alone() {
    let project = tempfile::tempdir().expect("a temporary project");
    let settings = GuardConfig::default();
    let guard = Guard::new(&settings);
    let answer = |text: &str| {
        let (tool, input) = match text.strip_prefix('@') {
            Some(call) => {
                let (tool, rest) = call.split_once(' ').expect("`@Tool path`");
                if rest.starts_with('{') {
                    (tool, serde_json::from_str(rest).expect("a JSON input"))
                } else {
                    (tool, json!({ "file_path": rest }))
                }
            }
            None => ("Bash", json!({ "command": text })),
        };
        let verdict = guard.review(&ToolCall {
            tool_name: tool,
            tool_input: &input,
            project_root: project.path(),
            cwd: None,
        });
        let word = if verdict.denies() {
            "deny"
        } else if verdict.objections.is_empty() {
            "pass"
        } else {
            "ask"
        };
        (word, verdict)
    };
    let mut wrong = Vec::new();
    let lines = |corpus: &'static str| {
        corpus
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with("#:"))
    };
    for (i, line) in lines(include_str!(
        "../../../tests/fixtures/guard/self_protection.txt"
    )) {
        let (expected, text) = line.split_once(' ').expect("`answer command`");
        let (got, verdict) = answer(&text.replace('⏎', "\n"));
        if got != expected {
            let why: Vec<&str> = verdict.objections.iter().map(|o| o.why.as_str()).collect();
            wrong.push(format!(
                "self_protection {}: {text:?} {expected} got {got} {why:?}",
                i + 1
            ));
        }
    }
    for (i, line) in lines(include_str!("../../../tests/fixtures/guard/harmless.txt")) {
        let (got, verdict) = answer(&line.replace('⏎', "\n"));
        if got != "pass" {
            let why: Vec<&str> = verdict.objections.iter().map(|o| o.why.as_str()).collect();
            wrong.push(format!("harmless {}: {line:?} got {got} {why:?}", i + 1));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn a_file_the_line_writes_is_known_however_a_variable_of_the_environment_spells_it() {
    let settings = GuardConfig::default();
    let guard = Guard::new(&settings);
    // `CARGO_MANIFEST_DIR` is in the environment of every test run, and not set by the line.
    for line in [
        "git show HEAD~1:x.txt > /tmp/../$CARGO_MANIFEST_DIR/x.sh; sh $CARGO_MANIFEST_DIR/x.sh",
        "git show HEAD~1:x.txt > ${CARGO_MANIFEST_DIR}/./x.sh; bash \"$CARGO_MANIFEST_DIR/x.sh\"",
    ] {
        let input = json!({ "command": line });
        let call = ToolCall {
            tool_name: "Bash",
            tool_input: &input,
            project_root: Path::new("/nonexistent/p"),
            cwd: None,
        };
        let verdict = guard.review(&call);
        assert!(
            verdict
                .objections
                .iter()
                .any(|o| o.why.contains("writes with contents")),
            "{line}: {verdict:?}"
        );
    }
}
