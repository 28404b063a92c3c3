//! `nagger task`: tasks assigned to roles, the last stage of the shared-context
//! digest (new agents of the role are told about open ones).

use super::common::{age, no_database, open_db, open_read_only};
use super::error::{CommandError, CommandResult};
use crate::base::output::Output;
use crate::base::paths::{self, Env};
use crate::base::table::table;
use crate::domain::config::LoadedConfig;
use crate::domain::context;
use crate::edge::cli::TaskCommand;
use crate::storage::store::TaskDone;
use serde_json::json;

pub fn run(env: &Env, command: TaskCommand, out: &mut Output) -> CommandResult {
    if let TaskCommand::List { all, json, .. } = &command {
        return list(env, *all, *json, out);
    }
    let db = open_db(env)?;
    let repo = db.context();
    match command {
        TaskCommand::List { .. } => unreachable!("listed above"),
        TaskCommand::Add {
            role,
            title,
            description,
            ..
        } => {
            if title.trim().is_empty() {
                return Err(anyhow::anyhow!("a task needs a title").into());
            }
            let root = env.project_root(None);
            let config = LoadedConfig::load(&paths::config_path(&root)).config;
            // Stored under the role agents resolve to, so `coder-2` reaches coders.
            let role = context::role_for(&config, role.trim());
            let description = description.filter(|d| !d.trim().is_empty());
            let id = repo
                .add_task(&role, title.trim(), description.as_deref())
                .map_err(anyhow::Error::from)?;
            out.line(&format!("task #{id} added for {role}"))?;
        }
        TaskCommand::Done { id, .. } => match repo.finish_task(id).map_err(anyhow::Error::from)? {
            TaskDone::Done => out.line(&format!("task #{id} done"))?,
            TaskDone::AlreadyDone => out.line(&format!("task #{id} was already done"))?,
            TaskDone::Missing => {
                return Err(CommandError::Problems(format!("no task #{id}")));
            }
        },
    }
    Ok(())
}

/// `task list`: reads only.
fn list(env: &Env, all: bool, json: bool, out: &mut Output) -> CommandResult {
    let Some(db) = open_read_only(env)? else {
        return Ok(out.line(&if json {
            "[]".to_string()
        } else {
            no_database(env)
        })?);
    };
    let repo = db.context();
    let tasks = repo.tasks(all).map_err(anyhow::Error::from)?;
    if json {
        let items: Vec<_> = tasks
            .iter()
            .map(|t| {
                json!({
                    "id": t.id, "role": t.role, "title": t.title,
                    "description": t.description, "status": t.status,
                    "created_at": t.created_at, "done_at": t.done_at,
                })
            })
            .collect();
        out.json(&items)?;
    } else if tasks.is_empty() {
        out.line(&format!("no {}tasks", if all { "" } else { "open " }))?;
    } else {
        let rows: Vec<Vec<String>> = tasks
            .iter()
            .map(|t| {
                vec![
                    format!("#{}", t.id),
                    t.role.clone(),
                    t.status.clone(),
                    age(t.created_at),
                    t.title.clone(),
                ]
            })
            .collect();
        out.line(&table(&["ID", "ROLE", "STATUS", "AGE", "TITLE"], &rows))?;
    }
    Ok(())
}
