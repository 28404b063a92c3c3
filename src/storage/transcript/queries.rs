//! What nagger asks of a whole transcript: its token usage, the context size since the
//! last compaction, an agent's last words and the files it wrote (read from the end),
//! and where a subagent's own transcript lies.

use std::collections::{HashMap, HashSet};
use std::io::{self, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use memchr::memmem::Finder;

use super::budget::{FORWARD, Limits, MAX_PARSED_PER_SCAN, run_budget_left};
use super::lines::{RawLine, peek_kind};
use super::records::Usage;
use super::reverse::ReverseLines;
use super::scan::{FeedFrom, feed_lines};
use crate::base::files::open_regular;

/// Usage of a whole transcript (a subagent's own), each message counted once however
/// many lines repeat its usage. Lines without `message.id` count each.
pub fn total_usage(path: &Path) -> io::Result<Usage> {
    total_usage_with(path, FORWARD)
}

pub(super) fn total_usage_with(path: &Path, limits: Limits) -> io::Result<Usage> {
    let mut file = open_regular(path)?;
    let len = file.metadata()?.len();
    // A transcript longer than the budget is counted over its last bytes.
    let start = len.saturating_sub(limits.budget.min(run_budget_left()));
    file.seek(SeekFrom::Start(start))?;
    let has_usage = Finder::new(b"\"usage\"");
    let mut by_message: HashMap<String, Usage> = HashMap::new();
    let mut total = Usage::default();
    let from = FeedFrom {
        mid_line: start > 0,
        include_tail: true,
    };
    let mut parsed = 0usize;
    feed_lines(
        &mut file,
        len - start,
        Vec::new(),
        limits,
        from,
        |_, line| {
            if has_usage.find(line).is_none() {
                return ControlFlow::Continue(());
            }
            parsed += 1;
            if parsed > MAX_PARSED_PER_SCAN {
                return ControlFlow::Break(());
            }
            let Ok(raw) = serde_json::from_slice::<RawLine>(line) else {
                return ControlFlow::Continue(());
            };
            if let Some((message, usage)) = raw.assistant_usage() {
                match message.id.get() {
                    Some(id) => by_message
                        .entry(id.to_owned())
                        .or_default()
                        .merge_repeat(usage),
                    None => total.add(usage),
                }
            }
            ControlFlow::Continue(())
        },
    )?;
    for usage in by_message.into_values() {
        total.add(usage);
    }
    Ok(total)
}

/// Context size in tokens: input + cache creation + cache read tokens of the last
/// main-chain (not sidechain) assistant line with usage after the last compaction.
/// `Some(0)` when a compaction comes after every such line, `None` when there is none.
/// Synthetic assistant lines (model `<synthetic>`, no API call) are not measurements.
pub fn current_context_tokens(path: &Path) -> io::Result<Option<u64>> {
    context_tokens_in(&mut ReverseLines::open(path)?)
}

pub(super) fn context_tokens_in(lines: &mut ReverseLines) -> io::Result<Option<u64>> {
    let assistant = Finder::new(b"\"assistant\"");
    let usage = Finder::new(b"\"usage\"");
    let boundary = Finder::new(b"\"compact_boundary\"");
    let found = lines.try_for_each(|line| {
        let is_boundary = boundary.find(line).is_some();
        if !is_boundary && (usage.find(line).is_none() || assistant.find(line).is_none()) {
            return ControlFlow::Continue(());
        }
        // While a subagent works, the main transcript ends in its progress lines, each
        // quoting a whole assistant message: rule them out by their top-level type.
        if !matches!(peek_kind(line).as_deref(), Some("assistant" | "system")) {
            return ControlFlow::Continue(());
        }
        let Ok(raw) = serde_json::from_slice::<RawLine>(line) else {
            return ControlFlow::Continue(());
        };
        if raw.is_sidechain.0 {
            return ControlFlow::Continue(());
        }
        if is_boundary && raw.kind.is("system") && raw.subtype.is("compact_boundary") {
            return ControlFlow::Break(0);
        }
        match raw.assistant_usage() {
            Some((message, usage)) if !message.model.is("<synthetic>") => {
                ControlFlow::Break(usage.context())
            }
            _ => ControlFlow::Continue(()),
        }
    })?;
    Ok(found)
}

/// The text of the last assistant message that has any, read from the end: its text
/// blocks (across the lines of that `message.id`) joined with `\n`. None when the agent
/// ended without a reply of its own (see [`ended_without_reply`]).
pub fn last_assistant_text(path: &Path) -> io::Result<Option<String>> {
    last_assistant_text_in(&mut ReverseLines::open(path)?)
}

/// Whether the transcript's agent ended without a reply of its own: its last assistant
/// entry is one Claude Code wrote for it (model `<synthetic>`: an API error, a request
/// refused), or the user interrupted it after its last reply. False when that cannot be
/// read.
pub fn ended_without_reply(path: &Path) -> bool {
    ReverseLines::open(path).is_ok_and(|mut lines| scan_last_reply(&mut lines).is_ok_and(|r| r.1))
}

pub(super) fn last_assistant_text_in(lines: &mut ReverseLines) -> io::Result<Option<String>> {
    let (text, ended) = scan_last_reply(lines)?;
    Ok(text.filter(|_| !ended))
}

/// The last assistant text, and whether the agent ended without a reply of its own.
fn scan_last_reply(lines: &mut ReverseLines) -> io::Result<(Option<String>, bool)> {
    let assistant = Finder::new(b"\"assistant\"");
    let interrupted = Finder::new(b"[Request interrupted by user");
    let mut ended = false;
    // The newest assistant entry's id, once found, and its texts line by line, last line
    // first. Only lines of that entry belong to the final message: when they hold no
    // text, there is none (an older message is not the final one).
    let mut message_id: Option<Option<String>> = None;
    let mut texts: Vec<Vec<String>> = Vec::new();
    let mut parsed = 0usize;
    // Before the newest assistant entry is found, a line nagger cannot read (torn, too
    // long, not an object, an assistant line that does not parse) may be it: what the
    // agent said last is then not known (no text is found).
    let mut unreadable = false;
    let gave_up = lines
        .try_for_each_marked(|line| {
            let found = message_id.is_some();
            let Some(line) = line else {
                if found {
                    return ControlFlow::Break(false);
                }
                unreadable = true;
                return ControlFlow::Break(false);
            };
            let blank = line.iter().all(u8::is_ascii_whitespace);
            if blank {
                return ControlFlow::Continue(());
            }
            if assistant.find(line).is_none() {
                if found {
                    // A tool's result between the lines of the final message.
                    return ControlFlow::Continue(());
                }
                if interrupted.find(line).is_some()
                    && serde_json::from_slice::<RawLine>(line).is_ok_and(|r| r.kind.is("user"))
                {
                    ended = true;
                    return ControlFlow::Break(false);
                }
                // Another kind of entry after the final message (a system note): read on,
                // when it is one.
                let object = line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
                    && serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok();
                if !object {
                    unreadable = true;
                    return ControlFlow::Break(false);
                }
                return ControlFlow::Continue(());
            }
            parsed += 1;
            if parsed > MAX_PARSED_PER_SCAN && !found {
                return ControlFlow::Break(true);
            }
            let raw = match serde_json::from_slice::<RawLine>(line) {
                Ok(raw) => raw,
                Err(_) if found => return ControlFlow::Break(false),
                Err(_) => {
                    // Torn, or an assistant entry of a shape nagger does not read.
                    unreadable = true;
                    return ControlFlow::Break(false);
                }
            };
            if !raw.kind.is("assistant") {
                if !found && raw.kind.is("user") && interrupted.find(line).is_some() {
                    ended = true;
                    return ControlFlow::Break(false);
                }
                // A user's or tool's entry that quotes the word; an entry of no kind nagger
                // reads, before the final message is found, may be it.
                if raw.kind.get().is_none() && !found {
                    unreadable = true;
                    return ControlFlow::Break(false);
                }
                return ControlFlow::Continue(());
            }
            let Some(message) = raw.message.0.as_ref() else {
                if !found {
                    unreadable = true;
                }
                return ControlFlow::Break(false);
            };
            if !found && message.model.is("<synthetic>") {
                ended = true;
                return ControlFlow::Break(false);
            }
            let id = message.id.owned();
            if let Some(newest) = &message_id
                && (newest.is_none() || *newest != id)
            {
                return ControlFlow::Break(false);
            }
            message_id.get_or_insert(id);
            let line_texts: Vec<String> = message
                .content
                .0
                .iter()
                .filter(|block| block.kind.is("text"))
                .filter_map(|block| block.text.get())
                .filter(|text| !text.trim().is_empty())
                .map(str::to_owned)
                .collect();
            if !line_texts.is_empty() {
                texts.push(line_texts);
            }
            ControlFlow::Continue(())
        })?
        .unwrap_or(false);
    if ended {
        return Ok((None, true));
    }
    if unreadable {
        return Ok((None, false));
    }
    if texts.is_empty() {
        if message_id.is_none() && (lines.exhausted() || gave_up) {
            return Err(io::Error::other(format!(
                "no assistant text in the {} KiB from its end that one hook reads",
                lines.bytes_read() / 1024
            )));
        }
        return Ok((None, false));
    }
    texts.reverse();
    Ok((Some(texts.concat().join("\n")), false))
}

/// Files the transcript's agent wrote: `file_path` of Write/Edit/MultiEdit and
/// `notebook_path` of NotebookEdit tool_use blocks in the last `max_lines` lines,
/// each once, in the order they were first written.
pub fn files_written(path: &Path, max_lines: usize) -> io::Result<Vec<String>> {
    files_written_in(&mut ReverseLines::open(path)?, max_lines)
}

pub(super) fn files_written_in(
    lines: &mut ReverseLines,
    max_lines: usize,
) -> io::Result<Vec<String>> {
    let tool_use = Finder::new(b"\"tool_use\"");
    let write = Finder::new(b"\"Write\"");
    // Also matches "MultiEdit" and "NotebookEdit".
    let edit = Finder::new(b"Edit\"");
    let mut newest_first = Vec::new();
    let mut left = max_lines;
    lines.try_for_each(|line| {
        if left == 0 {
            return ControlFlow::Break(());
        }
        left -= 1;
        if tool_use.find(line).is_none()
            || (write.find(line).is_none() && edit.find(line).is_none())
        {
            return ControlFlow::Continue(());
        }
        let Ok(raw) = serde_json::from_slice::<RawLine>(line) else {
            return ControlFlow::Continue(());
        };
        let Some(message) = raw.message.0.as_ref().filter(|_| raw.kind.is("assistant")) else {
            return ControlFlow::Continue(());
        };
        let mut line_paths: Vec<String> = message
            .content
            .0
            .iter()
            .filter(|block| block.kind.is("tool_use"))
            .filter_map(|block| {
                let input = block.input.0.as_ref()?;
                match block.name.get()? {
                    "Write" | "Edit" | "MultiEdit" => input.file_path.owned(),
                    "NotebookEdit" => input.notebook_path.owned(),
                    _ => None,
                }
            })
            .filter(|path| !path.is_empty())
            .collect();
        line_paths.reverse();
        newest_first.append(&mut line_paths);
        ControlFlow::Continue(())
    })?;
    let mut seen = HashSet::new();
    Ok(newest_first
        .into_iter()
        .rev()
        .filter(|path| seen.insert(path.clone()))
        .collect())
}

/// `<parent without .jsonl>/subagents/agent-<agent_id>.jsonl`; `None` when `agent_id`
/// could escape that directory (only `[A-Za-z0-9_-]`, 1 to 128 characters, pass).
pub fn subagent_transcript_path(parent_transcript: &Path, agent_id: &str) -> Option<PathBuf> {
    let safe = (1..=128).contains(&agent_id.len())
        && agent_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !safe {
        return None;
    }
    let session_dir = if parent_transcript
        .extension()
        .is_some_and(|ext| ext == "jsonl")
    {
        parent_transcript.with_extension("")
    } else {
        parent_transcript.to_path_buf()
    };
    Some(
        session_dir
            .join("subagents")
            .join(format!("agent-{agent_id}.jsonl")),
    )
}
