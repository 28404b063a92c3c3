//! The shared-context digest: what a starting subagent (or the main agent after a
//! compaction) is told about earlier agents' results, chosen in six bounded stages,
//! filtered by category, capped at `max_summary_chars` in whole entries, newest
//! first. Also where agents write their reports and how nagger reads them back.

use crate::compress;
use crate::config::{Config, ContextConfig, Delivery};
use crate::paths::{self, sanitize_component};
use crate::roles;
use crate::store::{ContextEntry, FileChange, NaggerStateDB, StoreResult, TaskRecord};
use serde::Serialize;
use std::collections::HashSet;
use std::io::{self, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

/// The role name of the main agent (rules speak of "leader" too).
pub const LEADER: &str = "leader";

/// The digest is cut well below the 10,000 characters at which Claude Code spills
/// injected text to a file, whatever `max_summary_chars` says.
pub const MAX_INJECTED_DIGEST: usize = 8000;

/// Tags of entries that matter beyond their session (stage 3).
const NOTABLE_TAGS: [&str; 3] = ["decision", "blocker", "handoff"];

/// Most entries one stage may offer; the character budget usually binds first.
const STAGE_LIMIT: usize = 12;
const TASK_LIMIT: usize = 10;
const FILE_LIMIT: usize = 30;
const FILES_PER_ENTRY: usize = 10;

/// Which selection stage an entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Results of this session's finished agents.
    Session,
    /// Earlier results of the same role in other sessions.
    SameRole,
    /// Decisions, blockers and handoffs from other sessions.
    CrossSession,
    /// Entries tagged with this role or `all`.
    Tagged,
    /// Fallback when 1-4 found nothing: the latest entries.
    Recent,
}

/// Who the digest is for.
#[derive(Debug, Clone, Copy)]
pub enum Audience<'a> {
    /// A subagent about to start.
    Subagent {
        session_id: &'a str,
        agent_id: Option<&'a str>,
        agent_type: &'a str,
        role: Option<&'a str>,
    },
    /// The main agent, after a compaction.
    Main { session_id: &'a str },
}

impl Audience<'_> {
    fn session_id(&self) -> &str {
        match self {
            Audience::Subagent { session_id, .. } | Audience::Main { session_id } => session_id,
        }
    }

    fn role(&self) -> &str {
        match self {
            Audience::Subagent {
                role, agent_type, ..
            } => role.unwrap_or(agent_type),
            Audience::Main { .. } => LEADER,
        }
    }

    fn agent_type(&self) -> &str {
        match self {
            Audience::Subagent { agent_type, .. } => agent_type,
            Audience::Main { .. } => LEADER,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Picked {
    pub stage: Stage,
    #[serde(flatten)]
    pub entry: PickedEntry,
}

#[derive(Debug, Clone, Serialize)]
pub struct PickedEntry {
    pub id: i64,
    pub session_id: String,
    pub agent_id: Option<String>,
    pub agent_type: Option<String>,
    pub role: Option<String>,
    pub category: String,
    pub content_hash: String,
    pub created_at: i64,
    pub content: String,
    pub files: Vec<String>,
}

impl From<ContextEntry> for PickedEntry {
    fn from(e: ContextEntry) -> Self {
        PickedEntry {
            id: e.id,
            session_id: e.session_id,
            agent_id: e.agent_id,
            agent_type: e.agent_type,
            role: e.role,
            category: e.category,
            content_hash: e.content_hash,
            created_at: e.created_at,
            content: e.content,
            files: e.files,
        }
    }
}

/// A selected digest and its text ("" when there is nothing to share).
#[derive(Debug, Clone, Default)]
pub struct Digest {
    /// The categories the audience receives; None: all.
    pub categories: Option<Vec<String>>,
    /// Newest first.
    pub entries: Vec<Picked>,
    pub tasks: Vec<TaskRecord>,
    /// Main agent only: what the session changed.
    pub files: Vec<FileChange>,
    pub text: String,
}

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
        let picked = Picked {
            stage,
            entry: entry.into(),
        };
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

/// The digest's text; "" when it holds nothing.
fn render(config: &ContextConfig, audience: &Audience<'_>, d: &Digest) -> String {
    if d.entries.is_empty() && d.tasks.is_empty() && d.files.is_empty() {
        return String::new();
    }
    let session = audience.session_id();
    let mut out = match audience {
        Audience::Subagent { .. } => String::from(
            "## Shared context (nagger)\nResults of agents that finished before you, newest \
             first. Build on them instead of redoing their work.",
        ),
        Audience::Main { .. } => String::from(
            "## Shared context (nagger)\nWhat this session's subagents reported, newest first \
             (restored after the compaction).",
        ),
    };
    for p in &d.entries {
        let e = &p.entry;
        let who = e
            .role
            .as_deref()
            .or(e.agent_type.as_deref())
            .unwrap_or("agent");
        let agent = e
            .agent_id
            .as_deref()
            .map(|a| format!(" {a}"))
            .unwrap_or_default();
        let place = if e.session_id == session {
            "this session".to_string()
        } else {
            format!("session {}", short(&e.session_id, 8))
        };
        out.push_str(&format!(
            "\n\n### {} · {who}{agent} · {place}\n{}",
            e.category,
            cut_chars(e.content.trim(), config.max_entry_chars)
        ));
        if !e.files.is_empty() {
            let shown: Vec<&str> = e
                .files
                .iter()
                .take(FILES_PER_ENTRY)
                .map(String::as_str)
                .collect();
            out.push_str(&format!("\nFiles written: {}", shown.join(", ")));
            if e.files.len() > FILES_PER_ENTRY {
                out.push_str(&format!(" (+{} more)", e.files.len() - FILES_PER_ENTRY));
            }
        }
    }
    if !d.tasks.is_empty() {
        out.push_str(&format!("\n\n### Open tasks for {}", audience.role()));
        for t in &d.tasks {
            out.push_str(&format!("\n- #{} {}", t.id, one_line(&t.title, 200)));
            if let Some(desc) = t.description.as_deref().filter(|d| !d.trim().is_empty()) {
                out.push_str(&format!(": {}", one_line(desc, 300)));
            }
        }
    }
    if !d.files.is_empty() {
        out.push_str("\n\n### Files changed in this session");
        for f in &d.files {
            let by = if f.agent_id.is_empty() {
                "main agent".to_string()
            } else {
                format!("agent {}", f.agent_id)
            };
            out.push_str(&format!("\n- {} ({}, {by})", f.path, f.tool));
        }
    }
    out
}

/// What a context injection consists of, and its final text.
#[derive(Debug, Clone, Default)]
pub struct Injection {
    /// The conventions section, when delivered as context at SubagentStart.
    pub conventions: Option<String>,
    pub digest: Digest,
    /// Where to write the report, and the compressed format.
    pub instruction: Option<String>,
    /// Exactly the additionalContext (empty: nothing is injected).
    pub text: String,
}

/// What a subagent receives at SubagentStart: its conventions (delivery =
/// "context"), the digest, and where to write its report. `report_path` is shown
/// as is (the hook passes the real path, `nagger context` a placeholder).
pub fn for_subagent(
    db: &NaggerStateDB,
    config: &Config,
    audience: &Audience<'_>,
    report_path: &str,
) -> StoreResult<Injection> {
    let Audience::Subagent {
        agent_type, role, ..
    } = *audience
    else {
        return for_main(db, config, audience.session_id());
    };
    let conventions = config
        .role_conventions(role, agent_type)
        .filter(|(_, rc)| rc.delivery.unwrap_or(config.session.delivery) == Delivery::Context)
        .map(|(_, rc)| format!("[nagger] {}", rc.message().render()));
    let mut injection = Injection {
        conventions,
        ..Injection::default()
    };
    if config.context.enabled {
        injection.digest = select(db, &config.context, audience)?;
        let mut instruction = format!(
            "---\n[nagger] When you finish, write your report to {report_path} (what you found, \
             files you changed, decisions, open problems); agents that start after you receive it."
        );
        if compress::applies(&config.compress, agent_type, role) {
            let reviewer = compress::is_reviewer(&config.compress, agent_type, role);
            instruction.push('\n');
            instruction.push_str(&compress::start_instruction(
                &config.compress,
                agent_type,
                reviewer,
            ));
        }
        injection.instruction = Some(instruction);
    }
    injection.text = [
        injection.conventions.as_deref(),
        Some(injection.digest.text.as_str()).filter(|t| !t.is_empty()),
        injection.instruction.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join("\n\n");
    Ok(injection)
}

/// What the main agent receives after a compaction: the session's digest.
pub fn for_main(db: &NaggerStateDB, config: &Config, session_id: &str) -> StoreResult<Injection> {
    if !config.context.enabled {
        return Ok(Injection::default());
    }
    let digest = select(db, &config.context, &Audience::Main { session_id })?;
    Ok(Injection {
        text: digest.text.clone(),
        digest,
        ..Injection::default()
    })
}

/// The role a new agent of `name` would get (what `nagger context --role` shows).
pub fn role_for(config: &Config, name: &str) -> String {
    roles::normalize(name, &config.role_resolution)
}

// ── report files under .claude-nagger/context/ ──

/// `.claude-nagger/context`: the only folder nagger reads reports from or writes to.
pub fn context_root(project_root: &Path) -> PathBuf {
    paths::state_dir(project_root).join("context")
}

/// An id as one file-name component, one to one: an id that is already a safe
/// component stays as it is; any other is sanitised and marked with `~` (which no safe
/// component holds) and a short hash of the id, so `x/y` and `x_y` never meet.
pub fn file_component(id: &str) -> String {
    let safe = sanitize_component(id);
    if safe == id {
        return safe;
    }
    let digest = crate::transcript::prompt_hash(id);
    format!("{safe}~{}", &digest[..8])
}

/// `.claude-nagger/context/<session>/`, the session id sanitised.
pub fn session_dir(project_root: &Path, session_id: &str) -> PathBuf {
    context_root(project_root).join(file_component(session_id))
}

/// `.claude-nagger/context/<session>/<type>-<agent_id>.md`, every id sanitised.
pub fn report_path(
    project_root: &Path,
    session_id: &str,
    agent_type: &str,
    agent_id: &str,
) -> PathBuf {
    session_dir(project_root, session_id).join(format!(
        "{}-{}.md",
        file_component(agent_type),
        file_component(agent_id)
    ))
}

/// The report path shown by `nagger context`, with the agent id left open.
pub fn report_path_placeholder(project_root: &Path, session_id: &str, agent_type: &str) -> String {
    session_dir(project_root, session_id)
        .join(format!("{}-<agent_id>.md", file_component(agent_type)))
        .display()
        .to_string()
}

/// Whether `path` lies inside the context folder, by its components: no `..`, no
/// root or prefix after the folder.
pub fn is_inside_context(project_root: &Path, path: &Path) -> bool {
    let root = context_root(project_root);
    path.strip_prefix(&root).is_ok_and(|rest| {
        rest.components().count() > 0
            && rest.components().all(|c| matches!(c, Component::Normal(_)))
    })
}

/// Whether `path` is a directory itself, not a symlink to one.
fn is_real_dir(path: &Path) -> io::Result<bool> {
    Ok(std::fs::symlink_metadata(path)?.is_dir())
}

/// The folder is a real directory inside the real context folder (no symlink
/// anywhere on the way out of `.claude-nagger/context`, nor in place of
/// `.claude-nagger` or its `context` folder).
fn real_dir_inside(project_root: &Path, dir: &Path) -> io::Result<bool> {
    let root = context_root(project_root);
    if !is_real_dir(&paths::state_dir(project_root))? || !is_real_dir(&root)? {
        return Ok(false);
    }
    let dir_meta = std::fs::symlink_metadata(dir)?;
    if !dir_meta.is_dir() {
        return Ok(false);
    }
    let real_root = std::fs::canonicalize(&root)?;
    let real_dir = std::fs::canonicalize(dir)?;
    Ok(real_dir.starts_with(&real_root) && real_dir != real_root)
}

/// Reads an agent's report, at most `max_bytes`: None when there is none, or when the
/// path, a symlink or the folder would lead outside `.claude-nagger/context/`.
pub fn read_report(project_root: &Path, path: &Path, max_bytes: u64) -> io::Result<Option<String>> {
    if !is_inside_context(project_root, path) {
        return Ok(None);
    }
    let Some(dir) = path.parent() else {
        return Ok(None);
    };
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    // A hard link to a file elsewhere would bring that file's contents in.
    if !meta.is_file() || meta.nlink() != 1 || !real_dir_inside(project_root, dir)? {
        return Ok(None);
    }
    let file = open_no_follow(path)?;
    // Still the file checked above, not one swapped in since.
    let opened = file.metadata()?;
    if !opened.is_file() || opened.ino() != meta.ino() || opened.dev() != meta.dev() {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    file.take(max_bytes).read_to_end(&mut bytes)?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Opens a file for reading without following a symlink in its place and without
/// blocking on a FIFO or a device.
fn open_no_follow(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    #[cfg(target_os = "linux")]
    const FLAGS: i32 = 0o400000 | 0o4000; // O_NOFOLLOW | O_NONBLOCK
    #[cfg(not(target_os = "linux"))]
    const FLAGS: i32 = 0x0100 | 0x0004; // O_NOFOLLOW | O_NONBLOCK on the BSDs and macOS
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(FLAGS)
        .open(path)
}

/// Creates one folder (never its parents), refusing anything but a real directory in
/// its place.
fn make_real_dir(dir: &Path) -> io::Result<()> {
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            if is_real_dir(dir)? {
                Ok(())
            } else {
                Err(io::Error::other(format!(
                    "{} is not a folder: a symlink or a file in its place leads outside",
                    dir.display()
                )))
            }
        }
        Err(e) => Err(e),
    }
}

/// Creates `.claude-nagger/context/<session>/` (for the agents' reports) and
/// returns it, refusing one that leads outside through a symlink. Only
/// `.claude-nagger` and the folders inside it are created, one at a time: never the
/// project's folder or anything above it.
pub fn ensure_session_dir(project_root: &Path, session_id: &str) -> io::Result<PathBuf> {
    let dir = session_dir(project_root, session_id);
    if !is_inside_context(project_root, &dir) {
        return Err(io::Error::other(
            "session folder outside the context folder",
        ));
    }
    if !is_real_dir(project_root)? {
        return Err(io::Error::other(format!(
            "{} is not a folder",
            project_root.display()
        )));
    }
    make_real_dir(&paths::state_dir(project_root))?;
    make_real_dir(&context_root(project_root))?;
    make_real_dir(&dir)?;
    if !real_dir_inside(project_root, &dir)? {
        return Err(io::Error::other(format!(
            "{} leads outside the context folder",
            dir.display()
        )));
    }
    Ok(dir)
}

/// Writes `.claude-nagger/context/<session>/_summary.md` atomically (a symlink in
/// its place is replaced, never followed).
pub fn write_summary(project_root: &Path, session_id: &str, text: &str) -> io::Result<PathBuf> {
    let dir = ensure_session_dir(project_root, session_id)?;
    let path = dir.join("_summary.md");
    let mut tmp = tempfile::NamedTempFile::new_in(&dir)?;
    tmp.write_all(text.as_bytes())?;
    tmp.persist(&path).map_err(|e| e.error)?;
    Ok(path)
}

/// Removes session folders under `.claude-nagger/context/` untouched for `ttl`.
/// Symlinks are left alone. Returns how many were removed.
pub fn purge_report_dirs(project_root: &Path, ttl: std::time::Duration) -> io::Result<usize> {
    let root = context_root(project_root);
    let entries = match std::fs::read_dir(&root) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let now = std::time::SystemTime::now();
    let mut removed = 0;
    for entry in entries.flatten() {
        let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
            continue;
        };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > ttl);
        if meta.is_dir() && old && std::fs::remove_dir_all(entry.path()).is_ok() {
            removed += 1;
        }
    }
    Ok(removed)
}

/// The session's `_summary.md`: every result stored for it, by category, and the
/// files changed.
pub fn session_summary(
    session_id: &str,
    entries: &[ContextEntry],
    files: &[FileChange],
    ended_at: &str,
) -> String {
    let mut out = format!(
        "# Shared Context Summary\n> Session: {session_id}\n> Updated: {ended_at}\n> Entries: {}\n",
        entries.len()
    );
    let mut categories: Vec<&str> = entries.iter().map(|e| e.category.as_str()).collect();
    categories.sort_unstable();
    categories.dedup();
    for category in categories {
        out.push_str(&format!("\n## {category}\n"));
        for e in entries.iter().filter(|e| e.category == category) {
            let who = e
                .role
                .as_deref()
                .or(e.agent_type.as_deref())
                .unwrap_or("agent");
            let agent = e.agent_id.as_deref().unwrap_or("-");
            out.push_str(&format!("\n### {who} {agent}\n{}\n", e.content.trim()));
            if !e.files.is_empty() {
                out.push_str(&format!("Files written: {}\n", e.files.join(", ")));
            }
        }
    }
    if !files.is_empty() {
        out.push_str("\n## Files changed\n");
        for f in files {
            let by = if f.agent_id.is_empty() {
                "main agent"
            } else {
                f.agent_id.as_str()
            };
            out.push_str(&format!("- {} ({} ×{}, {by})\n", f.path, f.tool, f.changes));
        }
    }
    out
}

/// `path` relative to the project when it lies inside it.
pub fn project_relative(project_root: &Path, path: &str) -> String {
    Path::new(path)
        .strip_prefix(project_root)
        .ok()
        .filter(|rest| !rest.as_os_str().is_empty())
        .map(|rest| rest.display().to_string())
        .unwrap_or_else(|| path.to_string())
}

/// The first `max` characters, with `…` when something was cut.
pub fn cut_chars(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn one_line(s: &str, max: usize) -> String {
    cut_chars(&s.split_whitespace().collect::<Vec<_>>().join(" "), max)
}

fn short(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::NewContextEntry;
    use std::collections::BTreeMap;

    fn config(filters: &[(&str, &[&str])], max_summary_chars: usize) -> ContextConfig {
        ContextConfig {
            max_summary_chars,
            filters: filters
                .iter()
                .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
                .collect::<BTreeMap<_, _>>(),
            ..ContextConfig::default()
        }
    }

    fn db() -> (tempfile::TempDir, NaggerStateDB) {
        let dir = tempfile::tempdir().unwrap();
        let db = NaggerStateDB::open(&dir.path().join("state.db")).unwrap();
        (dir, db)
    }

    fn store(db: &NaggerStateDB, session: &str, agent: &str, role: &str, content: &str) {
        let c = ContextConfig::default();
        let category = category_of(&c, Some(role), role);
        db.context()
            .insert(&NewContextEntry {
                session_id: session,
                agent_id: Some(agent),
                agent_type: Some(role),
                role: Some(role),
                category: &category,
                content,
                ..Default::default()
            })
            .unwrap();
    }

    fn sub<'a>(session: &'a str, role: &'a str) -> Audience<'a> {
        Audience::Subagent {
            session_id: session,
            agent_id: None,
            agent_type: role,
            role: Some(role),
        }
    }

    #[test]
    fn categories_come_from_config_then_builtin_map() {
        let mut c = ContextConfig::default();
        assert_eq!(category_of(&c, Some("navigator"), "x"), "navigation");
        assert_eq!(category_of(&c, None, "Explore"), "navigation");
        assert_eq!(
            category_of(&c, Some("coder"), "general-purpose"),
            "code_changes"
        );
        assert_eq!(category_of(&c, None, "implementer"), "code_changes");
        assert_eq!(category_of(&c, None, "reviewer"), "review");
        assert_eq!(category_of(&c, Some("qa"), "x"), "test");
        assert_eq!(category_of(&c, None, "general-purpose"), "other");
        c.categories
            .insert("researcher".into(), "navigation".into());
        c.categories.insert("coder".into(), "patches".into());
        assert_eq!(category_of(&c, None, "researcher"), "navigation");
        assert_eq!(category_of(&c, Some("coder"), "coder"), "patches");
    }

    #[test]
    fn filters_absent_type_gets_all_and_empty_list_gets_nothing() {
        let c = config(&[("coder", &["navigation"]), ("navigator", &[])], 4000);
        assert_eq!(
            categories_received(&c, Some("coder"), "x"),
            Some(vec!["navigation".into()])
        );
        assert_eq!(categories_received(&c, None, "navigator"), Some(vec![]));
        assert_eq!(categories_received(&c, Some("tester"), "tester"), None);
    }

    #[test]
    fn coder_receives_navigation_navigator_nothing_reviewer_both() {
        let (_d, db) = db();
        store(
            &db,
            "s",
            "nav-1",
            "navigator",
            "[COMPRESSED] nav found src/auth.rs",
        );
        store(
            &db,
            "s",
            "cod-1",
            "coder",
            "[COMPRESSED] coder changed src/auth.rs",
        );
        store(&db, "s", "rev-1", "reviewer", "[COMPRESSED] review PASS");
        let c = config(
            &[
                ("coder", &["navigation"]),
                ("reviewer", &["navigation", "code_changes"]),
                ("navigator", &[]),
            ],
            4000,
        );
        let coder = select(&db, &c, &sub("s", "coder")).unwrap();
        assert!(coder.text.contains("nav found") && !coder.text.contains("coder changed"));
        let navigator = select(&db, &c, &sub("s", "navigator")).unwrap();
        assert_eq!(navigator.text, "");
        let reviewer = select(&db, &c, &sub("s", "reviewer")).unwrap();
        assert!(reviewer.text.contains("nav found") && reviewer.text.contains("coder changed"));
        assert!(!reviewer.text.contains("review PASS"));
        let order: Vec<&str> = reviewer
            .entries
            .iter()
            .map(|p| p.entry.agent_id.as_deref().unwrap())
            .collect();
        assert_eq!(order, ["cod-1", "nav-1"], "newest first");
    }

    #[test]
    fn digest_is_capped_in_whole_entries() {
        let (_d, db) = db();
        for i in 0..10 {
            store(
                &db,
                "s",
                &format!("a{i}"),
                "navigator",
                &format!("entry {i} {}", "x".repeat(300)),
            );
        }
        let c = config(&[], 1000);
        let d = select(&db, &c, &sub("s", "coder")).unwrap();
        assert!(d.text.chars().count() <= 1000, "{}", d.text.len());
        assert!(!d.entries.is_empty() && d.entries.len() < 10);
        for p in &d.entries {
            assert!(
                d.text.contains(&p.entry.content),
                "entry {} is whole",
                p.entry.id
            );
        }
        let tiny = config(&[], 10);
        assert_eq!(select(&db, &tiny, &sub("s", "coder")).unwrap().text, "");
    }

    #[test]
    fn other_sessions_contribute_same_role_and_decisions_and_tagged() {
        let (_d, db) = db();
        store(&db, "old", "c0", "coder", "old coder result");
        store(&db, "old", "n0", "navigator", "old nav result");
        let decision = vec!["decision".to_string()];
        let for_coder = vec!["coder".to_string()];
        for (content, tags) in [
            ("we chose sqlite", &decision),
            ("coder: mind the WAL", &for_coder),
        ] {
            db.context()
                .insert(&NewContextEntry {
                    session_id: "old",
                    agent_id: Some("x"),
                    category: "other",
                    content,
                    tags,
                    ..Default::default()
                })
                .unwrap();
        }
        let d = select(&db, &config(&[], 4000), &sub("new", "coder")).unwrap();
        let stages: Vec<(Stage, &str)> = d
            .entries
            .iter()
            .map(|p| (p.stage, p.entry.content.as_str()))
            .collect();
        assert!(
            stages.contains(&(Stage::SameRole, "old coder result")),
            "{stages:?}"
        );
        assert!(
            stages.contains(&(Stage::CrossSession, "we chose sqlite")),
            "{stages:?}"
        );
        assert!(
            stages.contains(&(Stage::Tagged, "coder: mind the WAL")),
            "{stages:?}"
        );
        assert!(
            !stages.iter().any(|(_, c)| *c == "old nav result"),
            "not stage 1-4, and 1-4 found some"
        );
        let fallback = select(&db, &config(&[], 4000), &sub("new", "tester")).unwrap();
        assert!(fallback.entries.iter().all(|p| p.stage != Stage::SameRole));
        let d2 = select(
            &db,
            &config(&[("tester", &["navigation"])], 4000),
            &sub("new", "tester"),
        )
        .unwrap();
        assert_eq!(d2.entries.len(), 1);
        assert_eq!(d2.entries[0].stage, Stage::Recent);
    }

    #[test]
    fn open_tasks_of_the_role_are_listed() {
        let (_d, db) = db();
        db.context()
            .add_task("coder", "fix login", Some("users see 500"))
            .unwrap();
        db.context()
            .add_task("reviewer", "review auth", None)
            .unwrap();
        let d = select(&db, &config(&[], 4000), &sub("s", "coder")).unwrap();
        assert!(
            d.text
                .contains("### Open tasks for coder\n- #1 fix login: users see 500"),
            "{}",
            d.text
        );
        assert!(!d.text.contains("review auth"));
    }

    #[test]
    fn report_paths_stay_inside_the_context_folder() {
        let root = Path::new("/p");
        let p = report_path(root, "../../s", "../x", "../../etc/x");
        assert!(is_inside_context(root, &p), "{}", p.display());
        let name = p.strip_prefix("/p/.claude-nagger/context/").unwrap();
        let parts: Vec<&str> = name.to_str().unwrap().split('/').collect();
        assert_eq!(parts.len(), 2, "{}", p.display());
        assert!(parts[0].starts_with("_._.._s~"), "{}", p.display());
        assert!(parts[1].starts_with("_._x~") && parts[1].contains("-_._.._etc_x~"));
        assert!(!is_inside_context(
            root,
            Path::new("/p/.claude-nagger/context/../state.db")
        ));
        assert!(!is_inside_context(root, &context_root(root)));
    }

    #[cfg(unix)]
    #[test]
    fn reports_behind_symlinks_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        assert!(
            ensure_session_dir(&root, "s").is_err(),
            "a missing project is not made"
        );
        std::fs::create_dir(&root).unwrap();
        std::fs::write(outside.join("secret.md"), "secret").unwrap();
        let sdir = ensure_session_dir(&root, "s").unwrap();
        std::os::unix::fs::symlink(outside.join("secret.md"), sdir.join("coder-a.md")).unwrap();
        let path = report_path(&root, "s", "coder", "a");
        assert_eq!(read_report(&root, &path, 1000).unwrap(), None);
        std::os::unix::fs::symlink(&outside, context_root(&root).join("t")).unwrap();
        let via_dir = report_path(&root, "t", "secret", "x");
        assert_eq!(read_report(&root, &via_dir, 1000).unwrap(), None);
        assert!(ensure_session_dir(&root, "t").is_err());
        std::fs::write(sdir.join("coder-b.md"), "mine").unwrap();
        assert_eq!(
            read_report(&root, &report_path(&root, "s", "coder", "b"), 2)
                .unwrap()
                .as_deref(),
            Some("mi")
        );
    }

    #[test]
    fn file_names_are_one_to_one() {
        let root = Path::new("/p");
        let names: Vec<PathBuf> = [
            ("s", "coder", "x/y"),
            ("s", "coder", "x_y"),
            ("s", "coder", "x_y~0000000"),
            ("s/t", "coder", "a"),
            ("s_t", "coder", "a"),
        ]
        .iter()
        .map(|(s, t, a)| report_path(root, s, t, a))
        .collect();
        let unique: HashSet<&PathBuf> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        assert_eq!(
            report_path(root, "6f1c-4e", "code-reviewer", "a1b2c3"),
            Path::new("/p/.claude-nagger/context/6f1c-4e/code-reviewer-a1b2c3.md")
        );
    }

    #[cfg(unix)]
    #[test]
    fn hard_linked_reports_and_a_linked_context_folder_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir(&root).unwrap();
        let sdir = ensure_session_dir(&root, "s").unwrap();
        std::fs::write(outside.join("secret"), "secret").unwrap();
        let path = report_path(&root, "s", "coder", "a");
        std::fs::hard_link(outside.join("secret"), &path).unwrap();
        assert_eq!(read_report(&root, &path, 1000).unwrap(), None);
        std::fs::remove_dir_all(&sdir).unwrap();
        std::fs::remove_dir(context_root(&root)).unwrap();
        std::os::unix::fs::symlink(&outside, context_root(&root)).unwrap();
        assert!(ensure_session_dir(&root, "s2").is_err());
        assert!(write_summary(&root, "s2", "x").is_err());
        assert_eq!(
            std::fs::read_dir(&outside).unwrap().count(),
            1,
            "nothing made outside"
        );
    }

    #[test]
    fn cut_chars_counts_characters_not_bytes() {
        assert_eq!(cut_chars("ééé", 3), "ééé");
        assert_eq!(cut_chars("éééé", 3), "éé…");
    }
}
