//! Phase 2: who is making this tool call, and, on a subagent's first call, its exact
//! role.
//!
//! Exact facts first, each read with bounded I/O:
//! - the caller: `agent_id` in the input (Claude Code 2.1.69 and later); without it,
//!   the transcript whose last lines hold the call's `tool_use_id` (Claude Code writes
//!   a call to the caller's own transcript before its PreToolUse runs, flushed within
//!   a few milliseconds);
//! - the role: the agent's meta file (`toolUseId` of the spawning call), the prompt on
//!   the first line of its own transcript, the parent transcript's links.
//!
//! The 2-phase claim (oldest subagent that has not made its first call) stays as the
//! last resort for a call found in no transcript, recorded as a guess.

use super::context::{Call, IdentifyCtx};
use super::spawns;
use crate::domain::roles;
use crate::storage::agent_files::{self, Cost};
use crate::storage::store::{ExactOutcome, Marker, RoleSource, SpawnKey, SubagentRecord};
use crate::storage::transcript;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a hook waits at most for Claude Code to flush a transcript line it is
/// about to write (its writer flushes every 100 ms). Only calls that cannot be
/// attributed otherwise ever wait; the quiet path never does.
pub const SETTLE: Duration = Duration::from_millis(400);

/// Most transcripts searched for one call's tool_use_id.
const MAX_CANDIDATES: usize = 32;
/// Most bytes one call's identification reads, whatever the transcripts hold.
const MAX_IDENTIFY_BYTES: u64 = 8 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// agent_id in the input.
    Direct,
    /// The call's tool_use_id in the agent's own transcript.
    Transcript,
    /// The 2-phase claim: a guess by order.
    Claim,
}

impl Via {
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Direct => "direct",
            Via::Transcript => "transcript",
            Via::Claim => "claim",
        }
    }
}

#[derive(Debug, Clone)]
pub enum Caller {
    Main,
    Subagent {
        record: Box<SubagentRecord>,
        /// This is the agent's first tool call (its startup conventions are due).
        first_call: bool,
        via: Via,
        /// Set when an exact fact replaced a different, guessed role on this call: the
        /// role it replaced, itself None when there was none.
        #[allow(clippy::option_option)]
        corrected_from: Option<Option<String>>,
    },
}

/// What identification read, for hook_log.
#[derive(Debug, Default, Clone, Copy)]
pub struct Effort {
    pub bytes_read: u64,
    pub waited_ms: u64,
}

pub fn identify(
    ctx: &IdentifyCtx<'_>,
    call: &Call<'_>,
    effort: &mut Effort,
) -> anyhow::Result<Caller> {
    let session = ctx.session_id;
    let repo = ctx.db.subagents();
    if let Some(agent_id) = ctx.agent_id {
        note_modern_payload(ctx)?;
        let record = match repo.get(agent_id)? {
            Some(r) => r,
            None => register_unstarted(ctx, agent_id)?,
        };
        let first_call = repo.mark_first_call(agent_id, Via::Direct.as_str())?;
        return subagent(ctx, record, first_call, Via::Direct, effort);
    }
    // The quiet path: no subagent running, the main agent it is (one indexed probe).
    if !repo.is_any_active(session)? || ctx.db.markers().is_set(session, Marker::ModernPayload)? {
        return Ok(Caller::Main);
    }
    let active = repo.active_ids(session, MAX_CANDIDATES)?;
    if active.is_empty() {
        return Ok(Caller::Main);
    }
    if let Some(tool_use_id) = call.tool_use_id.filter(|id| sane_id(id)) {
        match find_caller(ctx, &active, tool_use_id, effort)? {
            Found::Main => return Ok(Caller::Main),
            Found::Agent(agent_id) => {
                if let Some(record) = repo.get(&agent_id)? {
                    let first_call = repo.mark_first_call(&agent_id, Via::Transcript.as_str())?;
                    return subagent(ctx, record, first_call, Via::Transcript, effort);
                }
            }
            Found::Nowhere => {}
        }
    }
    if !active.iter().any(|(_, processed)| !processed) {
        return Ok(Caller::Main);
    }
    match repo.claim_next_unprocessed(session)? {
        Some(claimed) => {
            let (record, corrected_from) = make_exact(ctx, claimed.clone(), false, false, effort)?;
            let record = SubagentRecord {
                // keep the pre-claim processed state the caller was given
                startup_processed: claimed.startup_processed,
                startup_processed_at: claimed.startup_processed_at,
                ..record
            };
            Ok(Caller::Subagent {
                record: Box::new(record),
                first_call: true,
                via: Via::Claim,
                corrected_from,
            })
        }
        None => Ok(Caller::Main),
    }
}

/// A subagent caller; on its first call, its role made exact first when it can be.
fn subagent(
    ctx: &IdentifyCtx<'_>,
    record: SubagentRecord,
    first_call: bool,
    via: Via,
    effort: &mut Effort,
) -> anyhow::Result<Caller> {
    let (record, corrected_from) = if first_call && !record.role_is_exact() {
        make_exact(ctx, record, true, false, effort)?
    } else {
        (record, None)
    };
    Ok(Caller::Subagent {
        record: Box::new(record),
        first_call,
        via,
        corrected_from,
    })
}

enum Found {
    Main,
    Agent(String),
    Nowhere,
}

/// The transcript whose last lines hold `tool_use_id`: a subagent's own, or the main
/// agent's. Claude Code writes the call before its PreToolUse runs but flushes its
/// writes on a timer, so a call found nowhere is looked for again, up to [`SETTLE`].
fn find_caller(
    ctx: &IdentifyCtx<'_>,
    active: &[(String, bool)],
    tool_use_id: &str,
    effort: &mut Effort,
) -> anyhow::Result<Found> {
    let Some(main) = ctx.transcript_path.map(PathBuf::from) else {
        return Ok(Found::Nowhere);
    };
    // No transcript at all (a session Claude Code keeps none of, a removed file): there
    // is no line to wait for.
    let waitable = std::fs::symlink_metadata(&main).is_ok();
    let started = Instant::now();
    let mut pause = Duration::from_millis(2);
    let mut active = active.to_vec();
    loop {
        let mut cost = Cost::default();
        let found = active
            .iter()
            .filter_map(|(id, _)| {
                transcript::subagent_transcript_path(&main, id).map(|p| (id.as_str(), p))
            })
            .find(|(_, path)| agent_files::tail_has_tool_use(path, tool_use_id, &mut cost))
            .map(|(id, _)| Found::Agent(id.to_string()))
            .or_else(|| {
                // A sidechain line in the parent transcript is a subagent's call, not
                // the main agent's: it is left to the claim.
                agent_files::tail_find_tool_use(&main, tool_use_id, &mut cost).map(|hit| {
                    if hit.sidechain {
                        Found::Nowhere
                    } else {
                        Found::Main
                    }
                })
            });
        effort.bytes_read += cost.bytes_read;
        if let Some(found) = found {
            effort.waited_ms = elapsed_ms(started);
            return Ok(found);
        }
        if !waitable || effort.bytes_read > MAX_IDENTIFY_BYTES || started.elapsed() + pause > SETTLE
        {
            effort.waited_ms = elapsed_ms(started);
            return Ok(Found::Nowhere);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(25));
        // An agent whose SubagentStart is still running joins the candidates.
        active = ctx
            .db
            .subagents()
            .active_ids(ctx.session_id, MAX_CANDIDATES)?;
    }
}

/// Ties a subagent to its spawn by the exact facts Claude Code writes about it (meta
/// file, the prompt its own transcript starts with, the parent transcript's links),
/// upgrading a guess. With `settle`, while the facts are not written yet and a guess
/// could give the agent another's role, looks again up to [`SETTLE`]. `synced` says
/// the caller already brought the spawns up to date with the parent transcript in
/// this run, so it is not scanned again.
// The second value is `corrected_from` of [`Caller::Subagent`]: None when nothing was
// corrected, Some(None) when an exact role replaced no role at all.
#[allow(clippy::option_option)]
pub fn make_exact(
    ctx: &IdentifyCtx<'_>,
    record: SubagentRecord,
    settle: bool,
    synced: bool,
    effort: &mut Effort,
) -> anyhow::Result<(SubagentRecord, Option<Option<String>>)> {
    let Some(main) = ctx.transcript_path else {
        return Ok((record, None));
    };
    let Some(own) = transcript::subagent_transcript_path(Path::new(main), &record.agent_id) else {
        return Ok((record, None));
    };
    let repo = ctx.db.subagents();
    let session = ctx.session_id;
    let started = Instant::now();
    let mut pause = Duration::from_millis(2);
    let mut synced = synced;
    loop {
        let mut cost = Cost::default();
        let mut linked: Option<ExactOutcome> = None;
        if let Some(id) = agent_files::meta_tool_use_id(&own, &mut cost) {
            linked = repo.link_exact(
                session,
                &record.agent_id,
                SpawnKey::ToolUseId(&id),
                RoleSource::MetaFile,
            )?;
        }
        if linked.is_none()
            && let Some(hash) = agent_files::prompt_hash(&own, &mut cost)
        {
            linked = repo.link_exact(
                session,
                &record.agent_id,
                SpawnKey::PromptHash(&hash),
                RoleSource::AgentTranscript,
            )?;
        }
        effort.bytes_read += cost.bytes_read;
        if linked.is_none() && !synced {
            // The spawn may be in the parent transcript only (nagger did not see the
            // call that made it), or linked there exactly.
            synced = true;
            let report = spawns::sync(ctx)?;
            effort.bytes_read += report.bytes_read;
            if report.new_spawns > 0 || report.upgraded > 0 {
                continue;
            }
        }
        let current = repo.get(&record.agent_id)?;
        let exact = current.as_ref().is_some_and(SubagentRecord::role_is_exact);
        if let Some(found) = linked {
            return Ok((current.unwrap_or(record), found.corrected_from));
        }
        let give_up = exact
            || !settle
            || started.elapsed() + pause > SETTLE
            || !repo.roles_ambiguous(session, &record.agent_type)?;
        if give_up {
            effort.waited_ms += elapsed_ms(started);
            return Ok((current.unwrap_or(record), None));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(25));
    }
}

/// Records that this session's Claude Code sends agent_id (once).
pub fn note_modern_payload(ctx: &IdentifyCtx<'_>) -> anyhow::Result<()> {
    let markers = ctx.db.markers();
    if !markers.is_set(ctx.session_id, Marker::ModernPayload)? {
        markers.set(ctx.session_id, Marker::ModernPayload, 0)?;
    }
    Ok(())
}

/// An agent_id that never had a SubagentStart (a known Claude Code bug, or nagger
/// installed mid-session): register it now with what the input says.
fn register_unstarted(ctx: &IdentifyCtx<'_>, agent_id: &str) -> anyhow::Result<SubagentRecord> {
    let repo = ctx.db.subagents();
    // Claude Code names an agent's type with its id; without it there is nothing to
    // register the agent as (the guard still answers the call).
    let Some(agent_type) = ctx.agent_type else {
        anyhow::bail!("the input names agent {agent_id} without its agent_type");
    };
    spawns::sync(ctx)?;
    let fallback = Some(roles::normalize(agent_type, ctx.role_resolution));
    repo.register_and_match(
        agent_id,
        ctx.session_id,
        agent_type,
        "pre_tool_use",
        fallback.as_deref(),
    )?;
    repo.get(agent_id)?
        .ok_or_else(|| anyhow::anyhow!("agent {agent_id} vanished right after registration"))
}

/// A tool_use_id worth searching for: Claude Code's are short ASCII tokens.
/// Milliseconds since `started`; u64 milliseconds outlast any process.
fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn sane_id(id: &str) -> bool {
    (4..=256).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
