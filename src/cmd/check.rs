//! `nagger check`: which rules and guard checks would fire for a tool call, and
//! what nagger would answer. Reads the config; touches no state.

use super::{CommandResult, table};
use crate::cli::CheckArgs;
use crate::config::LoadedConfig;
use crate::paths::{self, Env};
use crate::rules::{self, MatchContext, PermissionMode, RuleSet};
use serde_json::{Value, json};

pub fn run(env: &Env, args: &CheckArgs) -> CommandResult {
    let root = env.project_root(None);
    let loaded = LoadedConfig::load_full(&paths::config_path(&root));
    for e in &loaded.errors {
        eprintln!("nagger: invalid config, checking with the defaults: {e}");
    }
    let input: Value = match (&args.command, &args.file, &args.input) {
        (Some(c), _, _) => json!({ "command": c }),
        (_, Some(f), _) => json!({ "file_path": f }),
        (_, _, Some(raw)) => {
            serde_json::from_str(raw).map_err(|e| anyhow::anyhow!("--input is not JSON: {e}"))?
        }
        _ => Value::Null,
    };
    let config = &loaded.config;
    let set = RuleSet::compile(&config.rules, &config.guard).map_err(anyhow::Error::from)?;
    let call = rules::ToolCall {
        tool_name: &args.tool,
        tool_input: &input,
    };
    let notes = set.notes(&call, &root);
    let matches = set.evaluate(
        &call,
        &MatchContext {
            project_root: &root,
            is_leader: args.role.is_none(),
            role: args.role.as_deref(),
            agent_type: args.role.as_deref(),
        },
    );
    let verdict = rules::combine(&matches, PermissionMode::from(args.mode.as_str()));
    if args.json {
        let out = json!({
            "tool": args.tool,
            "tool_input": input,
            "role": args.role,
            "matches": matches,
            "verdict": verdict,
            "notes": notes,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&out).map_err(anyhow::Error::from)?
        );
        return Ok(());
    }
    let print_notes = || {
        for note in &notes {
            println!("note: {note}");
        }
    };
    if matches.is_empty() {
        println!("no rule or guard fires: the call passes");
        print_notes();
        return Ok(());
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
    println!("{}", table(&["SEVERITY", "KIND", "RULE", "WHY"], &rows));
    if let Some(v) = verdict {
        let decision = match v.decision {
            rules::Decision::Deny => "deny",
            rules::Decision::Ask => "ask",
            rules::Decision::Context => "allow, with the message as context",
        };
        println!(
            "\nanswer: {decision} (block/ask/warn rules fire once per session; deny rules and \
             the guard every time)"
        );
        println!("{}", v.reason);
    }
    print_notes();
    Ok(())
}
