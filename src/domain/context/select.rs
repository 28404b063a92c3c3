//! Which earlier results the digest offers: six bounded stages, filtered by
//! category, packed in whole entries under the character budget.

use super::consts::{LEADER, MAX_INJECTED_DIGEST};
use super::digest::{Audience, Digest, Picked, Stage, render};
use crate::domain::config::ContextConfig;
use crate::storage::store::{ContextEntry, FileChange, NaggerStateDB, StoreResult, TaskRecord};
use std::collections::HashSet;

/// Tags of entries that matter beyond their session (stage 3).
const NOTABLE_TAGS: [&str; 3] = ["decision", "blocker", "handoff"];

/// Most entries one stage may offer; the character budget usually binds first.
const STAGE_LIMIT: usize = 12;
const TASK_LIMIT: usize = 10;
const FILE_LIMIT: usize = 30;

/// The categories an agent of this role/type receives (`[context.filters]`, role
/// first): None = every category, `[]` = none.
pub fn categories_received(
    config: &ContextConfig,
    role: Option<&str>,
    agent_type: &str,
) -> Option<Vec<String>> {
    [role, Some(agent_type)]
        .into_iter()
        .flatten()
        .find_map(|name| config.filters.get(name).cloned())
}

/// The category of an agent's results: `[context.categories]` (role, then type),
/// else the built-in map, else `other`.
pub fn category_of(config: &ContextConfig, role: Option<&str>, agent_type: &str) -> String {
    let names = [role, Some(agent_type)];
    if let Some(c) = names
        .iter()
        .flatten()
        .find_map(|name| config.categories.get(*name))
    {
        return c.clone();
    }
    names
        .iter()
        .flatten()
        .find_map(|name| builtin_category(name))
        .unwrap_or("other")
        .to_string()
}

fn builtin_category(name: &str) -> Option<&'static str> {
    Some(match name.to_ascii_lowercase().as_str() {
        "explore" | "navigator" | "explorer" => "navigation",
        "coder" | "implementer" => "code_changes",
        "reviewer" => "review",
        "tester" | "qa" => "test",
        _ => return None,
    })
}

/// Selects and renders the digest for `audience`.
pub fn select(
    db: &NaggerStateDB,
    config: &ContextConfig,
    audience: &Audience<'_>,
) -> StoreResult<Digest> {
    let repo = db.context();
    let session = audience.session_id();
    let role = audience.role();
    let (own_role, exclude) = match audience {
        Audience::Subagent { role, agent_id, .. } => (*role, *agent_id),
        Audience::Main { .. } => (Some(LEADER), None),
    };
    let categories = categories_received(config, own_role, audience.agent_type());
    let cats = categories.as_deref();

    let mut candidates: Vec<(Stage, ContextEntry)> = Vec::new();
    let add =
        |candidates: &mut Vec<(Stage, ContextEntry)>, stage: Stage, found: Vec<ContextEntry>| {
            candidates.extend(found.into_iter().map(|e| (stage, e)));
        };
    if cats.is_none_or(|c| !c.is_empty()) {
        add(
            &mut candidates,
            Stage::Session,
            repo.session_results(session, exclude, cats, STAGE_LIMIT)?,
        );
        if matches!(audience, Audience::Subagent { .. }) {
            add(
                &mut candidates,
                Stage::SameRole,
                repo.role_history(role, session, cats, STAGE_LIMIT)?,
            );
        }
        add(
            &mut candidates,
            Stage::CrossSession,
            repo.tagged(&NOTABLE_TAGS, Some(session), cats, STAGE_LIMIT)?,
        );
        let role_tag = role.to_lowercase();
        add(
            &mut candidates,
            Stage::Tagged,
            repo.tagged(&[role_tag.as_str(), "all"], None, cats, STAGE_LIMIT)?,
        );
        if candidates.is_empty() {
            add(
                &mut candidates,
                Stage::Recent,
                repo.latest(cats, STAGE_LIMIT)?,
            );
        }
    }
    let tasks = repo.open_tasks(role, TASK_LIMIT)?;
    let files = match audience {
        Audience::Main { .. } => repo.files_changed(session, None, FILE_LIMIT)?,
        Audience::Subagent { .. } => Vec::new(),
    };
    Ok(pack(config, audience, categories, candidates, tasks, files))
}

/// Fits what was selected into the budget, in priority order (tasks, then entries
/// stage by stage, then files), whole items only, skipping duplicates; renders
/// the entries newest first.
fn pack(
    config: &ContextConfig,
    audience: &Audience<'_>,
    categories: Option<Vec<String>>,
    candidates: Vec<(Stage, ContextEntry)>,
    tasks: Vec<TaskRecord>,
    files: Vec<FileChange>,
) -> Digest {
    let budget = config.max_summary_chars.min(MAX_INJECTED_DIGEST);
    let mut digest = Digest {
        categories,
        ..Digest::default()
    };
    let fits = |d: &Digest| render(config, audience, d).chars().count() <= budget;
    for task in tasks {
        digest.tasks.push(task);
        if !fits(&digest) {
            digest.tasks.pop();
        }
    }
    let mut seen_ids = HashSet::new();
    let mut seen_hashes = HashSet::new();
    for (stage, entry) in candidates {
        if seen_ids.contains(&entry.id) || seen_hashes.contains(&entry.content_hash) {
            continue;
        }
        let picked = Picked { stage, entry };
        // Newest first: insert in place (created_at, then id, descending).
        let key = (picked.entry.created_at, picked.entry.id);
        let at = digest
            .entries
            .iter()
            .position(|p| (p.entry.created_at, p.entry.id) < key)
            .unwrap_or(digest.entries.len());
        digest.entries.insert(at, picked);
        if fits(&digest) {
            let e = &digest.entries[at].entry;
            seen_ids.insert(e.id);
            seen_hashes.insert(e.content_hash.clone());
        } else {
            digest.entries.remove(at);
        }
    }
    for file in files {
        digest.files.push(file);
        if !fits(&digest) {
            digest.files.pop();
            break;
        }
    }
    digest.text = render(config, audience, &digest);
    digest
}
