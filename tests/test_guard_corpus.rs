//! The guard against its corpus: tests/fixtures/guard/destructive.txt (each line refused or
//! asked about, as its first word says), harmless.txt (commands agents really run) and
//! everyday.txt (everyday development commands from real projects), none of them refused
//! or asked about, and families.txt (destructive calls and harmless lookalikes by class,
//! each answered as its first word says). Every line goes through the rules as the hook
//! evaluates them and through the database-free decision; a sample goes through the real
//! binary. benches/guard-corpus.sh runs the same corpora through a built binary and reports
//! the misses.

use crate::common::Project;
use nagger::base::decision::Decision;
use nagger::base::mode::PermissionMode;
use nagger::domain::guard::GuardConfig;
use nagger::domain::rules::{self, MatchContext, RuleSet, RulesConfig, ToolCall};
use serde_json::{Value, json};
use std::path::Path;

const DESTRUCTIVE: &str = include_str!("fixtures/guard/destructive.txt");
const HARMLESS: &str = include_str!("fixtures/guard/harmless.txt");
const SELF_PROTECTION: &str = include_str!("fixtures/guard/self_protection.txt");
const EVERYDAY: &str = include_str!("fixtures/guard/everyday.txt");
const FAMILIES: &str = include_str!("fixtures/guard/families.txt");

/// One corpus line: where it is, the tool and input it stands for.
struct Case {
    line: usize,
    text: String,
    expected: Option<Decision>,
    tool: String,
    input: Value,
}

fn cases(corpus: &str, with_decision: bool) -> Vec<Case> {
    corpus
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with("#:"))
        .map(|(i, l)| {
            let (expected, rest) = if with_decision {
                let (word, rest) = l.split_once(' ').expect("`deny|ask command`");
                let decision = match word {
                    "deny" => Some(Decision::Deny),
                    "ask" => Some(Decision::Ask),
                    "pass" => None,
                    other => panic!("line {}: unknown answer {other:?}", i + 1),
                };
                (decision, rest)
            } else {
                (None, l)
            };
            let text = rest.replace('⏎', "\n");
            let (tool, input) = match text.strip_prefix('@') {
                Some(call) => file_tool_call(call),
                None => ("Bash".to_owned(), json!({ "command": text })),
            };
            Case {
                line: i + 1,
                text,
                expected,
                tool,
                input,
            }
        })
        .collect()
}

/// A file tool call written `@Tool path`, or `@Glob pattern [path]`, or any tool's call
/// written `@Tool {json input}`: the tool and its input.
fn file_tool_call(call: &str) -> (String, Value) {
    let (tool, rest) = call.split_once(' ').expect("`@Tool path`");
    let input = match tool {
        _ if rest.starts_with('{') => serde_json::from_str(rest).expect("a JSON input"),
        "Glob" => match rest.split_once(' ') {
            Some((pattern, path)) => json!({ "pattern": pattern, "path": path }),
            None => json!({ "pattern": rest }),
        },
        "Grep" => json!({ "path": rest }),
        "NotebookEdit" => json!({ "notebook_path": rest }),
        _ => json!({ "file_path": rest }),
    };
    (tool.to_owned(), input)
}

/// The answer with the default config, as the hook computes it, checked against the
/// database-free decision.
fn decide(case: &Case) -> (Option<Decision>, String) {
    let (rules, guard) = (RulesConfig::default(), GuardConfig::default());
    let set = RuleSet::compile(&rules, &guard).expect("defaults compile");
    let call = ToolCall {
        tool_name: &case.tool,
        tool_input: &case.input,
    };
    let root = Path::new("/work/proj");
    let ctx = MatchContext {
        project_root: root,
        cwd: None,
        is_leader: false,
        role: Some("coder"),
        agent_type: Some("general-purpose"),
    };
    let matches = set.evaluate(&call, &ctx);
    let verdict = rules::combine(&matches, &PermissionMode::Default);
    let stateless = rules::decide_without_state(&rules, &guard, &call, root);
    assert_eq!(
        stateless, matches,
        "line {}: the database-free decision differs",
        case.line
    );
    let decision = verdict.as_ref().map(|v| v.decision);
    let why = matches
        .iter()
        .map(|m| format!("{} ({})", m.name, m.why))
        .collect::<Vec<_>>()
        .join("; ");
    (decision, why)
}

#[test]
fn destructive_corpus_is_refused_or_asked_line_by_line() {
    let cases = cases(DESTRUCTIVE, true);
    assert!(cases.len() >= 300, "only {} destructive lines", cases.len());
    let asks = cases
        .iter()
        .filter(|c| c.expected == Some(Decision::Ask))
        .count();
    assert!(asks >= 15, "the corpus covers asking too");
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let (got, why) = decide(case);
            (got != case.expected).then(|| {
                format!(
                    "line {}: {:?} expected {:?}, got {got:?} [{why}]",
                    case.line, case.text, case.expected
                )
            })
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} wrong:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

/// The class a self-protection line belongs to: the `#: class:` comment above it.
fn class_of(corpus: &str, line: usize) -> &str {
    corpus
        .lines()
        .take(line)
        .filter_map(|l| l.strip_prefix("#: class: "))
        .last()
        .unwrap_or("?")
}

#[test]
fn self_protection_corpus_is_answered_line_by_line() {
    let cases = cases(SELF_PROTECTION, true);
    assert!(cases.len() >= 200, "only {} lines", cases.len());
    let classes: std::collections::BTreeSet<&str> = cases
        .iter()
        .map(|c| class_of(SELF_PROTECTION, c.line))
        .collect();
    assert!(classes.len() >= 10, "{classes:?}");
    for class in &classes {
        let of_class = || {
            cases
                .iter()
                .filter(|c| class_of(SELF_PROTECTION, c.line) == *class)
        };
        assert!(
            of_class().filter(|c| c.expected.is_some()).count() >= 4,
            "{class}: too few stopped cases"
        );
    }
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let (got, why) = decide(case);
            (got != case.expected).then(|| {
                format!(
                    "line {} [{}]: {:?} expected {:?}, got {got:?} [{why}]",
                    case.line,
                    class_of(SELF_PROTECTION, case.line),
                    case.text,
                    case.expected
                )
            })
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} wrong:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

/// The lines of an unlabelled corpus that the guard refuses or asks about.
fn stopped_lines(corpus: &str) -> Vec<String> {
    cases(corpus, false)
        .iter()
        .filter_map(|case| {
            let (got, why) = decide(case);
            got.map(|d| format!("line {}: {:?} got {d:?} [{why}]", case.line, case.text))
        })
        .collect()
}

#[test]
fn harmless_corpus_passes_without_refusal_or_question() {
    let total = cases(HARMLESS, false).len();
    assert!(total >= 500, "only {total} harmless lines");
    let stopped = stopped_lines(HARMLESS);
    assert!(
        stopped.is_empty(),
        "{} of {total} stopped:\n{}",
        stopped.len(),
        stopped.join("\n")
    );
}

#[test]
fn everyday_corpus_passes_without_refusal_or_question() {
    let total = cases(EVERYDAY, false).len();
    assert!(total >= 550, "only {total} everyday lines");
    let stopped = stopped_lines(EVERYDAY);
    assert!(
        stopped.is_empty(),
        "{} of {total} stopped:\n{}",
        stopped.len(),
        stopped.join("\n")
    );
}

/// The families corpus as the acceptance bar reads it: at most 3 % of its destructive
/// lines pass, at most 1 % of its harmless lookalikes are refused or asked about. Every
/// line answered otherwise than its label is listed.
#[test]
fn families_corpus_stays_within_the_bar() {
    let cases = cases(FAMILIES, true);
    let stopped = cases.iter().filter(|c| c.expected.is_some()).count();
    assert!(stopped >= 350, "only {stopped} destructive lines");
    assert!(cases.len() - stopped >= 150, "too few harmless lookalikes");
    let classes: std::collections::BTreeSet<&str> =
        cases.iter().map(|c| class_of(FAMILIES, c.line)).collect();
    assert!(classes.len() >= 6, "{classes:?}");
    for class in &classes {
        let of_class = || {
            cases
                .iter()
                .filter(|c| class_of(FAMILIES, c.line) == *class)
        };
        assert!(
            of_class().filter(|c| c.expected.is_some()).count() >= 30,
            "{class}: too few destructive cases"
        );
        assert!(
            of_class().filter(|c| c.expected.is_none()).count() >= 15,
            "{class}: too few harmless lookalikes"
        );
    }
    let mut passed = Vec::new();
    let mut stopped_harmless = Vec::new();
    let mut softer = Vec::new();
    for case in &cases {
        let (got, why) = decide(case);
        let line = format!(
            "line {} [{}]: {:?} expected {:?}, got {got:?} [{why}]",
            case.line,
            class_of(FAMILIES, case.line),
            case.text,
            case.expected
        );
        match (case.expected, got) {
            (Some(_), None) => passed.push(line),
            (None, Some(_)) => stopped_harmless.push(line),
            // A refusal answered with a question still stops the call.
            (Some(Decision::Deny), Some(Decision::Ask)) => softer.push(line),
            _ => {}
        }
    }
    let harmless = cases.len() - stopped;
    eprintln!(
        "families: {} of {stopped} destructive pass, {} refusals only asked, {} of {harmless} \
         harmless stopped\n{}",
        passed.len(),
        softer.len(),
        stopped_harmless.len(),
        [&passed[..], &stopped_harmless[..], &softer[..]]
            .concat()
            .join("\n")
    );
    assert!(
        passed.len() * 100 <= stopped * 3,
        "{} of {stopped} destructive lines pass:\n{}",
        passed.len(),
        passed.join("\n")
    );
    assert!(
        stopped_harmless.len() * 100 <= harmless,
        "{} of {harmless} harmless lines stopped:\n{}",
        stopped_harmless.len(),
        stopped_harmless.join("\n")
    );
}

#[test]
fn the_binary_answers_as_the_corpus_says_on_a_sample() {
    let p = Project::new();
    let destructive = cases(DESTRUCTIVE, true);
    let harmless = cases(HARMLESS, false);
    let sample = destructive
        .iter()
        .step_by(20)
        .chain(harmless.iter().step_by(40));
    for case in sample {
        let input = case.input.to_string();
        let r = p.run(&["check", "--tool", &case.tool, "--input", &input, "--json"]);
        let (expected, code) = match case.expected {
            Some(Decision::Deny) => (json!("deny"), 3),
            Some(Decision::Ask) => (json!("ask"), 4),
            _ => (Value::Null, 0),
        };
        // check's exit code is its answer: 3 refuse, 4 ask, 0 passes
        assert_eq!(r.code, code, "line {}: {}", case.line, r.stderr);
        let v: Value = serde_json::from_str(&r.stdout).expect("check --json prints JSON");
        assert_eq!(
            v["verdict"]["decision"], expected,
            "line {}: {:?}\n{}",
            case.line, case.text, r.stdout
        );
    }
}

#[test]
fn check_explains_exemptions_secrets_and_a_guard_that_is_off() {
    let p = Project::with_config(
        "[guard]\nallow = [\"rm -rf ./target\", \".env.test\"]\nshell_tools = [\"Bash\", \"mcp__box__exec\"]\n",
    );
    let exempt = p.run(&["check", "--command", "cargo clean; rm -rf ./target"]);
    assert_eq!(exempt.code, 0, "{}", exempt.stderr);
    assert!(exempt.stdout.contains("passes"), "{}", exempt.stdout);
    assert!(
        exempt
            .stdout
            .contains("note: `rm -rf ./target` is exempted from the guard by `[guard] allow` `rm -rf ./target`"),
        "{}",
        exempt.stdout
    );
    let secret = p.run(&["check", "--tool", "Read", "--file", ".env.local"]);
    assert!(secret.stdout.contains("guard:secret"), "{}", secret.stdout);
    assert!(
        secret.stdout.contains("answer: refuse"),
        "{}",
        secret.stdout
    );
    assert_eq!(secret.code, 3);
    let test_env = p.run(&["check", "--tool", "Read", "--file", ".env.test"]);
    assert!(
        test_env.stdout.contains("this call's path is exempted"),
        "{}",
        test_env.stdout
    );
    let other_shell = p.run(&[
        "check",
        "--tool",
        "mcp__box__exec",
        "--input",
        r#"{"command": "git reset --hard"}"#,
    ]);
    assert!(
        other_shell.stdout.contains("guard:git-reset-hard"),
        "{}",
        other_shell.stdout
    );
    let computed = p.run(&["check", "--command", "$(echo rm) -rf /"]);
    assert!(
        computed.stdout.contains("answer: ask the user"),
        "{}",
        computed.stdout
    );
    assert!(
        computed.stdout.contains("guard:computed-command"),
        "{}",
        computed.stdout
    );

    p.write_config("[guard]\nenabled = false\n");
    let off = p.run(&["check", "--command", "rm -rf /"]);
    assert!(off.stdout.contains("passes"), "{}", off.stdout);
    assert!(
        off.stdout.contains("note: the guard is off"),
        "{}",
        off.stdout
    );
}

#[test]
fn the_hook_refuses_secrets_and_changes_to_nagger_itself_every_time() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    let config = p.root.join(".claude-nagger/config.toml");
    let config = config.to_string_lossy();
    let calls = [
        (
            "Edit",
            json!({ "file_path": config, "old_string": "true", "new_string": "false" }),
        ),
        (
            "Write",
            json!({ "file_path": p.root.join(".claude/settings.json") }),
        ),
        ("Read", json!({ "file_path": p.root.join(".env") })),
        (
            "Bash",
            json!({ "command": "sqlite3 .claude-nagger/state.db 'delete from sessions'" }),
        ),
        ("Bash", json!({ "command": "cat ~/.aws/credentials" })),
    ];
    for (tool, input) in calls {
        for attempt in 0..2 {
            let r = p.hook(&p.pre_tool_use(tool, input.clone()));
            assert_eq!(r.code, 0, "{}", r.stderr);
            assert_eq!(
                r.decision().as_deref(),
                Some("deny"),
                "{tool} {input} attempt {attempt}: {}",
                r.stdout
            );
        }
    }
    let read = p.hook(&p.pre_tool_use("Read", json!({ "file_path": config })));
    assert_eq!(
        read.decision(),
        None,
        "reading the config passes: {}",
        read.stdout
    );
    let ask = p.hook(&p.pre_tool_use("Bash", json!({ "command": "$(echo rm) -rf /" })));
    assert_eq!(ask.decision().as_deref(), Some("ask"), "{}", ask.stdout);
}
