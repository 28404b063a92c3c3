//! `nagger sessions`: the sessions nagger knows.

use super::{CommandResult, age, no_database, open_read_only, print, table};
use crate::paths::Env;
use serde_json::json;

pub fn run(env: &Env, as_json: bool) -> CommandResult {
    let Some(db) = open_read_only(env)? else {
        return print(&if as_json {
            "[]".to_string()
        } else {
            no_database(env)
        });
    };
    let sessions = db.sessions().list(1000).map_err(anyhow::Error::from)?;
    let conn = db.conn();
    let mut rows = Vec::new();
    let mut items = Vec::new();
    for s in &sessions {
        let (active, finished): (i64, i64) = conn
            .query_row(
                "SELECT (SELECT count(*) FROM subagents WHERE session_id = ?1),
                        (SELECT count(*) FROM subagent_history WHERE session_id = ?1)",
                [&s.session_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(anyhow::Error::from)?;
        let status = if s.ended_at.is_some() {
            "ended"
        } else {
            "active"
        };
        items.push(json!({
            "session_id": s.session_id, "status": status, "source": s.source,
            "started_at": s.started_at, "last_seen_at": s.last_seen_at, "ended_at": s.ended_at,
            "end_reason": s.end_reason, "compactions": s.compactions,
            "active_agents": active, "finished_agents": finished,
        }));
        rows.push(vec![
            s.session_id.clone(),
            status.to_string(),
            s.source.clone().unwrap_or_default(),
            age(s.started_at),
            age(s.last_seen_at),
            s.compactions.to_string(),
            active.to_string(),
            finished.to_string(),
        ]);
    }
    if as_json {
        println!(
            "{}",
            serde_json::to_string_pretty(&items).map_err(anyhow::Error::from)?
        );
    } else if rows.is_empty() {
        println!("no sessions yet");
    } else {
        println!(
            "{}",
            table(
                &[
                    "SESSION",
                    "STATUS",
                    "SOURCE",
                    "STARTED",
                    "SEEN",
                    "COMPACTIONS",
                    "ACTIVE",
                    "FINISHED"
                ],
                &rows
            )
        );
    }
    Ok(())
}
