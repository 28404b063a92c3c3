//! `nagger agents`: what nagger knows about subagents.

use super::common::{age, no_database, open_read_only};
use super::error::CommandResult;
use crate::base::output::Output;
use crate::base::paths::Env;
use crate::base::table::table;
use crate::edge::cli::AgentsArgs;
use crate::storage::store::RoleSource;
use serde_json::json;

/// `meta_file (exact)`, `task_match (guess)`, with `, corrected` when a guess was replaced.
fn source_label(source: Option<RoleSource>, corrected: i64) -> String {
    let Some(source) = source else {
        return "-".into();
    };
    let source_name = source.as_str();
    let kind = if source.is_exact() { "exact" } else { "guess" };
    if corrected > 0 {
        format!("{source_name} ({kind}, corrected)")
    } else {
        format!("{source_name} ({kind})")
    }
}

pub fn run(env: &Env, args: &AgentsArgs, out: &mut Output) -> CommandResult {
    let Some(db) = open_read_only(env)? else {
        return Ok(out.line(&if args.json {
            "[]".to_string()
        } else {
            no_database(env)
        })?);
    };
    let repo = db.subagents();
    let session = args.session.as_deref();
    let active = repo.active(session).map_err(anyhow::Error::from)?;
    let finished = if args.all {
        repo.history(session, 1000).map_err(anyhow::Error::from)?
    } else {
        Vec::new()
    };
    if args.json {
        let mut items: Vec<_> = active
            .iter()
            .map(|a| {
                json!({
                    "agent_id": a.agent_id, "session_id": a.session_id, "agent_type": a.agent_type,
                    "role": a.role, "role_source": a.role_source,
                    "role_exact": a.role_source.is_some_and(RoleSource::is_exact),
                    "role_corrected": a.role_corrected, "start_role": a.start_role,
                    "status": "active",
                    "processed": a.startup_processed, "identified_by": a.claimed_by,
                    "registered_by": a.registered_by, "created_at": a.created_at,
                })
            })
            .collect();
        items.extend(finished.iter().map(|h| {
            json!({
                "agent_id": h.agent_id, "session_id": h.session_id, "agent_type": h.agent_type,
                "role": h.role, "role_source": h.role_source,
                "role_exact": h.role_source.is_some_and(RoleSource::is_exact),
                "role_corrected": h.role_corrected, "identified_by": h.claimed_by,
                "status": "finished",
                "created_at": h.started_at, "stopped_at": h.stopped_at,
                "duration_ms": h.duration_ms, "tokens": h.tokens,
            })
        }));
        return Ok(out.json(&items)?);
    }
    let mut rows: Vec<Vec<String>> = active
        .iter()
        .map(|a| {
            vec![
                a.agent_id.clone(),
                a.session_id.clone(),
                a.agent_type.clone(),
                a.role.clone().unwrap_or_else(|| "-".into()),
                source_label(a.role_source, a.role_corrected),
                if a.startup_processed {
                    format!("yes ({})", a.claimed_by.as_deref().unwrap_or("?"))
                } else {
                    "no".into()
                },
                "active".into(),
                age(a.created_at),
            ]
        })
        .collect();
    rows.extend(finished.iter().map(|h| {
        vec![
            h.agent_id.clone(),
            h.session_id.clone(),
            h.agent_type.clone(),
            h.role.clone().unwrap_or_else(|| "-".into()),
            source_label(h.role_source, h.role_corrected),
            h.claimed_by
                .as_deref()
                .map_or_else(|| "-".into(), |c| format!("yes ({c})")),
            format!("finished ({}s)", h.duration_ms / 1000),
            age(h.started_at),
        ]
    }));
    if rows.is_empty() {
        out.line(&format!(
            "no {}subagents",
            if args.all { "" } else { "active " }
        ))?;
    } else {
        out.line(&table(
            &[
                "AGENT",
                "SESSION",
                "TYPE",
                "ROLE",
                "ROLE SOURCE",
                "PROCESSED",
                "STATUS",
                "AGE",
            ],
            &rows,
        ))?;
    }
    Ok(())
}
