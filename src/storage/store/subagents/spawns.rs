//! Spawns (task_spawns) and the matching of agents to them: the transcript scan's
//! rows and cursor, spawns registered from the main agent's PreToolUse, exact links,
//! and the FIFO match of an agent to the oldest spawn of its type.

use super::super::db::{immediate, now_ms};
use super::super::error::StoreResult;
use super::{
    ExactOutcome, MatchOutcome, RoleSource, SpawnKey, SpawnRow, SpawnState, SubagentRepository,
    TranscriptCursorRow, insert_agent, role_source_at,
};
use crate::base::num::{to_i64, to_u64};
use rusqlite::{Connection, OptionalExtension, params};

impl SubagentRepository<'_> {
    pub fn cursor(&self, path: &str) -> StoreResult<Option<TranscriptCursorRow>> {
        Ok(self
            .conn
            .query_row(
                "SELECT byte_offset, line_count, fingerprint FROM transcript_cursors WHERE path = ?1",
                [path],
                |r| {
                    Ok(TranscriptCursorRow {
                        byte_offset: to_u64(r.get(0)?),
                        line_count: to_u64(r.get(1)?),
                        fingerprint: r.get(2)?,
                    })
                },
            )
            .optional()?)
    }

    /// Stores spawns and exact links found by one scan, and the cursor after it, in one
    /// transaction. Idempotent: a spawn already stored (same tool_use_id) is kept.
    /// `restarted` says the scan began again at 0 (file replaced or shrunk); otherwise a
    /// cursor never moves backwards, so two overlapping scans cannot lose ground.
    /// Keeps at most `max` spawns for the session, dropping the oldest unmatched ones
    /// first; returns how many were dropped.
    pub fn cap_spawns(&self, session_id: &str, max: usize) -> StoreResult<usize> {
        Ok(self.conn.execute(
            "DELETE FROM task_spawns WHERE id IN (
                 SELECT id FROM task_spawns WHERE session_id = ?1 AND matched_agent_id IS NULL
                 ORDER BY transcript_index, id
                 LIMIT max(0, (SELECT count(*) FROM task_spawns WHERE session_id = ?1) - ?2))",
            params![session_id, to_i64(max)],
        )?)
    }

    pub fn register_task_spawns(
        &self,
        session_id: &str,
        transcript_path: &str,
        spawns: &[SpawnRow],
        links: &[(String, String)],
        cursor: &TranscriptCursorRow,
        restarted: bool,
    ) -> StoreResult<usize> {
        let tx = immediate(self.conn)?;
        let now = now_ms();
        let mut added = 0;
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO task_spawns (session_id, transcript_index, tool_use_id, subagent_type, role,
                                          prompt_hash, description, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT(session_id, tool_use_id) DO NOTHING",
            )?;
            for s in spawns {
                added += insert.execute(params![
                    session_id,
                    s.transcript_index,
                    s.tool_use_id,
                    s.subagent_type,
                    s.role,
                    s.prompt_hash,
                    s.description,
                    now
                ])?;
            }
            let mut link = tx.prepare_cached(
                "UPDATE task_spawns SET linked_agent_id = ?3
                 WHERE session_id = ?1 AND tool_use_id = ?2 AND linked_agent_id IS NULL",
            )?;
            for (tool_use_id, agent_id) in links {
                link.execute(params![session_id, tool_use_id, agent_id])?;
            }
        }
        tx.execute(
            "INSERT INTO transcript_cursors (path, session_id, byte_offset, line_count, fingerprint, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT(path) DO UPDATE SET
                 session_id = excluded.session_id,
                 byte_offset = excluded.byte_offset,
                 line_count = excluded.line_count,
                 fingerprint = excluded.fingerprint,
                 updated_at = excluded.updated_at
             WHERE ?7 OR excluded.byte_offset >= transcript_cursors.byte_offset",
            params![
                transcript_path,
                session_id,
                to_i64(cursor.byte_offset),
                to_i64(cursor.line_count),
                cursor.fingerprint,
                now,
                restarted
            ],
        )?;
        tx.commit()?;
        Ok(added)
    }

    /// Registers the agent and matches it in one transaction, so no claimer can
    /// ever see it registered but not yet given its role.
    pub fn register_and_match(
        &self,
        agent_id: &str,
        session_id: &str,
        agent_type: &str,
        registered_by: &str,
        fallback_role: Option<&str>,
    ) -> StoreResult<MatchOutcome> {
        let tx = immediate(self.conn)?;
        insert_agent(&tx, agent_id, session_id, agent_type, registered_by)?;
        let outcome = match_in(
            &tx,
            session_id,
            agent_id,
            agent_type,
            fallback_role,
            RoleSource::ExactLink,
        )?;
        tx.commit()?;
        Ok(outcome)
    }

    /// Ties an agent to its spawn by an exact fact, in one IMMEDIATE transaction: the
    /// spawn is linked to the agent, a FIFO guess is upgraded (and the agent that held
    /// the spawn re-matched), and a role that changes is counted as corrected. None when
    /// the agent or the spawn is not known (yet), or the spawn is exactly another's.
    pub fn link_exact(
        &self,
        session_id: &str,
        agent_id: &str,
        key: SpawnKey<'_>,
        source: RoleSource,
    ) -> StoreResult<Option<ExactOutcome>> {
        let tx = immediate(self.conn)?;
        let agent: Option<(String, Option<String>, Option<RoleSource>)> = tx
            .query_row(
                "SELECT agent_type, role, role_source FROM subagents WHERE agent_id = ?1",
                [agent_id],
                |r| Ok((r.get(0)?, r.get(1)?, role_source_at(r, 2)?)),
            )
            .optional()?;
        let Some((agent_type, old_role, old_source)) = agent else {
            return Ok(None);
        };
        if old_source.is_some_and(RoleSource::is_exact) {
            return Ok(None);
        }
        let spawn: Option<i64> = match key {
            SpawnKey::ToolUseId(id) => tx
                .query_row(
                    "SELECT id FROM task_spawns WHERE session_id = ?1 AND tool_use_id = ?2
                       AND (linked_agent_id IS NULL OR linked_agent_id = ?3)",
                    params![session_id, id, agent_id],
                    |r| r.get(0),
                )
                .optional()?,
            // Two spawns with one prompt are the same role: prefer the one this agent
            // already holds, then a free one, then one another agent only guessed.
            SpawnKey::PromptHash(hash) => tx
                .query_row(
                    "SELECT id FROM task_spawns
                     WHERE session_id = ?1 AND prompt_hash = ?2
                       AND (linked_agent_id IS NULL OR linked_agent_id = ?3)
                     ORDER BY matched_agent_id IS ?3 DESC, matched_agent_id IS NULL DESC,
                              transcript_index, id
                     LIMIT 1",
                    params![session_id, hash, agent_id],
                    |r| r.get(0),
                )
                .optional()?,
        };
        let Some(spawn) = spawn else {
            return Ok(None);
        };
        tx.execute(
            "UPDATE task_spawns SET linked_agent_id = ?2 WHERE id = ?1 AND linked_agent_id IS NULL",
            params![spawn, agent_id],
        )?;
        let outcome = match_in(&tx, session_id, agent_id, &agent_type, None, source)?;
        let corrected_from = (old_role.is_some() && old_role != outcome.role).then_some(old_role);
        if corrected_from.is_some() {
            tx.execute(
                "UPDATE subagents SET role_corrected = role_corrected + 1 WHERE agent_id = ?1",
                [agent_id],
            )?;
        }
        tx.commit()?;
        Ok(Some(ExactOutcome {
            outcome,
            corrected_from,
        }))
    }

    /// Registers a spawn the main agent is about to make (its PreToolUse of Agent/Task),
    /// before the parent transcript holds it; the transcript scan later finds the same
    /// tool_use_id and keeps this row. Agents that started before any spawn of their
    /// type was known are matched now. Returns true when the spawn is new.
    pub fn register_spawn(&self, session_id: &str, spawn: &SpawnRow) -> StoreResult<bool> {
        let tx = immediate(self.conn)?;
        let added = tx.execute(
            "INSERT INTO task_spawns (session_id, transcript_index, tool_use_id, subagent_type, role,
                                      prompt_hash, description, created_at, registered_by)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'pre_tool_use')
             ON CONFLICT(session_id, tool_use_id) DO NOTHING",
            params![
                session_id,
                spawn.transcript_index,
                spawn.tool_use_id,
                spawn.subagent_type,
                spawn.role,
                spawn.prompt_hash,
                spawn.description,
                now_ms()
            ],
        )? == 1;
        if added {
            match_waiting_in(&tx, session_id)?;
        }
        tx.commit()?;
        Ok(added)
    }

    /// Matches the session's agents that hold no spawn yet (they started before their
    /// spawn was known). Returns how many got one.
    pub fn match_waiting(&self, session_id: &str) -> StoreResult<usize> {
        let tx = immediate(self.conn)?;
        let n = match_waiting_in(&tx, session_id)?;
        tx.commit()?;
        Ok(n)
    }

    /// Spawns of a session, in transcript order: (spawn, matched agent, linked agent).
    pub fn spawns(&self, session_id: &str) -> StoreResult<Vec<SpawnState>> {
        let mut stmt = self.conn.prepare(
            "SELECT transcript_index, tool_use_id, subagent_type, role, prompt_hash, description,
                    matched_agent_id, linked_agent_id
             FROM task_spawns WHERE session_id = ?1 ORDER BY transcript_index",
        )?;
        let rows = stmt.query_map([session_id], |r| {
            Ok((
                SpawnRow {
                    transcript_index: r.get(0)?,
                    tool_use_id: r.get(1)?,
                    subagent_type: r.get(2)?,
                    role: r.get(3)?,
                    prompt_hash: r.get(4)?,
                    description: r.get(5)?,
                },
                r.get(6)?,
                r.get(7)?,
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

fn spawn_role(conn: &Connection, spawn: Option<i64>) -> rusqlite::Result<Option<String>> {
    match spawn {
        Some(id) => Ok(conn
            .query_row("SELECT role FROM task_spawns WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()?
            .flatten()),
        None => Ok(None),
    }
}

fn link(
    conn: &Connection,
    spawn_id: i64,
    agent_id: &str,
    role: Option<&str>,
    source: RoleSource,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE task_spawns SET matched_agent_id = ?2 WHERE id = ?1",
        params![spawn_id, agent_id],
    )?;
    conn.execute(
        "UPDATE subagents SET task_spawn_id = ?2, role = ?3, role_source = ?4 WHERE agent_id = ?1",
        params![agent_id, spawn_id, role, source.as_str()],
    )?;
    Ok(())
}

/// The oldest unmatched spawn of `agent_type` not reserved for another agent.
fn fifo_match(
    conn: &Connection,
    session_id: &str,
    agent_id: &str,
    agent_type: &str,
) -> rusqlite::Result<Option<(i64, Option<String>)>> {
    let found: Option<(i64, Option<String>)> = conn
        .query_row(
            "SELECT id, role FROM task_spawns
             WHERE session_id = ?1 AND matched_agent_id IS NULL AND subagent_type = ?2
               AND (linked_agent_id IS NULL OR linked_agent_id = ?3)
             ORDER BY transcript_index, id LIMIT 1",
            params![session_id, agent_type, agent_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    if let Some((id, role)) = &found {
        link(conn, *id, agent_id, role.as_deref(), RoleSource::TaskMatch)?;
    }
    Ok(found)
}

/// Phase 1: assigns the agent its spawn, inside the caller's IMMEDIATE transaction. An
/// exact link wins; else the oldest unmatched spawn of the same subagent_type that is not
/// reserved for another agent by an exact link. An exact link found after a FIFO guess
/// upgrades it, and the agent that held the linked spawn is re-matched. `fallback_role`
/// is used when no spawn matches.
pub(super) fn match_in(
    tx: &Connection,
    session_id: &str,
    agent_id: &str,
    agent_type: &str,
    fallback_role: Option<&str>,
    exact_source: RoleSource,
) -> rusqlite::Result<MatchOutcome> {
    let current: Option<(Option<i64>, Option<String>)> = tx
        .query_row(
            "SELECT task_spawn_id, role_source FROM subagents WHERE agent_id = ?1",
            [agent_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((current_spawn, current_source)) = current else {
        return Ok(MatchOutcome {
            spawn_id: None,
            role: fallback_role.map(str::to_string),
            source: RoleSource::Unresolved,
            displaced: None,
        });
    };
    if let Some(source) = current_source
        .as_deref()
        .and_then(RoleSource::parse)
        .filter(|s| s.is_exact())
    {
        let role = spawn_role(tx, current_spawn)?;
        return Ok(MatchOutcome {
            spawn_id: current_spawn,
            role,
            source,
            displaced: None,
        });
    }

    let exact: Option<(i64, Option<String>, Option<String>)> = tx
        .query_row(
            "SELECT id, role, matched_agent_id FROM task_spawns
             WHERE session_id = ?1 AND linked_agent_id = ?2 ORDER BY transcript_index LIMIT 1",
            params![session_id, agent_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    let outcome = if let Some((spawn_id, role, holder)) = exact {
        if current_spawn == Some(spawn_id) {
            tx.execute(
                "UPDATE subagents SET role = ?2, role_source = ?3 WHERE agent_id = ?1",
                params![agent_id, role, exact_source.as_str()],
            )?;
        } else {
            if let Some(old) = current_spawn {
                tx.execute(
                    "UPDATE task_spawns SET matched_agent_id = NULL WHERE id = ?1",
                    [old],
                )?;
            }
            link(tx, spawn_id, agent_id, role.as_deref(), exact_source)?;
        }
        let displaced = holder.filter(|h| h != agent_id);
        if let Some(other) = &displaced {
            tx.execute(
                "UPDATE subagents SET task_spawn_id = NULL, role = NULL, role_source = NULL WHERE agent_id = ?1",
                [other],
            )?;
            let other_type: Option<String> = tx
                .query_row(
                    "SELECT agent_type FROM subagents WHERE agent_id = ?1",
                    [other],
                    |r| r.get(0),
                )
                .optional()?;
            if let Some(t) = other_type {
                fifo_match(tx, session_id, other, &t)?;
            }
        }
        MatchOutcome {
            spawn_id: Some(spawn_id),
            role,
            source: exact_source,
            displaced,
        }
    } else if current_spawn.is_some() {
        let role = spawn_role(tx, current_spawn)?;
        MatchOutcome {
            spawn_id: current_spawn,
            role,
            source: RoleSource::TaskMatch,
            displaced: None,
        }
    } else if let Some((spawn_id, role)) = fifo_match(tx, session_id, agent_id, agent_type)? {
        MatchOutcome {
            spawn_id: Some(spawn_id),
            role,
            source: RoleSource::TaskMatch,
            displaced: None,
        }
    } else {
        let source = if fallback_role.is_some() {
            RoleSource::AgentType
        } else {
            RoleSource::Unresolved
        };
        tx.execute(
            "UPDATE subagents SET role = ?2, role_source = ?3 WHERE agent_id = ?1",
            params![agent_id, fallback_role, source.as_str()],
        )?;
        MatchOutcome {
            spawn_id: None,
            role: fallback_role.map(str::to_string),
            source,
            displaced: None,
        }
    };
    Ok(outcome)
}

/// `match_waiting`, inside the caller's transaction.
fn match_waiting_in(tx: &Connection, session_id: &str) -> rusqlite::Result<usize> {
    let waiting: Vec<(String, String)> = {
        let mut stmt = tx.prepare_cached(
            "SELECT agent_id, agent_type FROM subagents
             WHERE session_id = ?1 AND task_spawn_id IS NULL
             ORDER BY created_at, rowid",
        )?;
        let rows = stmt.query_map([session_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    let mut matched = 0;
    for (agent_id, agent_type) in waiting {
        let role: Option<String> = tx.query_row(
            "SELECT role FROM subagents WHERE agent_id = ?1",
            [&agent_id],
            |r| r.get(0),
        )?;
        let outcome = match_in(
            tx,
            session_id,
            &agent_id,
            &agent_type,
            role.as_deref(),
            RoleSource::ExactLink,
        )?;
        if outcome.spawn_id.is_some() {
            matched += 1;
        }
    }
    Ok(matched)
}
