//! `nagger check`: which rules and guard checks would fire for a tool call, and what
//! nagger would answer. Reads the config; touches no state. The exit code is the answer,
//! so a script can ask before it runs something. `--error` and `--added` ask instead what
//! nagger would say after the call: the recovery hints for a failure, the after-edit
//! checks for the text an edit added.

use super::error::{CommandError, CommandResult, EXIT_ASK, EXIT_ERROR, EXIT_REFUSE};
use crate::base::decision::Decision;
use crate::base::mode::PermissionMode;
use crate::base::output::{Output, warn};
use crate::base::paths::{self, Env};
use crate::base::table::table;
use crate::domain::config::{ConfigError, LoadedConfig};
use crate::domain::rules::after_edit::{self, AfterEditSet};
use crate::domain::rules::recovery::RecoverySet;
use crate::domain::rules::{self, MatchContext, RuleSet};
use crate::domain::trust;
use crate::edge::cli::CheckArgs;
use serde_json::{Value, json};

pub fn run(env: &Env, args: &CheckArgs, out: &mut Output) -> CommandResult {
    let root = env.project_root(None);
    let mut loaded = LoadedConfig::load_full(&paths::config_path(&root));
    for e in &loaded.errors {
        warn(&format!("config: {e}"));
    }
    // Checked as a hook would: with the settings the user last trusted still in force.
    let trust = trust::settle(&mut loaded.config, &loaded.path, trust::Ratchet::ReadOnly);
    // The program the hook entries run is the one the hook protects, whichever nagger
    // answers here: the file itself, as the hook knows its own program (a link on PATH,
    // as pipx and uv install it, is the file it leads to).
    let home = crate::base::paths::home_dir();
    loaded.config.guard.binary = super::doctor::nagger_programs(&root, home.as_deref())
        .into_iter()
        .next()
        .map(|p| std::fs::canonicalize(&p).unwrap_or(p))
        .map(|p| p.to_string_lossy().into_owned())
        .or_else(crate::edge::hook::running_binary);
    if args.error.is_some() || args.added.is_some() {
        return after_the_fact(args, &loaded, &root, out);
    }
    let input: Value = match (&args.command, &args.file, &args.input) {
        (Some(c), _, _) => json!({ "command": c }),
        (_, Some(f), _) => json!({ "file_path": f }),
        (_, _, Some(raw)) => match serde_json::from_str(raw) {
            Ok(value) => value,
            // A usage error, like any other bad value on the command line.
            Err(e) => return Err(CommandError::Usage(format!("--input is not JSON: {e}"))),
        },
        _ => Value::Null,
    };
    let config = &loaded.config;
    let call = rules::ToolCall {
        tool_name: &args.tool,
        tool_input: &input,
    };
    // Without `--cwd`, the folder `check` runs in when it is in the project (a gate such
    // as `nagger check --command "$cmd" && $cmd` judges the line where it runs), else the
    // project's root.
    let here = std::env::current_dir().ok();
    let cwd = match &args.cwd {
        Some(dir) => Some(here.map_or_else(|| dir.clone(), |here| here.join(dir))),
        None => here.filter(|h| h.starts_with(&root) && *h != root),
    };
    let ctx = match_context(args, &root, cwd.as_deref());
    let set = RuleSet::compile(&config.rules, &config.guard)
        .map_err(|e| CommandError::Config(e.to_string()))?;
    let matches = set.evaluate(&call, &ctx);
    let mut notes = set.notes(&call, &root);
    if let Some(held) = trust.summary() {
        notes.push(format!(
            "the config weakens safety ({held}) and waits for your confirmation (`nagger trust` in your terminal); checked with the settings last trusted"
        ));
    }
    let verdict = rules::combine(&matches, &args.mode);

    let guard_off = !config.guard.enabled;

    let (answer, code) = match verdict.as_ref().map(|v| v.decision) {
        Some(Decision::Deny) => ("refuse", EXIT_REFUSE),
        Some(Decision::Ask) => ("ask the user", EXIT_ASK),
        Some(Decision::Context) => ("passes, with the message as context", 0),
        None => ("passes", 0),
    };
    let broken = if code == 0 {
        weakening(&loaded, Event::PreToolUse)
    } else {
        Vec::new()
    };
    let (answer, code) = if broken.is_empty() {
        (answer, code)
    } else {
        (UNSURE, EXIT_ERROR)
    };
    if args.json {
        out.json(&json!({
            "tool": args.tool,
            "tool_input": input,
            "role": args.role,
            "mode": args.mode.as_str(),
            "matches": matches,
            "verdict": verdict,
            "answer": answer,
            "exit_code": code,
            "guard_enabled": !guard_off,
            "notes": notes,
            "config_problems": loaded.errors.len(),
            "broken": broken.iter().map(ToString::to_string).collect::<Vec<_>>(),
        }))?;
    } else {
        let mut lines: Vec<String> = notes.iter().map(|n| format!("note: {n}")).collect();
        lines.push(matches_table(&matches, "no rule or guard check fires"));
        let mode = if args.mode == PermissionMode::Default {
            String::new()
        } else {
            format!(" in {} mode", args.mode)
        };
        lines.push(format!("answer: {answer}{mode} (exit {code})"));
        lines.extend(broken_lines(&broken));
        if let Some(v) = &verdict {
            lines.push(v.reason.clone());
            lines.push(
                "(deny fires every time; block, ask and warn once per session, again after the context grew)"
                    .into(),
            );
        }
        out.line(&lines.join("\n"))?;
    }
    answer_with(code, &broken)
}

/// The answer when the config has a broken part that could have refused the call.
const UNSURE: &str = "cannot say: the config has a broken rule that could refuse this call";

/// Which moment a check is about, for which broken parts of the config matter to it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Event {
    PreToolUse,
    AfterEdit,
}

/// The config problems that may have taken away a refusal `check` would otherwise report
/// for `event`: while one stands, "passes" would be a guess.
fn weakening(loaded: &LoadedConfig, event: Event) -> Vec<&ConfigError> {
    loaded
        .errors
        .iter()
        .filter(|e| e.may_weaken)
        .filter(|e| {
            let key = e.key.as_deref().unwrap_or("");
            let after_edit = key.starts_with("rules.after_edit");
            match event {
                Event::PreToolUse => !after_edit,
                Event::AfterEdit => {
                    after_edit || !key.starts_with("rules.") && !key.starts_with("guard")
                }
            }
        })
        .collect()
}

/// What is broken, and what to do, for the human report.
fn broken_lines(broken: &[&ConfigError]) -> Vec<String> {
    if broken.is_empty() {
        return Vec::new();
    }
    let mut lines: Vec<String> = broken.iter().map(|e| format!("  broken: {e}")).collect();
    lines
        .push("fix the config (`nagger doctor` lists every problem), then check again".to_string());
    lines
}

/// The tool input an editing tool would carry for an edit of `file` that added `added`.
fn edit_input(tool: &str, file: &str, added: &str) -> Option<Value> {
    Some(match tool {
        "Write" => json!({ "file_path": file, "content": added }),
        "Edit" => json!({ "file_path": file, "old_string": "", "new_string": added }),
        "MultiEdit" => {
            json!({ "file_path": file, "edits": [{ "old_string": "", "new_string": added }] })
        }
        "NotebookEdit" => json!({ "notebook_path": file, "new_source": added }),
        _ => return None,
    })
}

/// `--error`: the recovery hints a failure of `--tool` would get. `--added`: the
/// after-edit checks an edit of `--file` would get. Exit 3 when an after-edit check
/// would send the edit back (block), else 0.
fn after_the_fact(
    args: &CheckArgs,
    loaded: &LoadedConfig,
    root: &std::path::Path,
    out: &mut Output,
) -> CommandResult {
    let config = &loaded.config;
    let ctx = match_context(args, root, None);
    let (event, matches) = match (&args.error, &args.added, &args.file) {
        (Some(error), _, _) => (
            "PostToolUseFailure",
            RecoverySet::new(&config.rules).evaluate(&args.tool, error, &ctx),
        ),
        (None, Some(added), Some(file)) => {
            let Some(edit) = edit_input(&args.tool, file, added)
                .and_then(|input| after_edit::added(&args.tool, &input))
            else {
                return Err(CommandError::Usage(
                    "--added needs --tool Write, Edit, MultiEdit or NotebookEdit".into(),
                ));
            };
            (
                "PostToolUse",
                AfterEditSet::new(&config.rules.after_edit).evaluate(&edit, &ctx),
            )
        }
        _ => {
            return Err(CommandError::Usage(
                "--error TEXT, or --added TEXT with --file".into(),
            ));
        }
    };
    let verdict = rules::combine(&matches, &args.mode);
    let (answer, code) = match verdict.as_ref().map(|v| v.decision) {
        Some(Decision::Deny) => ("sent back to the agent to fix (block)", EXIT_REFUSE),
        Some(_) => ("shown to the agent with the result", 0),
        None => ("nothing is added", 0),
    };
    // A recovery hint never refuses; an after-edit check may send the edit back.
    let broken = if code == 0 && args.added.is_some() {
        weakening(loaded, Event::AfterEdit)
    } else {
        Vec::new()
    };
    let (answer, code) = if broken.is_empty() {
        (answer, code)
    } else {
        (
            "cannot say: the config has a broken after-edit rule that could send the edit back",
            EXIT_ERROR,
        )
    };
    if args.json {
        out.json(&json!({
            "tool": args.tool,
            "event": event,
            "error": args.error,
            "file": args.file,
            "added": args.added,
            "role": args.role,
            "mode": args.mode.as_str(),
            "matches": matches,
            "verdict": verdict,
            "answer": answer,
            "exit_code": code,
            "builtin_recovery": config.rules.builtin_recovery,
            "config_problems": loaded.errors.len(),
            "broken": broken.iter().map(ToString::to_string).collect::<Vec<_>>(),
        }))?;
    } else {
        let mut lines = Vec::new();
        let none = if args.error.is_some() {
            "no recovery hint fires"
        } else {
            "no after-edit check fires"
        };
        lines.push(matches_table(&matches, none));
        lines.push(format!("answer at {event}: {answer} (exit {code})"));
        lines.extend(broken_lines(&broken));
        if let Some(v) = &verdict {
            lines.push(v.reason.clone());
            lines.push("(once per session per rule, again after the context grew)".into());
        }
        out.line(&lines.join("\n"))?;
    }
    answer_with(code, &broken)
}

/// The matches as a table, or `none` when there are none.
fn matches_table(matches: &[rules::RuleMatch], none: &str) -> String {
    if matches.is_empty() {
        return none.to_string();
    }
    let rows: Vec<Vec<String>> = matches
        .iter()
        .map(|m| {
            vec![
                m.severity.as_str().to_string(),
                m.kind.as_str().to_string(),
                m.name.clone(),
                m.why.clone(),
            ]
        })
        .collect();
    table(&["SEVERITY", "KIND", "RULE", "WHY"], &rows)
}

/// The answer as the command's ending: its exit code is the answer.
fn answer_with(code: u8, broken: &[&ConfigError]) -> CommandResult {
    match code {
        EXIT_REFUSE => Err(CommandError::WouldRefuse),
        EXIT_ASK => Err(CommandError::WouldAsk),
        EXIT_ERROR => Err(CommandError::Config(format!(
            "{} broken rule setting{} could refuse this call; no answer until fixed",
            broken.len(),
            if broken.len() == 1 { "" } else { "s" }
        ))),
        _ => Ok(()),
    }
}

/// The caller `--role` names (default: the main agent).
fn match_context<'a>(
    args: &'a CheckArgs,
    root: &'a std::path::Path,
    cwd: Option<&'a std::path::Path>,
) -> MatchContext<'a> {
    MatchContext {
        project_root: root,
        cwd,
        is_leader: args.role.is_none(),
        role: args.role.as_deref(),
        agent_type: args.role.as_deref(),
    }
}
