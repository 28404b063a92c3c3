//! `nagger sessions`: the sessions nagger knows.

use super::common::{age, no_database, open_read_only};
use super::error::CommandResult;
use crate::base::output::Output;
use crate::base::paths::Env;
use crate::base::table::table;
use serde_json::json;

pub fn run(env: &Env, as_json: bool, out: &mut Output) -> CommandResult {
    let Some(db) = open_read_only(env)? else {
        return Ok(out.line(&if as_json {
            "[]".to_string()
        } else {
            no_database(env)
        })?);
    };
    let mut rows = Vec::new();
    let mut items = Vec::new();
    for listing in db.session_listings(1000)? {
        let (s, active, finished) = (
            &listing.info,
            listing.active_agents,
            listing.finished_agents,
        );
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
        out.json(&items)?;
    } else if rows.is_empty() {
        out.line("no sessions yet")?;
    } else {
        out.line(&table(
            &[
                "SESSION",
                "STATUS",
                "SOURCE",
                "STARTED",
                "SEEN",
                "COMPACTIONS",
                "ACTIVE",
                "FINISHED",
            ],
            &rows,
        ))?;
    }
    Ok(())
}
