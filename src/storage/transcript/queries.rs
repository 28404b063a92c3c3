//! What nagger looks for in a transcript: spawns and their exact links to agents
//! (collected by the incremental scan), token usage, the context size since the last
//! compaction, an agent's last words and the files it wrote (read from the end).

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{self, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use memchr::memmem::Finder;

use super::lines::{RawInput, RawLine, peek_kind};
use super::reverse::ReverseLines;
use super::scan::{FeedFrom, feed_lines, hex_prefix};
use super::{
    FORWARD, Limits, MAX_LINKS_PER_SCAN, MAX_PARSED_PER_SCAN, MAX_SPAWNS_PER_SCAN, run_budget_left,
};

/// The subagent tool: `Agent`, named `Task` before Claude Code 2.1.63.
const SPAWN_TOOLS: [&str; 2] = ["Agent", "Task"];

/// One Agent/Task tool_use found in the parent transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnRecord {
    /// 0-based line number in the file.
    pub line_index: u64,
    pub tool_use_id: Option<String>,
    /// "Agent" or "Task".
    pub tool_name: String,
    pub subagent_type: Option<String>,
    pub description: Option<String>,
    pub prompt: Option<String>,
    /// `input.name`, the team member name.
    pub name: Option<String>,
    pub team_name: Option<String>,
}

impl SpawnRecord {
    /// `sha256(prompt)`, first 16 hex digits: how `task_spawns` keys a prompt.
    pub fn prompt_hash(&self) -> Option<String> {
        self.prompt.as_deref().map(prompt_hash)
    }
}

/// `sha256(prompt)`, first 16 hex digits: the key that ties a spawn to the agent whose
/// own transcript starts with the same prompt.
pub fn prompt_hash(prompt: &str) -> String {
    hex_prefix(prompt.as_bytes(), 8)
}

/// An exact spawn -> agent link: a user line's top-level `toolUseResult.agentId` with
/// its tool_result's `tool_use_id`, or a progress line's `data.agentId` with
/// `parentToolUseID`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SpawnLink {
    pub tool_use_id: String,
    pub agent_id: String,
}

/// Token usage of one assistant message, or a sum of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
}

impl Usage {
    /// Every token the messages cost, input and output.
    pub fn total(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.output_tokens)
            .saturating_add(self.cache_creation_input_tokens)
            .saturating_add(self.cache_read_input_tokens)
    }

    /// The size of the context the message was answered from.
    pub fn context(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.cache_creation_input_tokens)
            .saturating_add(self.cache_read_input_tokens)
    }

    fn add(&mut self, other: Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cache_creation_input_tokens = self
            .cache_creation_input_tokens
            .saturating_add(other.cache_creation_input_tokens);
        self.cache_read_input_tokens = self
            .cache_read_input_tokens
            .saturating_add(other.cache_read_input_tokens);
    }

    /// Field-wise maximum: the lines of one message repeat its usage, and a streamed
    /// message's later lines may carry larger output counts.
    fn merge_repeat(&mut self, other: Usage) {
        self.input_tokens = self.input_tokens.max(other.input_tokens);
        self.output_tokens = self.output_tokens.max(other.output_tokens);
        self.cache_creation_input_tokens = self
            .cache_creation_input_tokens
            .max(other.cache_creation_input_tokens);
        self.cache_read_input_tokens = self
            .cache_read_input_tokens
            .max(other.cache_read_input_tokens);
    }
}

// ---------------------------------------------------------------------------------
// What the incremental scan collects

/// Substrings without which a line cannot hold a spawn or a link. Claude Code writes
/// compact JSON, but any JSON writer keeps these quoted tokens intact (whitespace goes
/// between tokens, and a quote inside a string is escaped), so no spawn is dropped.
pub(super) struct SpawnFilter {
    tool_use: Finder<'static>,
    agent: Finder<'static>,
    task: Finder<'static>,
    agent_id: Finder<'static>,
}

impl SpawnFilter {
    pub(super) fn new() -> Self {
        SpawnFilter {
            tool_use: Finder::new(b"\"tool_use\""),
            agent: Finder::new(b"\"Agent\""),
            task: Finder::new(b"\"Task\""),
            agent_id: Finder::new(b"\"agentId\""),
        }
    }

    fn may_spawn(&self, line: &[u8]) -> bool {
        self.tool_use.find(line).is_some()
            && (self.agent.find(line).is_some() || self.task.find(line).is_some())
    }

    fn may_link(&self, line: &[u8]) -> bool {
        self.agent_id.find(line).is_some()
    }
}

#[derive(Default)]
pub(super) struct Found {
    pub(super) spawns: VecDeque<SpawnRecord>,
    pub(super) links: VecDeque<SpawnLink>,
    seen_links: HashSet<SpawnLink>,
    pub(super) dropped: u64,
    /// Lines parsed as JSON so far.
    parsed: usize,
}

impl Found {
    /// Collects what the line holds; breaks once the scan parsed its share of lines.
    pub(super) fn collect(
        &mut self,
        line: &[u8],
        line_index: u64,
        filter: &SpawnFilter,
    ) -> ControlFlow<()> {
        let may_spawn = filter.may_spawn(line);
        let may_link = filter.may_link(line);
        if !may_spawn && !may_link {
            return ControlFlow::Continue(());
        }
        self.parsed += 1;
        if let Ok(raw) = serde_json::from_slice::<RawLine>(line) {
            if may_spawn && raw.kind.is("assistant") {
                self.collect_spawns(&raw, line_index);
            }
            if may_link {
                self.collect_links(&raw);
            }
        }
        if self.parsed >= MAX_PARSED_PER_SCAN {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }

    fn collect_spawns(&mut self, raw: &RawLine, line_index: u64) {
        let Some(message) = &raw.message.0 else {
            return;
        };
        for block in &message.content.0 {
            let Some(tool_name) = block.name.get().filter(|name| SPAWN_TOOLS.contains(name)) else {
                continue;
            };
            if !block.kind.is("tool_use") {
                continue;
            }
            let no_input = RawInput::default();
            let input = block.input.0.as_ref().unwrap_or(&no_input);
            if self.spawns.len() >= MAX_SPAWNS_PER_SCAN {
                self.spawns.pop_front();
                self.dropped += 1;
            }
            self.spawns.push_back(SpawnRecord {
                line_index,
                tool_use_id: block.id.owned(),
                tool_name: tool_name.to_owned(),
                subagent_type: input.subagent_type.owned(),
                description: input.description.owned(),
                prompt: input.prompt.owned(),
                name: input.name.owned(),
                team_name: input.team_name.owned(),
            });
        }
    }

    fn collect_links(&mut self, raw: &RawLine) {
        if let Some(agent_id) = raw
            .tool_use_result
            .0
            .as_ref()
            .and_then(|r| r.agent_id.get())
        {
            // The result answers the line's tool_result; with several, which one is unknown.
            let mut answered = raw
                .message
                .0
                .iter()
                .flat_map(|message| &message.content.0)
                .filter(|block| block.kind.is("tool_result"))
                .filter_map(|block| block.tool_use_id.get());
            if let Some(tool_use_id) = answered.next()
                && answered.all(|other| other == tool_use_id)
            {
                self.link(tool_use_id, agent_id);
            }
        }
        let progress_agent = raw.data.0.as_ref().and_then(|data| data.agent_id.get());
        if let (Some(agent_id), Some(tool_use_id)) = (progress_agent, raw.parent_tool_use_id.get())
        {
            self.link(tool_use_id, agent_id);
        }
    }

    fn link(&mut self, tool_use_id: &str, agent_id: &str) {
        if tool_use_id.is_empty() || agent_id.is_empty() {
            return;
        }
        let link = SpawnLink {
            tool_use_id: tool_use_id.to_owned(),
            agent_id: agent_id.to_owned(),
        };
        if self.seen_links.contains(&link) {
            return;
        }
        if self.links.len() >= MAX_LINKS_PER_SCAN
            && let Some(oldest) = self.links.pop_front()
        {
            self.seen_links.remove(&oldest);
            self.dropped += 1;
        }
        self.seen_links.insert(link.clone());
        self.links.push_back(link);
    }
}

// ---------------------------------------------------------------------------------
// Whole-file and from-the-end reads

/// Usage of a whole transcript (a subagent's own), each message counted once however
/// many lines repeat its usage. Lines without `message.id` count each.
pub fn total_usage(path: &Path) -> io::Result<Usage> {
    total_usage_with(path, FORWARD)
}

pub(super) fn total_usage_with(path: &Path, limits: Limits) -> io::Result<Usage> {
    let mut file = crate::storage::agent_files::open_regular(path)?;
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
/// blocks (across the lines of that `message.id`) joined with `\n`.
pub fn last_assistant_text(path: &Path) -> io::Result<Option<String>> {
    last_assistant_text_in(&mut ReverseLines::open(path)?)
}

pub(super) fn last_assistant_text_in(lines: &mut ReverseLines) -> io::Result<Option<String>> {
    let assistant = Finder::new(b"\"assistant\"");
    // The message found, and its texts line by line, last line first.
    let mut message_id: Option<Option<String>> = None;
    let mut texts: Vec<Vec<String>> = Vec::new();
    let mut parsed = 0usize;
    let gave_up = lines
        .try_for_each(|line| {
            if assistant.find(line).is_none() {
                return ControlFlow::Continue(());
            }
            parsed += 1;
            if parsed > MAX_PARSED_PER_SCAN && texts.is_empty() {
                return ControlFlow::Break(true);
            }
            let Ok(raw) = serde_json::from_slice::<RawLine>(line) else {
                return ControlFlow::Continue(());
            };
            let Some(message) = raw.message.0.as_ref().filter(|_| raw.kind.is("assistant")) else {
                return ControlFlow::Continue(());
            };
            let id = message.id.owned();
            if let Some(found) = &message_id
                && (found.is_none() || *found != id)
            {
                return ControlFlow::Break(false);
            }
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
                message_id.get_or_insert(id);
                texts.push(line_texts);
            }
            ControlFlow::Continue(())
        })?
        .unwrap_or(false);
    if texts.is_empty() {
        if lines.exhausted() || gave_up {
            return Err(io::Error::other(format!(
                "no assistant text in the {} KiB from its end that one hook reads",
                lines.bytes_read() / 1024
            )));
        }
        return Ok(None);
    }
    texts.reverse();
    Ok(Some(texts.concat().join("\n")))
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
