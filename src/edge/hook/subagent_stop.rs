//! SubagentStop: first the compression check (an agent that tries to stop without
//! a `[COMPRESSED]` report is sent back once), then its result is collected into
//! the shared context and the agent leaves the Registry for subagent_history.

use super::ctx::{Ctx, Outcome};
use super::event::SubagentStop as Stop;
use super::wire::HookOutput;
use crate::base::num::to_i64;
use crate::base::text::cut;
use crate::domain::compress;
use crate::domain::context;
use crate::storage::store::{Due, Marker, NewContextEntry};
use crate::storage::transcript;
use std::path::{Path, PathBuf};

/// The agent's final message, as far as it can be known.
enum FinalMessage {
    Text(String),
    /// The agent said nothing in text (its transcript is empty, holds only the prompt,
    /// or no text of the agent's).
    Empty,
    /// Neither the input nor a readable transcript says.
    Unknown,
}

impl FinalMessage {
    fn text(&self) -> Option<&str> {
        match self {
            FinalMessage::Text(t) => Some(t),
            _ => None,
        }
    }
}

/// A report file larger than this is read only this far.
const MAX_REPORT_BYTES: u64 = 256 * 1024;

pub fn handle(ctx: &Ctx<'_>, stop: &Stop) -> anyhow::Result<Outcome> {
    let record = ctx.db.subagents().get(&stop.agent_id)?;
    let Some(agent_type) = stop
        .agent_type
        .clone()
        .or_else(|| record.as_ref().map(|r| r.agent_type.clone()))
    else {
        // Claude Code's own helpers (the compaction's, for one) stop without a type and
        // never started as a subagent nagger saw: not a subagent of the user's, so there
        // is nothing to check, collect or move to history.
        let mut outcome = Outcome::silent().detail("untyped", true);
        outcome.agent_id = Some(stop.agent_id.clone());
        return Ok(outcome);
    };
    let agent_type = agent_type.as_str();
    let final_message = final_message(ctx, stop);
    let role = record.and_then(|r| r.role);

    let check = compression_check(ctx, stop, agent_type, role.as_deref(), &final_message);
    let check_word = match check {
        Ok(Check::Block(reason)) => {
            let mut outcome = Outcome::with(HookOutput::Block { reason })
                .detail("agent_type", agent_type)
                .detail("role", role)
                .detail("compression", "blocked");
            outcome.agent_id = Some(stop.agent_id.clone());
            return Ok(outcome);
        }
        Ok(Check::Pass(word)) => word,
        Err(e) => {
            // Never block because nagger failed.
            ctx.warn(format!("compression check failed (passing): {e:#}"));
            "error"
        }
    };

    let collected = collect(ctx, stop, agent_type, role.as_deref(), &final_message);
    let tokens = agent_tokens(ctx, stop);
    let history = ctx.db.subagents().unregister(
        &stop.agent_id,
        &ctx.common.session_id,
        agent_type,
        tokens,
        collected.content.as_deref(),
    )?;
    let mut entry_id = None;
    let category = context::category_of(&ctx.config.context, history.role.as_deref(), agent_type);
    if ctx.config.context.enabled
        && let Some(content) = collected.content.as_deref()
    {
        let tags = compress::report_tags(content);
        entry_id = ctx.db.context().insert(&NewContextEntry {
            session_id: &ctx.common.session_id,
            agent_id: Some(&stop.agent_id),
            agent_type: Some(agent_type),
            role: history.role.as_deref(),
            category: &category,
            content,
            tags: &tags,
            files: &collected.files,
            tokens,
        })?;
    }
    let mut outcome = Outcome::silent()
        .detail("agent_type", agent_type)
        .detail("role", history.role.clone())
        .detail("duration_ms", history.duration_ms)
        .detail("tokens", tokens)
        .detail("stop_hook_active", stop.stop_hook_active)
        .detail("compression", check_word)
        .detail("collected_from", collected.source)
        .detail("category", category)
        .detail("files_written", collected.files.len())
        .detail("context_entry", entry_id)
        .detail(
            "final_message_chars",
            final_message.text().map(|t| t.chars().count()),
        );
    outcome.agent_id = Some(stop.agent_id.clone());
    Ok(outcome)
}

enum Check {
    Block(String),
    /// Why it passed, for hook_log.
    Pass(&'static str),
}

/// Decides whether the stop is sent back for a compressed report: only when the
/// check applies to the agent, Claude Code is not already continuing it because of
/// a stop hook, its final message was read, says something and lacks the marker, and
/// nagger has not sent this agent back before.
fn compression_check(
    ctx: &Ctx<'_>,
    stop: &Stop,
    agent_type: &str,
    role: Option<&str>,
    final_message: &FinalMessage,
) -> anyhow::Result<Check> {
    let config = &ctx.config.compress;
    if stop.stop_hook_active {
        return Ok(Check::Pass("stop_hook_active"));
    }
    // A stop that does not say its type is not sent back on the type the agent started
    // with: an agent is never blocked on what its stop left out.
    if stop.agent_type.is_none() {
        return Ok(Check::Pass("ids_missing"));
    }
    if !compress::applies(config, agent_type, role) {
        return Ok(Check::Pass("off"));
    }
    // Only a final message that was read can lack its report: no message is nothing
    // to judge.
    let text = match final_message {
        FinalMessage::Unknown => return Ok(Check::Pass("unknown_message")),
        FinalMessage::Empty => return Ok(Check::Pass("no_message")),
        FinalMessage::Text(text) => text,
    };
    if !compress::sends_back(Some(text), &config.marker) {
        return Ok(Check::Pass("present"));
    }
    let marker = Marker::CompressBlock {
        agent_id: &stop.agent_id,
    };
    let due = ctx
        .db
        .markers()
        .take_due(&ctx.common.session_id, marker, 0, || 0)?;
    if due != Due::First {
        return Ok(Check::Pass("blocked_before"));
    }
    let reviewer = compress::is_reviewer(config, agent_type, role);
    Ok(Check::Block(compress::block_reason(
        config, agent_type, reviewer,
    )))
}

/// `last_assistant_message`, else the last assistant text of the agent's
/// transcript, read from the end.
fn final_message(ctx: &Ctx<'_>, stop: &Stop) -> FinalMessage {
    let path = agent_transcript(ctx, stop);
    if let Some(text) = stop
        .last_assistant_message
        .as_deref()
        .filter(|t| says_something(t))
    {
        // What Claude Code wrote for an agent that ended on an API error, or that the
        // user interrupted, is no reply of the agent's to send back.
        if path.as_deref().is_some_and(transcript::ended_without_reply) {
            return FinalMessage::Empty;
        }
        return FinalMessage::Text(text.to_string());
    }
    let Some(path) = path else {
        return FinalMessage::Unknown;
    };
    match transcript::last_assistant_text(&path) {
        Ok(Some(text)) if says_something(&text) => FinalMessage::Text(text),
        Ok(_) => FinalMessage::Empty,
        Err(e) => {
            ctx.warn(format!("cannot read {}: {e}", path.display()));
            FinalMessage::Unknown
        }
    }
}

/// Whether `text` shows anything to a reader: a letter (Unicode's identifier-start
/// property, which leaves out marks, format characters, private-use, unassigned and
/// noncharacter code points), a digit, ASCII punctuation, or a pictograph, once terminal
/// escape sequences are taken out. Blanks, controls, zero-width and bidirectional marks,
/// combining marks on their own, tags, braille blanks and the like say nothing.
fn says_something(text: &str) -> bool {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        // `ESC [ … letter`: a terminal's colour or cursor command; `ESC ] … BEL` (or
        // `ESC \`): one that sets a title.
        if c == '\u{1b}' {
            match chars.peek() {
                Some('[') => {
                    chars.next();
                    for n in chars.by_ref() {
                        if !(n.is_ascii_digit() || ";?:<=>".contains(n)) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    while let Some(n) = chars.next() {
                        if n == '\u{7}' || n == '\u{1b}' && chars.next_if_eq(&'\\').is_some() {
                            break;
                        }
                    }
                }
                _ => {}
            }
            continue;
        }
        let u = u32::from(c);
        // Arrows, symbols, dingbats and emoji (braille, from U+2800, is left out), but
        // not a skin tone on its own.
        let pictograph = matches!(u, 0x2190..=0x27BF | 0x2B00..=0x2BFF | 0x1F000..=0x1FAFF)
            && !matches!(u, 0x1F3FB..=0x1F3FF);
        // Hangul fillers are letters that show nothing.
        let filler = matches!(u, 0x115F | 0x1160 | 0x3164 | 0xFFA0);
        if (unicode_ident::is_xid_start(c) && !filler)
            || c.is_numeric()
            || c.is_ascii_graphic()
            || pictograph
        {
            return true;
        }
    }
    false
}

/// What the agent leaves for later agents.
struct Collected {
    content: Option<String>,
    source: &'static str,
    files: Vec<String>,
}

/// The agent's own report file, else its `[COMPRESSED]` block, else its final
/// message cut to `max_entry_chars`; with the files it wrote.
fn collect(
    ctx: &Ctx<'_>,
    stop: &Stop,
    agent_type: &str,
    role: Option<&str>,
    final_message: &FinalMessage,
) -> Collected {
    let max = ctx.config.context.max_entry_chars;
    let compress = &ctx.config.compress;
    let report = context::report_path(
        ctx.project_root,
        &ctx.common.session_id,
        agent_type,
        &stop.agent_id,
    );
    let from_file = match context::read_report(ctx.project_root, &report, MAX_REPORT_BYTES) {
        Ok(text) => text.filter(|t| !t.trim().is_empty()),
        Err(e) => {
            ctx.warn(format!("cannot read report {}: {e}", report.display()));
            None
        }
    };
    let (content, source) = if let Some(text) = from_file {
        (Some(cut(text.trim(), max)), "report_file")
    } else if let Some(block) = final_message.text().and_then(|t| {
        let reviewer = compress::is_reviewer(compress, agent_type, role);
        compress::compressed_block(t, &compress.marker, compress::max_lines(compress, reviewer))
    }) {
        (Some(cut(&block, max)), "compressed")
    } else if let Some(text) = final_message.text() {
        (Some(cut(text.trim(), max)), "final_message")
    } else {
        (None, "nothing")
    };
    Collected {
        content,
        source,
        files: files_written(ctx, stop),
    }
}

/// Files the agent wrote: Write/Edit/MultiEdit/NotebookEdit calls in the last
/// `max_transcript_lines` of its transcript, and what PostToolUse recorded for it;
/// project-relative where possible, each once.
fn files_written(ctx: &Ctx<'_>, stop: &Stop) -> Vec<String> {
    let mut files = Vec::new();
    if let Some(path) = agent_transcript(ctx, stop) {
        match transcript::files_written(&path, ctx.config.context.max_transcript_lines) {
            Ok(found) => files.extend(found),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => ctx.warn(format!("cannot read {}: {e}", path.display())),
        }
    }
    match ctx
        .db
        .context()
        .files_changed(&ctx.common.session_id, Some(&stop.agent_id), 200)
    {
        Ok(changes) => files.extend(changes.into_iter().rev().map(|c| c.path)),
        Err(e) => ctx.warn(format!("cannot read file changes: {e}")),
    }
    let mut seen = std::collections::HashSet::new();
    files
        .into_iter()
        .map(|f| context::project_relative(ctx.project_root, &f))
        .filter(|f| seen.insert(f.clone()))
        .collect()
}

/// The agent's own transcript: the path Claude Code gave (a `.jsonl` file), else
/// the derived one.
pub fn agent_transcript(ctx: &Ctx<'_>, stop: &Stop) -> Option<PathBuf> {
    let given = stop
        .agent_transcript_path
        .as_deref()
        .map(PathBuf::from)
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"));
    given.or_else(|| {
        let parent = ctx.common.transcript_path.as_deref()?;
        transcript::subagent_transcript_path(Path::new(parent), &stop.agent_id)
    })
}

/// Tokens the agent used, deduplicated by message id; None when unreadable.
fn agent_tokens(ctx: &Ctx<'_>, stop: &Stop) -> Option<i64> {
    let path = agent_transcript(ctx, stop)?;
    transcript::total_usage(&path)
        .ok()
        .map(|u| to_i64(u.total()))
}

#[cfg(test)]
mod tests {
    use super::says_something;

    #[test]
    fn only_text_a_reader_sees_says_something() {
        for text in [
            "done",
            "[COMPRESSED]",
            "42",
            "完了",
            "готово",
            "✅",
            "...",
            "\u{1b}[1mok\u{1b}[0m",
        ] {
            assert!(says_something(text), "{text:?}");
        }
        for text in [
            "",
            "  \n\t",
            "\u{200b}\u{2060}\u{feff}",
            "\u{2800}",
            "\u{e000}\u{f8ff}\u{f0000}",
            "\u{ffff}\u{fffe}",
            "\u{1bca0}\u{13430}\u{0600}\u{06dd}",
            "\u{064b}\u{0591}\u{0e31}\u{0301}",
            "\u{e0041}\u{e007f}",
            "\u{1b}[0m\u{1b}[2J",
            "\u{00a0}\u{3000}",
            "\u{fffd}",
            "\u{1f3fb}",
            "\u{1160}\u{3164}",
            "\u{1b}]0;title\u{7}",
        ] {
            assert!(!says_something(text), "{text:?}");
        }
    }
}
