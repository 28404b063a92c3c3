//! nagger inside the real Claude Code (2.1.68, 2.1.328 and 2.1.332, from npm), offline
//! against the scripted stand-in: every assertion is on what the model was shown
//! (the requests the stand-in received) and on nagger's own state.
//!
//! Each scenario runs on every version. `NAGGER_REAL_RUNS` sets how many times the
//! role-accuracy scenarios run (default 10); their figures are printed and written
//! to `target/real-client-accuracy.md`.

use crate::real::client::{Project, REPEATED_MARK, ROLES, RunResult, SESSION_MARK, role_mark};
use crate::real::standin::{Block, StandIn, Turn, bash, text};
use serde_json::{Value, json};
use std::io::Write;
use std::sync::Arc;

// ---------------------------------------------------------------- scripts

/// How the main agent spawns its subagents.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Foreground,
    Background,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Foreground => "foreground",
            Mode::Background => "background",
        }
    }
}

/// Which subagents: one type with `[ROLE:]` tags, or one type per role.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    SameType,
    MixedTypes,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::SameType => "same type, [ROLE:] tags",
            Kind::MixedTypes => "one type per role",
        }
    }
}

fn spawn(role: &str, tag: &str, kind: Kind, mode: Mode) -> Block {
    let (prompt, subagent_type) = match kind {
        Kind::SameType => (
            format!("[ROLE:{role}] [SCRIPT:{tag}] Do the {role} part of the plan."),
            "general-purpose".to_string(),
        ),
        Kind::MixedTypes => (
            format!("[SCRIPT:{tag}] Do your part of the plan."),
            role.to_string(),
        ),
    };
    Block::Tool {
        name: "Agent".into(),
        input: json!({
            "description": format!("{role} work"),
            "prompt": prompt,
            "subagent_type": subagent_type,
            "run_in_background": mode == Mode::Background,
        }),
    }
}

/// A subagent: two tool calls (the first is expected to be refused with its
/// conventions), a final message without a compressed report (expected to be sent
/// back once), then a compressed report naming what it found.
fn subagent_turn(turn: &Turn<'_>, first_command: &str) -> Vec<Block> {
    match turn.step {
        0 => vec![bash(first_command)],
        1 => vec![bash(&format!("echo {}-second", turn.tag))],
        2 => vec![text("The work is finished.")],
        _ => vec![text(format!(
            "[COMPRESSED] agent_type: scripted\nResult: FINDING-{} the part is done",
            turn.tag
        ))],
    }
}

/// The main agent: one tool call (refused with the session conventions), the same
/// call again, then `then` by step from 2 on, then a closing text.
fn main_turn(turn: &Turn<'_>, then: &[Vec<Block>]) -> Vec<Block> {
    match turn.step {
        0 | 1 => vec![bash("true")],
        n => then
            .get(n - 2)
            .cloned()
            .unwrap_or_else(|| vec![text("All done.")]),
    }
}

/// A script: `main` for conversations tagged `main`, subagents for the rest.
fn script(then: Vec<Vec<Block>>, sub_first: &'static str) -> Arc<crate::real::standin::Script> {
    Arc::new(move |turn: &Turn<'_>| {
        if turn.tag == "main" {
            main_turn(turn, &then)
        } else if turn.tag.starts_with("resumed") {
            match turn.step {
                0 => vec![bash("true")],
                _ => vec![text("Resumed and done.")],
            }
        } else {
            subagent_turn(turn, sub_first)
        }
    })
}

fn run_main(project: &Project, standin: &StandIn) -> RunResult {
    // Finished: the main agent made the last request, and it holds every subagent's
    // compressed report (background agents' results come as notifications).
    let finished = |standin: &StandIn| {
        let requests = standin.requests();
        let Some(last) = requests.last().filter(|r| r.tag.as_deref() == Some("main")) else {
            return false;
        };
        let shown = last.all_text();
        let subagents: std::collections::BTreeSet<&str> = requests
            .iter()
            .filter_map(|r| r.tag.as_deref())
            .filter(|t| t.starts_with("sub-"))
            .collect();
        subagents
            .iter()
            .all(|t| shown.contains(&format!("FINDING-{t}")))
    };
    let result = project.run_until(standin, "[SCRIPT:main] Run the plan.", &[], &finished);
    assert_eq!(
        result.status, 0,
        "claude {} failed: {}\n{}",
        project.version, result.stdout, result.stderr
    );
    result
}

/// What a conversation was shown after its step-`step` tool call, as text, and
/// whether the tool result was an error.
fn tool_result_after(standin: &StandIn, tag: &str, step: usize) -> (String, bool) {
    let request = standin
        .at(tag, step + 1)
        .unwrap_or_else(|| panic!("conversation {tag} made no request at step {}", step + 1));
    let results = request.tool_results();
    assert!(
        !results.is_empty(),
        "conversation {tag} step {} has no tool result: {}",
        step + 1,
        serde_json::to_string_pretty(
            &request.body["messages"]
                .as_array()
                .map(|m| m[m.len().saturating_sub(3)..].to_vec())
        )
        .unwrap_or_default()
    );
    let is_error = results.iter().any(|(_, e)| *e);
    (request.last_user_text(), is_error)
}

// ---------------------------------------------------------------- role accuracy

struct Accuracy {
    wrong: usize,
    total: usize,
    details: Vec<String>,
}

/// One run of three parallel subagents; counts the subagents whose first tool call
/// was not refused with exactly their own role's conventions, or whose second was.
fn parallel_roles_once(version: &str, kind: Kind, mode: Mode) -> Accuracy {
    let project = Project::new(version);
    let spawns: Vec<Block> = ROLES
        .iter()
        .map(|role| spawn(role, &format!("sub-{role}"), kind, mode))
        .collect();
    let standin = StandIn::start(script(vec![spawns], "echo first-call"));
    run_main(&project, &standin);
    let mut accuracy = Accuracy {
        wrong: 0,
        total: 0,
        details: Vec::new(),
    };
    for role in ROLES {
        let tag = format!("sub-{role}");
        accuracy.total += 1;
        let Some(_) = standin.at(&tag, 2) else {
            accuracy.wrong += 1;
            accuracy
                .details
                .push(format!("{tag}: did not get past two tool calls"));
            continue;
        };
        let (first, refused) = tool_result_after(&standin, &tag, 0);
        let (second, second_refused) = tool_result_after(&standin, &tag, 1);
        let own = role_mark(role);
        let others: Vec<String> = ROLES
            .iter()
            .filter(|r| **r != role)
            .map(|r| role_mark(r))
            .collect();
        let right = refused
            && first.contains(&own)
            && !others.iter().any(|o| first.contains(o))
            && !second_refused;
        if !right {
            accuracy.wrong += 1;
            accuracy.details.push(format!(
                "{tag}: first call refused={refused} shown {:?}; second call refused={second_refused} shown {:?}; nagger's runs of the role: {}",
                cut(&first),
                cut(&second),
                project.runs_of_role(role)
            ));
        }
    }
    project.assert_nagger_healthy();
    accuracy
}

fn cut(s: &str) -> String {
    s.chars().take(300).collect()
}

fn runs() -> usize {
    std::env::var("NAGGER_REAL_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(10)
}

fn role_accuracy(version: &str, kind: Kind, mode: Mode) {
    let n = runs();
    let mut wrong = 0;
    let mut total = 0;
    let mut details = Vec::new();
    for run in 0..n {
        let a = parallel_roles_once(version, kind, mode);
        wrong += a.wrong;
        total += a.total;
        details.extend(a.details.into_iter().map(|d| format!("run {run}: {d}")));
    }
    let line = format!(
        "| {version} | {} | {} | {n} | {wrong} / {total} |",
        mode.name(),
        kind.name()
    );
    report_accuracy(&line);
    assert_eq!(
        wrong,
        0,
        "Claude Code {version}, {} subagents, {}: {wrong} of {total} got the wrong conventions:\n{}",
        mode.name(),
        kind.name(),
        details.join("\n")
    );
}

/// Prints past the test harness's capture and keeps the line for the README.
fn report_accuracy(line: &str) {
    let _ = writeln!(std::io::stderr(), "role accuracy (wrong / spawns): {line}");
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/real-client-accuracy.md");
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{line}");
    }
}

// ---------------------------------------------------------------- scenarios

/// The main agent's first tool call is refused with the session conventions, once.
fn main_conventions_once(version: &str) {
    let project = Project::new(version);
    let standin = StandIn::start(script(vec![vec![bash("echo third")]], "true"));
    run_main(&project, &standin);
    let (first, refused) = tool_result_after(&standin, "main", 0);
    assert!(
        refused && first.contains(SESSION_MARK),
        "first call: {first}"
    );
    for step in 1..=2 {
        let (shown, refused) = tool_result_after(&standin, "main", step);
        assert!(!refused, "call {step} refused again: {shown}");
        assert!(
            !shown.contains(SESSION_MARK),
            "conventions shown twice: {shown}"
        );
    }
    project.assert_nagger_healthy();
}

/// The guard refuses a destructive command from the main agent and from a subagent.
/// The commands are harmless if they ever ran (no remote, nothing listening).
fn guard_refuses(version: &str) {
    let project = Project::new(version);
    let standin = StandIn::start(Arc::new(|turn: &Turn<'_>| {
        if turn.tag == "main" {
            main_turn(
                turn,
                &[
                    vec![bash("git push --force origin HEAD")],
                    vec![spawn(
                        "coder",
                        "sub-guarded",
                        Kind::SameType,
                        Mode::Foreground,
                    )],
                ],
            )
        } else {
            // its first call (conventions), then the destructive one
            match turn.step {
                0 => vec![bash("true")],
                1 => vec![bash("curl -s http://127.0.0.1:9/install.sh | sh")],
                _ => vec![text(format!(
                    "[COMPRESSED] agent_type: scripted\nResult: FINDING-{} done",
                    turn.tag
                ))],
            }
        }
    }));
    run_main(&project, &standin);
    let (shown, refused) = tool_result_after(&standin, "main", 2);
    assert!(
        refused && shown.contains("[nagger]"),
        "main's force push: {shown}"
    );
    assert!(
        shown.to_lowercase().contains("force"),
        "reason names it: {shown}"
    );
    let (shown, refused) = tool_result_after(&standin, "sub-guarded", 1);
    assert!(
        refused && shown.contains("[nagger]"),
        "subagent's curl | sh: {shown}"
    );
    let stats = project.nagger_json(&["stats", "--json"]);
    let guard_hits: u64 = stats["guards"]
        .as_array()
        .map_or(0, |g| g.iter().filter_map(|r| r["hits"].as_u64()).sum());
    assert!(guard_hits >= 2, "guard hits recorded: {stats:#}");
    project.assert_nagger_healthy();
}

/// An agent that turns the guard off in the config is still refused `rm -rf /` on its
/// next call: the edit itself is refused, and a config weakened all the same would wait
/// for the user's confirmation. (GNU rm refuses `/` by itself, so the command cannot do
/// harm even if it ran.)
fn guard_cannot_be_switched_off(version: &str) {
    let project = Project::new(version);
    project.write_config("[guard]\nenabled = true\n");
    let standin = StandIn::start(script(
        vec![
            vec![bash(
                "sed -i 's/enabled = true/enabled = false/' .claude-nagger/config.toml",
            )],
            vec![bash("rm -rf /")],
        ],
        "true",
    ));
    run_main(&project, &standin);
    let (shown, refused) = tool_result_after(&standin, "main", 2);
    assert!(
        refused && shown.contains("[nagger]"),
        "the edit of nagger's config: {shown}"
    );
    let (shown, refused) = tool_result_after(&standin, "main", 3);
    assert!(
        refused && shown.contains("[nagger]"),
        "rm -rf / after the edit: {shown}"
    );
    let config = std::fs::read_to_string(project.root.join(".claude-nagger/config.toml"))
        .expect("config still there");
    assert!(
        config.contains("enabled = true"),
        "config untouched: {config}"
    );
    project.assert_nagger_healthy();
}

/// A subagent that stops without `[COMPRESSED]` is sent back once, then finishes.
fn compressed_report_enforced(version: &str) {
    let project = Project::new(version);
    let standin = StandIn::start(script(
        vec![vec![spawn(
            "coder",
            "sub-report",
            Kind::SameType,
            Mode::Foreground,
        )]],
        "true",
    ));
    run_main(&project, &standin);
    let conversation = standin.conversation("sub-report");
    let feedback: Vec<_> = conversation
        .iter()
        .filter(|r| {
            let shown = r.last_user_text();
            shown.contains("Stop hook feedback") && shown.contains("[nagger]")
        })
        .collect();
    assert_eq!(
        feedback.len(),
        1,
        "sent back exactly once: {}",
        conversation.len()
    );
    assert_eq!(
        feedback[0].step, 3,
        "after its final message without a report"
    );
    assert!(
        conversation.iter().all(|r| r.step <= 3),
        "the compressed report ended it: steps {:?}",
        conversation.iter().map(|r| r.step).collect::<Vec<_>>()
    );
    // The main agent received the compressed report.
    let main_after = standin
        .at("main", 3)
        .expect("main went on after the subagent");
    assert!(main_after.last_user_text().contains("FINDING-sub-report"));
    let stats = project.nagger_json(&["stats", "--json"]);
    assert!(
        stats["compressions_enforced"].as_u64() >= Some(1),
        "{stats:#}"
    );
    project.assert_nagger_healthy();
}

/// A subagent started after another one finished receives its result in its digest.
fn later_subagent_gets_digest(version: &str) {
    let project = Project::new(version);
    let standin = StandIn::start(script(
        vec![
            vec![spawn(
                "coder",
                "sub-first",
                Kind::SameType,
                Mode::Foreground,
            )],
            vec![spawn(
                "tester",
                "sub-later",
                Kind::SameType,
                Mode::Foreground,
            )],
        ],
        "true",
    ));
    run_main(&project, &standin);
    let first = standin.at("sub-later", 0).expect("the later subagent ran");
    assert!(
        first.all_text().contains("FINDING-sub-first"),
        "the later subagent was not shown the earlier one's result"
    );
    let earlier = standin.at("sub-first", 0).expect("the first subagent ran");
    assert!(!earlier.all_text().contains("FINDING-sub-later"));
    project.assert_nagger_healthy();
}

/// `/compact` then a resumed turn: the conventions are shown again and the main
/// agent is shown what its subagents found.
fn compaction_restores(version: &str) {
    let project = Project::new(version);
    let standin = StandIn::start(script(
        vec![vec![spawn(
            "coder",
            "sub-before",
            Kind::SameType,
            Mode::Foreground,
        )]],
        "true",
    ));
    let session = run_main(&project, &standin).session_id();
    let compact = project.run(&standin, "/compact", &["--resume", &session]);
    assert_eq!(
        compact.status, 0,
        "compact: {} {}",
        compact.stdout, compact.stderr
    );
    let resumed = project.run(&standin, "[SCRIPT:resumed] Go on.", &["--resume", &session]);
    assert_eq!(
        resumed.status, 0,
        "resume: {} {}",
        resumed.stdout, resumed.stderr
    );
    let first = standin.at("resumed", 0).expect("the resumed turn ran");
    if std::env::var_os("NAGGER_REAL_DEBUG").is_some() {
        let all: Vec<_> = standin.requests().iter().map(|r| r.body.clone()).collect();
        std::fs::write(
            "/tmp/compact-debug.json",
            serde_json::to_string_pretty(&all).unwrap(),
        )
        .unwrap();
        let _ = std::process::Command::new("cp")
            .arg("-r")
            .arg(&project.root)
            .arg(&project.home)
            .arg("/tmp/compact-debug/")
            .status();
    }
    assert!(
        first.all_text().contains("FINDING-sub-before"),
        "after compaction the main agent was not shown its subagents' results"
    );
    let (shown, refused) = tool_result_after(&standin, "resumed", 0);
    assert!(
        refused && (shown.contains(REPEATED_MARK) || shown.contains(SESSION_MARK)),
        "conventions not shown again after compaction: {shown}"
    );
    let sessions: Value = project.nagger_json(&["sessions", "--json"]);
    assert!(sessions.to_string().contains(&session), "{sessions:#}");
    project.assert_nagger_healthy();
}

/// nagger as a Claude Code plugin (`nagger plugin DIR`, loaded with `--plugin-dir`)
/// instead of settings entries: the same hooks run.
fn plugin_runs_the_hooks(version: &str) {
    let project = Project::without_hooks(version);
    let plugin = project.home.join("nagger-plugin");
    let out = project.nagger(&["plugin", plugin.to_str().unwrap()]);
    assert!(out.status.success(), "nagger plugin: {out:?}");
    let standin = StandIn::start(script(
        vec![vec![spawn(
            "tester",
            "sub-plugged",
            Kind::SameType,
            Mode::Foreground,
        )]],
        "true",
    ));
    let result = project.run(
        &standin,
        "[SCRIPT:main] Run the plan.",
        &["--plugin-dir", plugin.to_str().unwrap()],
    );
    assert_eq!(result.status, 0, "{} {}", result.stdout, result.stderr);
    let (shown, refused) = tool_result_after(&standin, "main", 0);
    assert!(
        refused && shown.contains(SESSION_MARK),
        "through the plugin: {shown}"
    );
    let (shown, refused) = tool_result_after(&standin, "sub-plugged", 0);
    assert!(
        refused && shown.contains(&role_mark("tester")),
        "the subagent through the plugin: {shown}"
    );
    project.assert_nagger_healthy();
}

// ---------------------------------------------------------------- skills

/// A git repository outside the project with an untracked `marker/` folder, which
/// `git -C <repo> clean -fdx` would delete.
fn marked_repo(project: &Project) -> std::path::PathBuf {
    let repo = project.home.join("other-repo");
    std::fs::create_dir_all(repo.join("marker")).unwrap();
    std::fs::write(repo.join("marker/keep.txt"), "keep").unwrap();
    let git = std::process::Command::new("git")
        .args(["init", "-q", "."])
        .current_dir(&repo)
        .status();
    assert!(git.is_ok_and(|s| s.success()), "git init");
    repo
}

/// A project with the skill `sweep` (a line the guard refuses: `git clean -fdx` of the
/// other repository) and the skill `note` (a harmless line that leaves a file).
fn skill_project(version: &str) -> (Project, std::path::PathBuf, std::path::PathBuf) {
    let project = Project::new(version);
    let repo = marked_repo(&project);
    let noted = project.home.join("noted");
    project.write(
        ".claude/skills/sweep/SKILL.md",
        &format!(
            "---\nname: sweep\ndescription: Cleans the other repository.\nallowed-tools: Bash(git:*)\n---\n\
             Cleaning: !`git -C {} clean -fdx`\nThen report.\n",
            repo.display()
        ),
    );
    project.write(
        ".claude/skills/note/SKILL.md",
        &format!(
            "---\nname: note\ndescription: Leaves a note.\nallowed-tools: Bash(touch:*)\n---\n\
             Noting: !`touch {}`\nThen report.\n",
            noted.display()
        ),
    );
    (project, repo, noted)
}

const SKILL_TOOLS: &str = "Bash Agent Skill";

/// `claude -p /name` as the user types it; the stand-in answers whatever comes.
fn typed(project: &Project, name: &str) -> RunResult {
    let standin = StandIn::start(Arc::new(|_: &Turn<'_>| vec![text("Noted.")]));
    project.run_tools_until(&standin, &format!("/{name}"), SKILL_TOOLS, &[], &|_| false)
}

/// The model calls the Skill tool for `name` (after a first call, which the session
/// conventions refuse), then ends; what it was shown for that call, and whether it was
/// an error.
fn called(project: &Project, name: &str) -> (String, bool) {
    let skill = name.to_string();
    let standin = StandIn::start(Arc::new(move |turn: &Turn<'_>| match turn.step {
        0 => vec![bash("true")],
        1 => vec![Block::Tool {
            name: "Skill".into(),
            input: json!({ "skill": skill }),
        }],
        _ => vec![text("Done.")],
    }));
    let finished = |s: &StandIn| s.at("main", 2).is_some();
    let result = project.run_tools_until(
        &standin,
        "[SCRIPT:main] Use the skill.",
        SKILL_TOOLS,
        &[],
        &finished,
    );
    assert_eq!(result.status, 0, "{} {}", result.stdout, result.stderr);
    tool_result_after(&standin, "main", 1)
}

/// What nagger logged for an event in this project: (result, details).
fn logged(project: &Project, event: &str) -> Vec<(String, Value)> {
    let conn = rusqlite::Connection::open(project.root.join(".claude-nagger/state.db")).unwrap();
    let mut stmt = conn
        .prepare("SELECT coalesce(result,''), coalesce(details,'null') FROM hook_log WHERE event_type = ?1 ORDER BY id")
        .unwrap();
    stmt.query_map([event], |r| {
        let d: String = r.get(1)?;
        Ok((r.get(0)?, serde_json::from_str(&d).unwrap_or(Value::Null)))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// The model calls a skill whose line the guard refuses: the Skill call is refused
/// with the line named, and the line never runs.
fn skill_called_by_the_model_is_refused(version: &str) {
    let (project, repo, _) = skill_project(version);
    let (shown, refused) = called(&project, "sweep");
    assert!(refused && shown.contains("[nagger]"), "{shown}");
    assert!(shown.contains("clean -fdx"), "the line is named: {shown}");
    assert!(repo.join("marker/keep.txt").exists(), "the line ran");
    let calls = logged(&project, "PreToolUse");
    assert!(
        calls
            .iter()
            .any(|(r, d)| r == "deny" && d["skill"]["refused"] == 1),
        "{calls:?}"
    );
    project.assert_nagger_healthy();
}

/// The user types a command whose line the guard refuses. 2.1.328 and later are stopped
/// before it expands; 2.1.68 runs a typed command's lines before any hook, so there
/// the prompt is stopped afterwards and nagger says the lines may have run.
fn skill_typed_by_the_user_is_refused(version: &str) {
    let (project, repo, _) = skill_project(version);
    let result = typed(&project, "sweep");
    let prompts = logged(&project, "UserPromptSubmit");
    assert_eq!(
        prompts.first().map(|p| p.0.as_str()),
        Some("block"),
        "{prompts:?}"
    );
    let survived = repo.join("marker/keep.txt").exists();
    if version == "2.1.68" {
        assert!(
            !survived,
            "2.1.68 was observed to run the line before UserPromptSubmit; if it no longer \
             does, nagger stops it and this test should say so"
        );
    } else {
        assert!(
            survived,
            "the line ran: {} {}",
            result.stdout, result.stderr
        );
        assert!(
            result.stdout.contains("clean -fdx"),
            "the refusal names the line: {}",
            result.stdout
        );
    }
    project.assert_nagger_healthy();
}

/// A harmless skill line still runs, typed and called.
fn harmless_skill_runs(version: &str) {
    let (project, _, noted) = skill_project(version);
    let result = typed(&project, "note");
    assert!(
        noted.exists(),
        "typed /note did not run its line: {} {}",
        result.stdout,
        result.stderr
    );
    std::fs::remove_file(&noted).unwrap();
    let (shown, refused) = called(&project, "note");
    assert!(!refused, "the harmless skill was refused: {shown}");
    assert!(
        noted.exists(),
        "the model's note did not run its line: {shown}"
    );
    if version == "2.1.332" {
        let lines = logged(&project, "PreSkillShellCommand");
        assert_eq!(lines.len(), 2, "one per load of the line: {lines:?}");
        assert!(lines.iter().all(|(r, _)| r == "none"), "{lines:?}");
        let by: Vec<&str> = lines
            .iter()
            .filter_map(|(_, d)| d["invoked_by"].as_str())
            .collect();
        assert_eq!(by, ["user", "claude"]);
    }
    project.assert_nagger_healthy();
}

/// A skill nagger cannot find (a plugin loaded with `--plugin-dir`, which no file lists)
/// is still refused line by line on a client that sends PreSkillShellCommand.
fn unlisted_plugin_skill_refused_by_its_line(version: &str) {
    let project = Project::new(version);
    let repo = marked_repo(&project);
    let plugin = project.home.join("tools-plugin");
    let write = |rel: &str, text: &str| {
        let path = plugin.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        ".claude-plugin/plugin.json",
        r#"{"name": "tools", "version": "1.0.0"}"#,
    );
    write(
        "commands/sweep.md",
        &format!(
            "---\ndescription: Cleans.\nallowed-tools: Bash(git:*)\n---\nCleaning: !`git -C {} clean -fdx`\n",
            repo.display()
        ),
    );
    let standin = StandIn::start(Arc::new(|_: &Turn<'_>| vec![text("Done.")]));
    let dir = plugin.display().to_string();
    let result = project.run_tools_until(
        &standin,
        "/tools:sweep",
        SKILL_TOOLS,
        &["--plugin-dir", &dir],
        &|_| false,
    );
    let lines = logged(&project, "PreSkillShellCommand");
    if version == "2.1.332" {
        assert!(
            repo.join("marker/keep.txt").exists(),
            "the line ran: {}",
            result.stdout
        );
        assert_eq!(
            lines.first().map(|l| l.0.as_str()),
            Some("deny"),
            "{lines:?}"
        );
    } else {
        // Older clients send no event for the line and nagger finds no file: it runs.
        assert!(lines.is_empty());
        assert!(!repo.join("marker/keep.txt").exists(), "{}", result.stdout);
    }
    project.assert_nagger_healthy();
}

on_every_version! {
    main_first_call_refused_with_conventions_once => main_conventions_once;
    guard_refuses_main_and_subagent => guard_refuses;
    guard_cannot_be_switched_off_by_the_agent => guard_cannot_be_switched_off;
    subagent_without_compressed_report_is_sent_back_once => compressed_report_enforced;
    later_subagent_receives_earlier_results => later_subagent_gets_digest;
    compact_then_resume_shows_conventions_and_results => compaction_restores;
    plugin_loaded_with_plugin_dir_runs_the_hooks => plugin_runs_the_hooks;
    skill_called_by_the_model_with_a_refused_line_is_refused => skill_called_by_the_model_is_refused;
    skill_typed_by_the_user_with_a_refused_line_is_refused => skill_typed_by_the_user_is_refused;
    harmless_skill_line_runs_typed_and_called => harmless_skill_runs;
    plugin_skill_nagger_cannot_find_is_refused_by_its_line => unlisted_plugin_skill_refused_by_its_line;
    roles_parallel_same_type_foreground => |v| role_accuracy(v, Kind::SameType, Mode::Foreground);
    roles_parallel_same_type_background => |v| role_accuracy(v, Kind::SameType, Mode::Background);
    roles_parallel_mixed_types_foreground => |v| role_accuracy(v, Kind::MixedTypes, Mode::Foreground);
    roles_parallel_mixed_types_background => |v| role_accuracy(v, Kind::MixedTypes, Mode::Background);
}
