//! Shared context between agents: context_entries (what finished agents found or
//! changed), file_changes (what PostToolUse saw written) and tasks (work assigned
//! to a role). Every digest stage is one bounded, indexed query.

use super::db::{NaggerStateDB, now_ms};
use super::error::StoreResult;
use rusqlite::{Connection, OptionalExtension, Row, params};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// A result to store.
#[derive(Debug, Clone, Default)]
pub struct NewContextEntry<'a> {
    pub session_id: &'a str,
    pub agent_id: Option<&'a str>,
    pub agent_type: Option<&'a str>,
    pub role: Option<&'a str>,
    pub category: &'a str,
    pub content: &'a str,
    pub tags: &'a [String],
    pub files: &'a [String],
    pub tokens: Option<i64>,
}

/// One row of context_entries, as every reader gets it (the digest, the session
/// summary, the dashboard): read by [`ContextEntry::from_row`] alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextEntry {
    pub id: i64,
    pub session_id: String,
    pub agent_id: Option<String>,
    pub agent_type: Option<String>,
    pub role: Option<String>,
    pub category: String,
    pub content: String,
    pub tags: Vec<String>,
    pub files: Vec<String>,
    pub tokens: Option<i64>,
    pub content_hash: String,
    pub created_at: i64,
}

const ENTRY_COLUMNS: &str = "id, session_id, agent_id, agent_type, role, category, content, tags, \
     files, tokens, content_hash, created_at";

impl ContextEntry {
    fn from_row(r: &Row<'_>) -> rusqlite::Result<Self> {
        let tags: String = r.get(7)?;
        let files: String = r.get(8)?;
        Ok(ContextEntry {
            id: r.get(0)?,
            session_id: r.get(1)?,
            agent_id: r.get(2)?,
            agent_type: r.get(3)?,
            role: r.get(4)?,
            category: r.get(5)?,
            content: r.get(6)?,
            tags: split_tags(&tags),
            // A damaged files column loses the list, not the entry.
            files: serde_json::from_str(&files).unwrap_or_default(),
            tokens: r.get(9)?,
            content_hash: r.get(10)?,
            created_at: r.get(11)?,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TaskRecord {
    pub id: i64,
    pub role: String,
    pub title: String,
    pub description: Option<String>,
    pub status: String,
    pub created_at: i64,
    pub done_at: Option<i64>,
}

const TASK_COLUMNS: &str = "id, role, title, description, status, created_at, done_at";

impl TaskRecord {
    fn from_row(r: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(TaskRecord {
            id: r.get(0)?,
            role: r.get(1)?,
            title: r.get(2)?,
            description: r.get(3)?,
            status: r.get(4)?,
            created_at: r.get(5)?,
            done_at: r.get(6)?,
        })
    }
}

/// What `finish_task` found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskDone {
    Done,
    AlreadyDone,
    Missing,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FileChange {
    pub agent_id: String,
    pub path: String,
    pub tool: String,
    pub changes: i64,
    pub last_at: i64,
}

/// The categories a digest may draw from: `None` is every category.
pub type Categories<'a> = Option<&'a [String]>;

pub struct ContextRepository<'c> {
    conn: &'c Connection,
}

impl NaggerStateDB {
    pub fn context(&self) -> ContextRepository<'_> {
        ContextRepository::new(&self.conn)
    }
}

impl<'c> ContextRepository<'c> {
    pub fn new(conn: &'c Connection) -> Self {
        ContextRepository { conn }
    }

    /// Stores a result unless the session already has the same one (same content
    /// and files). Returns the new row's id, or None for a duplicate.
    pub fn insert(&self, entry: &NewContextEntry<'_>) -> StoreResult<Option<i64>> {
        let files = serde_json::to_string(entry.files).unwrap_or_else(|_| "[]".into());
        let hash = content_hash(entry.content, entry.files);
        let tags = join_tags(entry.tags);
        let id = self
            .conn
            .prepare_cached(
                "INSERT INTO context_entries (session_id, agent_id, agent_type, role, category, content,
                                              tags, files, tokens, content_hash, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                 ON CONFLICT(session_id, content_hash) DO NOTHING RETURNING id",
            )?
            .query_row(
                params![
                    entry.session_id,
                    entry.agent_id,
                    entry.agent_type,
                    entry.role,
                    entry.category,
                    entry.content,
                    tags,
                    files,
                    entry.tokens,
                    hash,
                    now_ms()
                ],
                |r| r.get(0),
            )
            .optional()?;
        Ok(id)
    }

    /// Stage 1: results of the session's finished agents, newest first.
    pub fn session_results(
        &self,
        session_id: &str,
        exclude_agent: Option<&str>,
        categories: Categories<'_>,
        limit: usize,
    ) -> StoreResult<Vec<ContextEntry>> {
        let mut filter = Filter::default()
            .and("session_id = ?", [session_id])
            .and("agent_id IS NOT NULL", []);
        if let Some(agent) = exclude_agent {
            filter = filter.and("agent_id != ?", [agent]);
        }
        self.entries(filter.categories(categories), limit)
    }

    /// Stage 2: earlier results of the same role in other sessions of the project.
    pub fn role_history(
        &self,
        role: &str,
        other_than_session: &str,
        categories: Categories<'_>,
        limit: usize,
    ) -> StoreResult<Vec<ContextEntry>> {
        let mut filter = Filter::default()
            .and("role = ?", [role])
            .and("session_id != ?", [other_than_session])
            .categories(categories);
        if categories.is_some() {
            // Left to itself, SQLite walks every entry of the role newest first (the
            // order it wants) to find the few of these categories: 3.6 ms at 2,000.
            filter.index = Some("idx_context_role_category");
        }
        self.entries(filter, limit)
    }

    /// Stages 3 and 4: entries carrying any of `tags`, optionally outside a session.
    pub fn tagged(
        &self,
        any_of: &[&str],
        other_than_session: Option<&str>,
        categories: Categories<'_>,
        limit: usize,
    ) -> StoreResult<Vec<ContextEntry>> {
        // `tags != ''` lets SQLite walk the partial index of tagged entries only.
        let mut filter = Filter::default().and("tags != ''", []);
        if let Some(session) = other_than_session {
            filter = filter.and("session_id != ?", [session]);
        }
        let whole_tags: Vec<String> = any_of.iter().map(|t| format!(",{t},")).collect();
        let any = vec!["instr(',' || tags || ',', ?) > 0"; whole_tags.len()].join(" OR ");
        let filter = filter.and(
            &format!("({})", if any.is_empty() { "0" } else { &any }),
            whole_tags.iter().map(String::as_str),
        );
        self.entries(filter.categories_filter_only(categories), limit)
    }

    /// Stage 5: the project's latest entries.
    pub fn latest(
        &self,
        categories: Categories<'_>,
        limit: usize,
    ) -> StoreResult<Vec<ContextEntry>> {
        self.entries(Filter::default().categories(categories), limit)
    }

    /// The newest entries of one session, or of the project (`None`), whatever their
    /// category: what the dashboard lists.
    pub fn newest(&self, session_id: Option<&str>, limit: usize) -> StoreResult<Vec<ContextEntry>> {
        let mut filter = Filter::default();
        if let Some(session) = session_id {
            filter = filter.and("session_id = ?", [session]);
        }
        self.entries(filter, limit)
    }

    pub fn session_count(&self, session_id: &str) -> StoreResult<i64> {
        Ok(self.conn.query_row(
            "SELECT count(*) FROM context_entries WHERE session_id = ?1",
            [session_id],
            |r| r.get(0),
        )?)
    }

    /// Entries matching `filter`, newest first, at most `limit`. The SQL holds only the
    /// conditions that apply (no `?1 IS NULL OR …`, no json_each: every one of them is
    /// compiled by each hook process that runs the query), and the limit is written into
    /// it: a bound LIMIT after ORDER BY makes SQLite compile the statement a second time
    /// once the value is bound.
    fn entries(&self, filter: Filter<'_>, limit: usize) -> StoreResult<Vec<ContextEntry>> {
        let condition = if filter.sql.is_empty() {
            "1".to_string()
        } else {
            filter.sql.join(" AND ")
        };
        let indexed = filter
            .index
            .map(|i| format!(" INDEXED BY {i}"))
            .unwrap_or_default();
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {ENTRY_COLUMNS} FROM context_entries{indexed} WHERE {condition}
             ORDER BY created_at DESC, id DESC LIMIT {limit}"
        ))?;
        let rows = stmt.query_map(
            rusqlite::params_from_iter(filter.params),
            ContextEntry::from_row,
        )?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    // ── tasks (digest stage 6) ──

    pub fn add_task(&self, role: &str, title: &str, description: Option<&str>) -> StoreResult<i64> {
        Ok(self.conn.query_row(
            "INSERT INTO tasks (role, title, description, created_at) VALUES (?1, ?2, ?3, ?4) RETURNING id",
            params![role, title, description, now_ms()],
            |r| r.get(0),
        )?)
    }

    /// Open tasks of a role, newest first.
    pub fn open_tasks(&self, role: &str, limit: usize) -> StoreResult<Vec<TaskRecord>> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {TASK_COLUMNS} FROM tasks WHERE role = ?1 AND status = 'open'
             ORDER BY id DESC LIMIT {limit}"
        ))?;
        let rows = stmt.query_map(params![role], TaskRecord::from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every task (open ones first, then done), oldest first within each.
    pub fn tasks(&self, include_done: bool) -> StoreResult<Vec<TaskRecord>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {TASK_COLUMNS} FROM tasks WHERE ?1 OR status = 'open'
             ORDER BY status = 'done', id"
        ))?;
        let rows = stmt.query_map([include_done], TaskRecord::from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn finish_task(&self, id: i64) -> StoreResult<TaskDone> {
        let changed = self.conn.execute(
            "UPDATE tasks SET status = 'done', done_at = ?2 WHERE id = ?1 AND status = 'open'",
            params![id, now_ms()],
        )?;
        if changed == 1 {
            return Ok(TaskDone::Done);
        }
        let exists = self
            .conn
            .query_row("SELECT 1 FROM tasks WHERE id = ?1", [id], |_| Ok(()))
            .optional()?;
        Ok(if exists.is_some() {
            TaskDone::AlreadyDone
        } else {
            TaskDone::Missing
        })
    }

    // ── file changes (PostToolUse) ──

    /// Records one write of `path` by an agent (`""`: the main agent).
    pub fn record_file_change(
        &self,
        session_id: &str,
        agent_id: &str,
        path: &str,
        tool: &str,
    ) -> StoreResult<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO file_changes (session_id, agent_id, path, tool, first_at, last_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5)
                 ON CONFLICT(session_id, agent_id, path) DO UPDATE SET
                     changes = changes + 1, tool = excluded.tool, last_at = excluded.last_at",
            )?
            .execute(params![session_id, agent_id, path, tool, now_ms()])?;
        Ok(())
    }

    /// Files changed in the session, most recently changed first; one agent's
    /// (`""`: the main agent's) or everyone's.
    pub fn files_changed(
        &self,
        session_id: &str,
        agent_id: Option<&str>,
        limit: usize,
    ) -> StoreResult<Vec<FileChange>> {
        // LIMIT as a literal: see `entries`.
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT agent_id, path, tool, changes, last_at FROM file_changes
             WHERE session_id = ?1 AND (?2 IS NULL OR agent_id = ?2)
             ORDER BY last_at DESC, path LIMIT {limit}"
        ))?;
        let rows = stmt.query_map(params![session_id, agent_id], |r| {
            Ok(FileChange {
                agent_id: r.get(0)?,
                path: r.get(1)?,
                tool: r.get(2)?,
                changes: r.get(3)?,
                last_at: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

/// sha256 of the content and its files, first 16 bytes in hex: equal results
/// share it, so a duplicate is neither stored twice nor shown twice.
pub fn content_hash(content: &str, files: &[String]) -> String {
    let mut h = Sha256::new();
    h.update(content.as_bytes());
    for f in files {
        h.update([0u8]);
        h.update(f.as_bytes());
    }
    h.finalize()
        .iter()
        .take(16)
        .fold(String::with_capacity(32), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        })
}

/// Tags are stored lowercase, comma separated, without blanks or empties.
pub fn join_tags(tags: &[String]) -> String {
    let mut out: Vec<String> = Vec::new();
    for t in tags {
        let t: String = t
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| !c.is_whitespace() && *c != ',')
            .collect();
        if !t.is_empty() && !out.contains(&t) {
            out.push(t);
        }
    }
    out.join(",")
}

fn split_tags(tags: &str) -> Vec<String> {
    tags.split(',')
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// The conditions of a context query that apply, each with its `?` parameters in order.
#[derive(Default)]
struct Filter<'a> {
    sql: Vec<String>,
    params: Vec<&'a str>,
    /// The index the query must use, where SQLite's own choice is known to be slow.
    index: Option<&'static str>,
}

impl<'a> Filter<'a> {
    fn and(mut self, condition: &str, params: impl IntoIterator<Item = &'a str>) -> Self {
        self.sql.push(condition.to_string());
        self.params.extend(params);
        self
    }

    /// Only these categories; `None` is every category (no condition at all).
    fn categories(self, categories: Categories<'a>) -> Self {
        self.categories_as("category", categories)
    }

    /// The category condition as a filter only (`+category`): the query walks another
    /// index, newest first, and must not be planned as "every row of these categories,
    /// then sort".
    fn categories_filter_only(self, categories: Categories<'a>) -> Self {
        self.categories_as("+category", categories)
    }

    fn categories_as(self, column: &str, categories: Categories<'a>) -> Self {
        match categories {
            None => self,
            Some(list) => {
                let marks = vec!["?"; list.len()].join(", ");
                self.and(
                    &format!("{column} IN ({marks})"),
                    list.iter().map(String::as_str),
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::db::NaggerStateDB;
    use super::*;

    fn db() -> (tempfile::TempDir, NaggerStateDB) {
        let dir = tempfile::tempdir().unwrap();
        let db = NaggerStateDB::open(&dir.path().join("state.db")).unwrap();
        (dir, db)
    }

    fn entry<'a>(
        session: &'a str,
        agent: &'a str,
        category: &'a str,
        content: &'a str,
    ) -> NewContextEntry<'a> {
        NewContextEntry {
            session_id: session,
            agent_id: Some(agent),
            agent_type: Some("navigator"),
            role: Some("navigator"),
            category,
            content,
            ..Default::default()
        }
    }

    #[test]
    fn same_result_twice_in_a_session_is_stored_once() {
        let (_d, db) = db();
        let repo = db.context();
        assert!(
            repo.insert(&entry("s", "a", "navigation", "found x"))
                .unwrap()
                .is_some()
        );
        assert!(
            repo.insert(&entry("s", "b", "navigation", "found x"))
                .unwrap()
                .is_none()
        );
        assert!(
            repo.insert(&entry("t", "c", "navigation", "found x"))
                .unwrap()
                .is_some()
        );
        assert_eq!(repo.session_count("s").unwrap(), 1);
    }

    #[test]
    fn session_results_filter_by_category_and_come_newest_first() {
        let (_d, db) = db();
        let repo = db.context();
        for (i, cat) in ["navigation", "code_changes", "navigation", "review"]
            .iter()
            .enumerate()
        {
            let content = format!("r{i}");
            let agent = format!("a{i}");
            repo.insert(&entry("s", &agent, cat, &content)).unwrap();
        }
        let nav = vec!["navigation".to_string()];
        let got: Vec<String> = repo
            .session_results("s", None, Some(&nav), 10)
            .unwrap()
            .into_iter()
            .map(|e| e.content)
            .collect();
        assert_eq!(got, ["r2", "r0"]);
        assert!(
            repo.session_results("s", None, Some(&[]), 10)
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            repo.session_results("s", Some("a3"), None, 10)
                .unwrap()
                .len(),
            3
        );
    }

    #[test]
    fn role_history_keeps_other_sessions_of_the_role_in_the_categories_asked() {
        let (_d, db) = db();
        let repo = db.context();
        for (i, (session, category)) in [
            ("old", "navigation"),
            ("old", "review"),
            ("older", "navigation"),
            ("now", "navigation"),
        ]
        .iter()
        .enumerate()
        {
            let content = format!("r{i}");
            let agent = format!("a{i}");
            repo.insert(&entry(session, &agent, category, &content))
                .unwrap();
        }
        let contents = |entries: Vec<ContextEntry>| -> Vec<String> {
            entries.into_iter().map(|e| e.content).collect()
        };
        let nav = vec!["navigation".to_string()];
        // With categories the query names its index (INDEXED BY): it must exist and serve.
        assert_eq!(
            contents(
                repo.role_history("navigator", "now", Some(&nav), 10)
                    .unwrap()
            ),
            ["r2", "r0"]
        );
        assert_eq!(
            contents(repo.role_history("navigator", "now", None, 10).unwrap()),
            ["r2", "r1", "r0"]
        );
        assert!(
            repo.role_history("navigator", "now", Some(&[]), 10)
                .unwrap()
                .is_empty()
        );
        assert!(
            repo.role_history("coder", "now", Some(&nav), 10)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn tagged_entries_match_whole_tags_only() {
        let (_d, db) = db();
        let repo = db.context();
        let tags = vec!["Decision".to_string(), "coder".to_string()];
        repo.insert(&NewContextEntry {
            tags: &tags,
            ..entry("old", "a", "other", "use sqlite")
        })
        .unwrap();
        let tags2 = vec!["coders".to_string()];
        repo.insert(&NewContextEntry {
            tags: &tags2,
            ..entry("old", "b", "other", "unrelated")
        })
        .unwrap();
        let got = repo.tagged(&["coder"], None, None, 10).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].tags, ["decision", "coder"]);
        assert_eq!(
            repo.tagged(&["decision"], Some("new"), None, 10)
                .unwrap()
                .len(),
            1
        );
        assert!(
            repo.tagged(&["decision"], Some("old"), None, 10)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn every_digest_stage_query_uses_an_index() {
        let (_d, db) = db();
        let plans = [
            "SELECT id FROM context_entries WHERE session_id = 's' AND agent_id IS NOT NULL ORDER BY created_at DESC, id DESC LIMIT 5",
            "SELECT id FROM context_entries WHERE role = 'r' AND session_id != 's' ORDER BY created_at DESC, id DESC LIMIT 5",
            "SELECT id FROM context_entries WHERE tags != '' AND session_id != 's' ORDER BY created_at DESC, id DESC LIMIT 5",
            "SELECT id FROM context_entries ORDER BY created_at DESC, id DESC LIMIT 5",
            "SELECT id FROM tasks WHERE role = 'r' AND status = 'open' ORDER BY id DESC LIMIT 5",
            "SELECT path FROM file_changes WHERE session_id = 's' ORDER BY last_at DESC, path LIMIT 5",
        ];
        for sql in plans {
            let mut stmt = db
                .conn()
                .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                .unwrap();
            let detail: Vec<String> = stmt
                .query_map([], |r| r.get::<_, String>(3))
                .unwrap()
                .map(|r| r.unwrap())
                .collect();
            let plan = detail.join(" | ");
            assert!(plan.contains("INDEX"), "{sql}: {plan}");
        }
    }

    #[test]
    fn tasks_are_added_listed_and_finished_once() {
        let (_d, db) = db();
        let repo = db.context();
        let a = repo.add_task("coder", "fix login", Some("see #3")).unwrap();
        let b = repo.add_task("coder", "add tests", None).unwrap();
        repo.add_task("reviewer", "review auth", None).unwrap();
        let open: Vec<i64> = repo
            .open_tasks("coder", 10)
            .unwrap()
            .iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(open, [b, a]);
        assert_eq!(repo.finish_task(a).unwrap(), TaskDone::Done);
        assert_eq!(repo.finish_task(a).unwrap(), TaskDone::AlreadyDone);
        assert_eq!(repo.finish_task(999).unwrap(), TaskDone::Missing);
        assert_eq!(repo.open_tasks("coder", 10).unwrap().len(), 1);
        assert_eq!(repo.tasks(false).unwrap().len(), 2);
        assert_eq!(repo.tasks(true).unwrap().len(), 3);
    }

    #[test]
    fn file_changes_count_repeated_writes_per_agent() {
        let (_d, db) = db();
        let repo = db.context();
        repo.record_file_change("s", "a", "src/x.rs", "Edit")
            .unwrap();
        repo.record_file_change("s", "a", "src/x.rs", "Write")
            .unwrap();
        repo.record_file_change("s", "", "README.md", "Write")
            .unwrap();
        let a = repo.files_changed("s", Some("a"), 10).unwrap();
        assert_eq!((a.len(), a[0].changes, a[0].tool.as_str()), (1, 2, "Write"));
        assert_eq!(repo.files_changed("s", None, 10).unwrap().len(), 2);
    }
}
