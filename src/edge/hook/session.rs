//! SessionStart and SessionEnd: the session's lifecycle, retention, compaction
//! (the main agent gets the session's shared-context digest back), and the
//! session's `_summary.md` and metrics when it ends.

use super::ctx::{Ctx, Outcome};
use super::event::SessionSource;
use super::pre_tool_use;
use super::wire::HookOutput;
use crate::base::event::HookEvent;
use crate::base::num::hours_ms;
use crate::domain::context;
use crate::storage::store::ExpireReason;
use serde_json::json;

pub fn start(ctx: &Ctx<'_>, source: Option<&SessionSource>) -> anyhow::Result<Outcome> {
    let session = &ctx.common.session_id;
    let sessions = ctx.db.sessions();
    sessions.start(
        session,
        source.map(SessionSource::as_str),
        ctx.common.transcript_path.as_deref(),
        ctx.common.cwd.as_deref(),
    )?;
    let purged = sessions.purge_expired(
        hours_ms(ctx.config.context.ttl_hours),
        hours_ms(ctx.config.log.retention_days.saturating_mul(24)),
    )?;
    let purged_rows: usize = purged.iter().map(|(_, n)| n).sum();
    let ttl = std::time::Duration::from_secs(ctx.config.context.ttl_hours * 3600);
    let purged_dirs = context::purge_report_dirs(ctx.project_root, ttl).unwrap_or_else(|e| {
        ctx.warn(format!("cannot purge old report folders: {e}"));
        0
    });
    let mut outcome = Outcome::silent()
        .detail("source", source.map(SessionSource::as_str))
        .detail("purged_rows", purged_rows)
        .detail("purged_report_dirs", purged_dirs);

    let mut sections = Vec::new();
    let give_digest = if source == Some(&SessionSource::Compact) {
        // Every compaction re-arms the conventions, not only the first.
        let expired = ctx
            .db
            .markers()
            .expire_all(session, ExpireReason::Compact)?;
        let count = sessions.record_compaction(session)?;
        outcome = outcome
            .detail("compaction", count)
            .detail("markers_expired", expired);
        true
    } else {
        // A session resumed after a compaction: what the compaction's SessionStart
        // added lived only in the process that compacted (Claude Code does not keep
        // it in the transcript), so the resumed agent gets it again.
        source == Some(&SessionSource::Resume)
            && sessions.info(session)?.is_some_and(|i| i.compactions > 0)
    };
    if give_digest {
        // The summary replaced what the subagents reported: give it back.
        let injection = context::for_main(ctx.db, ctx.config, session)?;
        outcome = outcome
            .detail("digest_entries", injection.digest.entries.len())
            .detail("digest_chars", injection.digest.text.chars().count());
        if !injection.text.is_empty() {
            sections.push(injection.text);
        }
    }
    if !ctx.config_present {
        sections.push(
            "[nagger] No .claude-nagger/config.toml in this project: nagger runs on its defaults \
             (shell guard on, no conventions). Run `nagger install` to write a commented template."
                .to_string(),
        );
    }
    if !sections.is_empty() {
        outcome.output = HookOutput::Context {
            event: HookEvent::SessionStart,
            text: sections.join("\n\n"),
        };
    }
    Ok(outcome)
}

pub fn end(ctx: &Ctx<'_>, reason: Option<&str>) -> anyhow::Result<Outcome> {
    let session = &ctx.common.session_id;
    ctx.db.sessions().end(session, reason)?;
    let metrics = session_metrics(ctx)?;
    let mut outcome = Outcome::silent().detail("reason", reason);
    outcome.details.insert("metrics".into(), metrics);
    if ctx.config.context.enabled {
        match write_summary(ctx) {
            Ok(path) => outcome = outcome.detail("summary", path.display().to_string()),
            Err(e) => ctx.warn(format!("cannot write the session summary: {e:#}")),
        }
    }
    Ok(outcome)
}

/// Most entries `_summary.md` lists.
const SUMMARY_ENTRIES: usize = 200;

/// `.claude-nagger/context/<session>/_summary.md`: every result of the session.
fn write_summary(ctx: &Ctx<'_>) -> anyhow::Result<std::path::PathBuf> {
    let session = &ctx.common.session_id;
    let repo = ctx.db.context();
    let mut entries = repo.session_results(session, None, None, SUMMARY_ENTRIES)?;
    entries.reverse();
    let files = repo.files_changed(session, None, SUMMARY_ENTRIES)?;
    let now = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let text = context::session_summary(session, &entries, &files, &now);
    Ok(context::write_summary(ctx.project_root, session, &text)?)
}

/// Agents, blocks and context size of the session, for its SessionEnd row.
fn session_metrics(ctx: &Ctx<'_>) -> anyhow::Result<serde_json::Value> {
    let metrics = ctx.db.sessions().metrics(&ctx.common.session_id)?;
    let mut value = serde_json::to_value(metrics)?;
    value["context_tokens"] = json!(pre_tool_use::context_tokens(ctx));
    Ok(value)
}
