//! `nagger check`: which rules and guard checks would fire for a tool call, and what
//! nagger would answer. Reads the config; touches no state. The exit code is the answer,
//! so a script can ask before it runs something.

use super::{CommandError, CommandResult, print, table};
use crate::cli::CheckArgs;
use crate::config::LoadedConfig;
use crate::paths::{self, Env};
use crate::rules::{self, Decision, MatchContext, PermissionMode, RuleSet};
use serde_json::{Value, json};

/// Exit code: nagger would refuse the call.
pub const EXIT_REFUSE: u8 = 3;
/// Exit code: nagger would ask the user.
pub const EXIT_ASK: u8 = 4;

pub fn run(env: &Env, args: &CheckArgs) -> CommandResult {
    let root = env.project_root(None);
    let loaded = LoadedConfig::load_full(&paths::config_path(&root));
    for e in &loaded.errors {
        eprintln!("config: {e}");
    }
    let input: Value = match (&args.command, &args.file, &args.input) {
        (Some(c), _, _) => json!({ "command": c }),
        (_, Some(f), _) => json!({ "file_path": f }),
        (_, _, Some(raw)) => match serde_json::from_str(raw) {
            Ok(value) => value,
            Err(e) => {
                // A usage error, like any other bad value on the command line.
                eprintln!("error: --input is not JSON: {e}");
                return Err(CommandError::Answer(2));
            }
        },
        _ => Value::Null,
    };
    let config = &loaded.config;
    let call = rules::ToolCall {
        tool_name: &args.tool,
        tool_input: &input,
    };
    let ctx = MatchContext {
        project_root: &root,
        is_leader: args.role.is_none(),
        role: args.role.as_deref(),
        agent_type: args.role.as_deref(),
    };
    let set = RuleSet::compile(&config.rules, &config.guard).map_err(anyhow::Error::from)?;
    let matches = set.evaluate(&call, &ctx);
    let notes = set.notes(&call, &root);
    let verdict = rules::combine(&matches, PermissionMode::from(args.mode.as_str()));

    let guard_off = !config.guard.enabled;

    let (answer, code) = match verdict.as_ref().map(|v| v.decision) {
        Some(Decision::Deny) => ("refuse", EXIT_REFUSE),
        Some(Decision::Ask) => ("ask the user", EXIT_ASK),
        Some(Decision::Context) => ("passes, with the message as context", 0),
        None => ("passes", 0),
    };
    if args.json {
        let out = json!({
            "tool": args.tool,
            "tool_input": input,
            "role": args.role,
            "mode": args.mode,
            "matches": matches,
            "verdict": verdict,
            "answer": answer,
            "exit_code": code,
            "guard_enabled": !guard_off,
            "notes": notes,
            "config_problems": loaded.errors.len(),
        });
        print(&serde_json::to_string_pretty(&out).map_err(anyhow::Error::from)?)?;
    } else {
        let mut lines: Vec<String> = notes.iter().map(|n| format!("note: {n}")).collect();
        if matches.is_empty() {
            lines.push("no rule or guard check fires".into());
        } else {
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
            lines.push(table(&["SEVERITY", "KIND", "RULE", "WHY"], &rows));
        }
        let mode = if args.mode == "default" {
            String::new()
        } else {
            format!(" in {} mode", args.mode)
        };
        lines.push(format!("answer: {answer}{mode} (exit {code})"));
        if let Some(v) = &verdict {
            lines.push(v.reason.clone());
            lines.push(
                "(deny fires every time; block, ask and warn once per session, again after the context grew)"
                    .into(),
            );
        }
        print(&lines.join("\n"))?;
    }
    match code {
        0 => Ok(()),
        code => Err(CommandError::Answer(code)),
    }
}
