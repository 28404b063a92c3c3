//! `nagger context`: exactly what a new agent of a role would receive now (the
//! function the SubagentStart hook uses), or without `--role` what the main agent
//! gets back after a compaction. The session defaults to that of the latest hook run.

use super::common::{no_database, open_read_only};
use super::error::CommandResult;
use crate::base::output::Output;
use crate::base::paths::{self, Env};
use crate::domain::config::LoadedConfig;
use crate::domain::context::{self, Audience};
use crate::edge::cli::ContextArgs;
use anyhow::anyhow;
use serde_json::json;

pub fn run(env: &Env, args: &ContextArgs, out: &mut Output) -> CommandResult {
    let root = env.project_root(None);
    let config = LoadedConfig::load(&paths::config_path(&root)).config;
    let Some(db) = open_read_only(env)? else {
        return Ok(out.line(&if args.json {
            "null".to_string()
        } else {
            no_database(env)
        })?);
    };
    let session = match &args.session {
        Some(s) => {
            if !db.session_known(s)? {
                return Err(super::common::unknown_session(&db, s));
            }
            s.clone()
        }
        // The session of the latest hook run.
        None => db
            .hook_log()
            .recent(None, 20)
            .map_err(anyhow::Error::from)?
            .into_iter()
            .find_map(|row| row.session_id)
            .ok_or_else(|| anyhow!("no session recorded yet in {}", db.path().display()))?,
    };
    let role = args.role.as_deref().map(|r| context::role_for(&config, r));
    let injection = match (&args.role, &role) {
        (Some(agent_type), Some(role)) => context::for_subagent(
            &db,
            &config,
            &Audience::Subagent {
                session_id: &session,
                agent_id: None,
                agent_type,
                role: Some(role),
            },
            &context::report_path_placeholder(&root, &session, agent_type),
        ),
        _ => context::for_main(&db, &config, &session),
    }
    .map_err(anyhow::Error::from)?;
    if args.json {
        let value = json!({
            "session_id": session,
            "role": role.as_deref().unwrap_or(context::LEADER),
            "agent_type": args.role,
            "categories": injection.digest.categories,
            "entries": injection.digest.entries,
            "tasks": injection.digest.tasks,
            "files": injection.digest.files,
            "digest_chars": injection.digest.text.chars().count(),
            "max_summary_chars": config.context.max_summary_chars.min(context::MAX_INJECTED_DIGEST),
            "text": injection.text,
        });
        out.json(&value)?;
    } else if injection.text.is_empty() {
        out.line(&format!("nothing would be injected (session {session})"))?;
    } else {
        out.line(&injection.text)?;
    }
    Ok(())
}
