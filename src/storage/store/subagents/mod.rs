//! The subagent Registry and the 2-phase Claim: subagents, task_spawns,
//! subagent_history and transcript_cursors.

mod spawns;

use super::db::{NaggerStateDB, immediate, now_ms};
use super::error::StoreResult;
use crate::base::num::to_i64;
use rusqlite::{Connection, OptionalExtension, Row, params};

/// Where an agent's role came from: an exact fact (which one), or a guess.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleSource {
    /// The parent transcript links this agent to its spawning tool call
    /// (`toolUseResult.agentId`, progress lines).
    ExactLink,
    /// The agent's own transcript starts with the prompt of exactly this spawn.
    AgentTranscript,
    /// The agent's meta file names the spawning call (`toolUseId`).
    MetaFile,
    /// PostToolUse of the spawning call named the agent (`tool_response.agentId`).
    ToolResponse,
    /// Oldest unmatched spawn of the same subagent_type (FIFO guess).
    TaskMatch,
    /// No spawn found: the role comes from agent_type alone.
    AgentType,
    /// Nothing known about the agent.
    Unresolved,
}

impl RoleSource {
    pub const ALL: [RoleSource; 7] = [
        RoleSource::ExactLink,
        RoleSource::AgentTranscript,
        RoleSource::MetaFile,
        RoleSource::ToolResponse,
        RoleSource::TaskMatch,
        RoleSource::AgentType,
        RoleSource::Unresolved,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RoleSource::ExactLink => "exact_link",
            RoleSource::AgentTranscript => "agent_transcript",
            RoleSource::MetaFile => "meta_file",
            RoleSource::ToolResponse => "tool_response",
            RoleSource::TaskMatch => "task_match",
            RoleSource::AgentType => "agent_type",
            RoleSource::Unresolved => "unresolved",
        }
    }

    pub fn parse(s: &str) -> Option<RoleSource> {
        RoleSource::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// An exact fact tied the agent to its spawn; no later fact changes it.
    pub fn is_exact(self) -> bool {
        matches!(
            self,
            RoleSource::ExactLink
                | RoleSource::AgentTranscript
                | RoleSource::MetaFile
                | RoleSource::ToolResponse
        )
    }
}

impl serde::Serialize for RoleSource {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl rusqlite::ToSql for RoleSource {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(self.as_str().into())
    }
}

/// A stored role_source, read once: a value this nagger does not know (written by an
/// older one) reads as none.
fn role_source_at(r: &Row<'_>, column: usize) -> rusqlite::Result<Option<RoleSource>> {
    Ok(r.get::<_, Option<String>>(column)?
        .as_deref()
        .and_then(RoleSource::parse))
}

/// An exact fact that names an agent's spawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpawnKey<'a> {
    /// The spawning call's tool_use_id.
    ToolUseId(&'a str),
    /// sha256 of the prompt the agent was spawned with.
    PromptHash(&'a str),
}

/// The result of linking an agent to its spawn by an exact fact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExactOutcome {
    pub outcome: MatchOutcome,
    /// The role the agent had before, when the exact fact changed it.
    pub corrected_from: Option<Option<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubagentRecord {
    pub agent_id: String,
    pub session_id: String,
    pub agent_type: String,
    pub role: Option<String>,
    pub role_source: Option<RoleSource>,
    pub created_at: i64,
    pub startup_processed: bool,
    pub startup_processed_at: Option<i64>,
    pub claimed_by: Option<String>,
    pub task_spawn_id: Option<i64>,
    pub registered_by: String,
    /// Times a guessed role was replaced by a different exact one.
    pub role_corrected: i64,
    /// The role given at SubagentStart; None when it was not known exactly then.
    pub start_role: Option<String>,
}

impl SubagentRecord {
    pub fn role_is_exact(&self) -> bool {
        self.role_source.is_some_and(RoleSource::is_exact)
    }
}

const SUBAGENT_COLUMNS: &str = "agent_id, session_id, agent_type, role, role_source, created_at, \
     startup_processed, startup_processed_at, claimed_by, task_spawn_id, registered_by, \
     role_corrected, start_role";

impl SubagentRecord {
    fn from_row(r: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(SubagentRecord {
            agent_id: r.get(0)?,
            session_id: r.get(1)?,
            agent_type: r.get(2)?,
            role: r.get(3)?,
            role_source: role_source_at(r, 4)?,
            created_at: r.get(5)?,
            startup_processed: r.get::<_, i64>(6)? != 0,
            startup_processed_at: r.get(7)?,
            claimed_by: r.get(8)?,
            task_spawn_id: r.get(9)?,
            registered_by: r.get(10)?,
            role_corrected: r.get(11)?,
            start_role: r.get(12)?,
        })
    }
}

/// A spawn as read from the transcript, ready to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnRow {
    pub transcript_index: i64,
    pub tool_use_id: String,
    pub subagent_type: Option<String>,
    pub role: Option<String>,
    pub prompt_hash: Option<String>,
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptCursorRow {
    pub byte_offset: u64,
    pub line_count: u64,
    pub fingerprint: String,
}

/// A stored spawn with the agent it was matched to and the agent the transcript links it to.
pub type SpawnState = (SpawnRow, Option<String>, Option<String>);

/// The result of matching an agent to a spawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchOutcome {
    pub spawn_id: Option<i64>,
    pub role: Option<String>,
    pub source: RoleSource,
    /// Another agent whose FIFO guess was taken by this exact link and re-matched.
    pub displaced: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryRecord {
    pub agent_id: String,
    pub session_id: String,
    pub agent_type: String,
    pub role: Option<String>,
    pub role_source: Option<RoleSource>,
    pub started_at: i64,
    pub stopped_at: i64,
    pub duration_ms: i64,
    pub tokens: Option<i64>,
    pub summary: Option<String>,
    /// How its first tool call was attributed: direct, transcript or claim.
    pub claimed_by: Option<String>,
    pub role_corrected: i64,
}

pub struct SubagentRepository<'c> {
    conn: &'c Connection,
}

impl NaggerStateDB {
    pub fn subagents(&self) -> SubagentRepository<'_> {
        SubagentRepository::new(&self.conn)
    }
}

impl<'c> SubagentRepository<'c> {
    pub fn new(conn: &'c Connection) -> Self {
        SubagentRepository { conn }
    }

    /// Registers an agent at SubagentStart (or on the spot when a PreToolUse names an
    /// agent_id that never started). A known agent keeps its row. Returns true when the
    /// row is new.
    pub fn register(
        &self,
        agent_id: &str,
        session_id: &str,
        agent_type: &str,
        registered_by: &str,
    ) -> StoreResult<bool> {
        Ok(insert_agent(
            self.conn,
            agent_id,
            session_id,
            agent_type,
            registered_by,
        )?)
    }

    pub fn get(&self, agent_id: &str) -> StoreResult<Option<SubagentRecord>> {
        Ok(self
            .conn
            .query_row(
                &format!("SELECT {SUBAGENT_COLUMNS} FROM subagents WHERE agent_id = ?1"),
                [agent_id],
                SubagentRecord::from_row,
            )
            .optional()?)
    }

    /// Active agents, oldest first; all sessions when `session_id` is None.
    pub fn active(&self, session_id: Option<&str>) -> StoreResult<Vec<SubagentRecord>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {SUBAGENT_COLUMNS} FROM subagents
             WHERE ?1 IS NULL OR session_id = ?1 ORDER BY created_at, rowid"
        ))?;
        let rows = stmt.query_map([session_id], SubagentRecord::from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn is_any_active(&self, session_id: &str) -> StoreResult<bool> {
        Ok(self
            .conn
            .query_row(
                "SELECT 1 FROM subagents WHERE session_id = ?1 LIMIT 1",
                [session_id],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// Phase 2 for payloads without agent_id: atomically takes the oldest subagent of
    /// the session that has not made its first tool call, marks it processed and
    /// returns its record as it was before. No two callers ever get the same agent.
    pub fn claim_next_unprocessed(&self, session_id: &str) -> StoreResult<Option<SubagentRecord>> {
        let tx = immediate(self.conn)?;
        let record = tx
            .query_row(
                &format!(
                    "SELECT {SUBAGENT_COLUMNS} FROM subagents
                     WHERE session_id = ?1 AND startup_processed = 0
                     ORDER BY created_at, rowid LIMIT 1"
                ),
                [session_id],
                SubagentRecord::from_row,
            )
            .optional()?;
        if let Some(r) = &record {
            tx.execute(
                "UPDATE subagents SET startup_processed = 1, startup_processed_at = ?2, claimed_by = 'claim'
                 WHERE agent_id = ?1",
                params![r.agent_id, now_ms()],
            )?;
        }
        tx.commit()?;
        Ok(record)
    }

    /// Whether the spawns an agent of `agent_type` may hold name more than one role, so a
    /// FIFO guess could give it another agent's role: unmatched spawns of the type, and
    /// those only guessed for an agent.
    pub fn roles_ambiguous(&self, session_id: &str, agent_type: &str) -> StoreResult<bool> {
        let roles: i64 = self.conn.query_row(
            "SELECT count(DISTINCT coalesce(s.role, '')) FROM task_spawns s
             WHERE s.session_id = ?1 AND s.subagent_type = ?2 AND s.linked_agent_id IS NULL
               AND (s.matched_agent_id IS NULL OR EXISTS (
                    SELECT 1 FROM subagents a WHERE a.agent_id = s.matched_agent_id
                      AND a.role_source = 'task_match'))",
            params![session_id, agent_type],
            |r| r.get(0),
        )?;
        Ok(roles > 1)
    }

    /// The session's active subagents, those that have not made their first tool call
    /// first, oldest first, at most `limit`: (agent_id, first call made).
    pub fn active_ids(&self, session_id: &str, limit: usize) -> StoreResult<Vec<(String, bool)>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT agent_id, startup_processed FROM subagents WHERE session_id = ?1
             ORDER BY startup_processed, created_at, rowid LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![session_id, to_i64(limit)], |r| {
            Ok((r.get(0)?, r.get::<_, i64>(1)? != 0))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Marks an agent's first tool call, identified by `how` (`direct`: agent_id in the
    /// input; `transcript`: the call's tool_use_id in its own transcript). True only for
    /// the one call that made the change.
    pub fn mark_first_call(&self, agent_id: &str, how: &str) -> StoreResult<bool> {
        Ok(self.conn.execute(
            "UPDATE subagents SET startup_processed = 1, startup_processed_at = ?2, claimed_by = ?3
             WHERE agent_id = ?1 AND startup_processed = 0",
            params![agent_id, now_ms(), how],
        )? == 1)
    }

    /// Records the role an agent was given at SubagentStart (None: not known exactly).
    pub fn set_start_role(&self, agent_id: &str, role: Option<&str>) -> StoreResult<()> {
        self.conn.execute(
            "UPDATE subagents SET start_role = ?2 WHERE agent_id = ?1",
            params![agent_id, role],
        )?;
        Ok(())
    }

    /// SubagentStop: moves the agent to subagent_history and removes it from the
    /// Registry, in one transaction. Its spawn stays matched (so a rescan of the
    /// transcript can never hand it to another agent) until the session is purged.
    pub fn unregister(
        &self,
        agent_id: &str,
        session_id: &str,
        agent_type: &str,
        tokens: Option<i64>,
        summary: Option<&str>,
    ) -> StoreResult<HistoryRecord> {
        let tx = immediate(self.conn)?;
        let now = now_ms();
        let row: Option<SubagentRecord> = tx
            .query_row(
                &format!("SELECT {SUBAGENT_COLUMNS} FROM subagents WHERE agent_id = ?1"),
                [agent_id],
                SubagentRecord::from_row,
            )
            .optional()?;
        let history = match row {
            Some(r) => HistoryRecord {
                agent_id: r.agent_id,
                session_id: r.session_id,
                agent_type: r.agent_type,
                role: r.role,
                role_source: r.role_source,
                started_at: r.created_at,
                stopped_at: now,
                duration_ms: (now - r.created_at).max(0),
                tokens,
                summary: summary.map(str::to_string),
                claimed_by: r.claimed_by,
                role_corrected: r.role_corrected,
            },
            None => HistoryRecord {
                agent_id: agent_id.to_string(),
                session_id: session_id.to_string(),
                agent_type: agent_type.to_string(),
                role: None,
                role_source: Some(RoleSource::Unresolved),
                started_at: now,
                stopped_at: now,
                duration_ms: 0,
                tokens,
                summary: summary.map(str::to_string),
                claimed_by: None,
                role_corrected: 0,
            },
        };
        tx.execute(
            "INSERT INTO subagent_history (agent_id, session_id, agent_type, role, role_source, started_at,
                                           stopped_at, duration_ms, tokens, summary, claimed_by,
                                           role_corrected)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
             ON CONFLICT(session_id, agent_id) DO UPDATE SET
                 stopped_at = excluded.stopped_at, duration_ms = excluded.duration_ms,
                 tokens = coalesce(excluded.tokens, tokens), summary = coalesce(excluded.summary, summary)",
            params![
                history.agent_id,
                history.session_id,
                history.agent_type,
                history.role,
                history.role_source,
                history.started_at,
                history.stopped_at,
                history.duration_ms,
                history.tokens,
                history.summary,
                history.claimed_by,
                history.role_corrected
            ],
        )?;
        tx.execute("DELETE FROM subagents WHERE agent_id = ?1", [agent_id])?;
        tx.commit()?;
        Ok(history)
    }

    pub fn history(
        &self,
        session_id: Option<&str>,
        limit: usize,
    ) -> StoreResult<Vec<HistoryRecord>> {
        let mut stmt = self.conn.prepare(
            "SELECT agent_id, session_id, agent_type, role, role_source, started_at, stopped_at,
                    duration_ms, tokens, summary, claimed_by, role_corrected
             FROM subagent_history WHERE ?1 IS NULL OR session_id = ?1
             ORDER BY stopped_at DESC LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![session_id, to_i64(limit)], |r| {
            Ok(HistoryRecord {
                agent_id: r.get(0)?,
                session_id: r.get(1)?,
                agent_type: r.get(2)?,
                role: r.get(3)?,
                role_source: role_source_at(r, 4)?,
                started_at: r.get(5)?,
                stopped_at: r.get(6)?,
                duration_ms: r.get(7)?,
                tokens: r.get(8)?,
                summary: r.get(9)?,
                claimed_by: r.get(10)?,
                role_corrected: r.get(11)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Removes a session's Registry rows and spawns. Returns the rows removed.
    pub fn cleanup_session(&self, session_id: &str) -> StoreResult<usize> {
        let tx = immediate(self.conn)?;
        let n = tx.execute("DELETE FROM subagents WHERE session_id = ?1", [session_id])?
            + tx.execute(
                "DELETE FROM task_spawns WHERE session_id = ?1",
                [session_id],
            )?
            + tx.execute(
                "DELETE FROM transcript_cursors WHERE session_id = ?1",
                [session_id],
            )?;
        tx.commit()?;
        Ok(n)
    }
}

fn insert_agent(
    conn: &Connection,
    agent_id: &str,
    session_id: &str,
    agent_type: &str,
    registered_by: &str,
) -> rusqlite::Result<bool> {
    let inserted = conn.execute(
        "INSERT INTO subagents (agent_id, session_id, agent_type, created_at, registered_by)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT(agent_id) DO NOTHING",
        params![agent_id, session_id, agent_type, now_ms(), registered_by],
    )?;
    Ok(inserted == 1)
}
