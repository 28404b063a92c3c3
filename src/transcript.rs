//! Reading Claude Code's JSONL transcripts: incremental scans of a parent transcript
//! for subagent spawns and their exact spawn -> agent links, and reads from the end of
//! a transcript for the context size, an agent's last words and the files it wrote.
//!
//! Claude Code appends to the file while nagger reads it, so a malformed or cut-short
//! line is skipped, never an error; only I/O failures are. Every read is bounded: a scan
//! reads what was appended since the last one, a read from the end stops at its answer.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::{self, Write as _};
use std::fs::{File, Metadata};
use std::io::{self, Read, Seek, SeekFrom};
use std::marker::PhantomData;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use memchr::memmem::Finder;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use sha2::{Digest, Sha256};

/// The subagent tool: `Agent`, named `Task` before Claude Code 2.1.63.
const SPAWN_TOOLS: [&str; 2] = ["Agent", "Task"];
/// How many bytes before a cursor identify the file content it was taken on.
const FINGERPRINT_WINDOW: usize = 256;
/// Lines longer than this are counted but never parsed, so memory stays bounded.
const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;
/// Most bytes one scan reads: a first scan of a longer transcript starts this far from
/// its end, and a longer append is read over several scans. Twice the longest line, so
/// that every line kept fits in one scan.
pub const SCAN_BUDGET: u64 = 2 * MAX_LINE_BYTES as u64;
/// Most bytes one read from the end, or one usage count, reads.
pub const READ_BUDGET: u64 = 32 * 1024 * 1024;
thread_local! {
    /// Bytes this thread may still read from transcripts: unbounded unless a hook run
    /// set it with [`set_run_budget`].
    static RUN_BUDGET: std::cell::Cell<u64> = const { std::cell::Cell::new(u64::MAX) };
}

/// Bounds what every later transcript read on this thread may read in all: one hook
/// run costs at most this many bytes whatever its transcripts hold.
pub fn set_run_budget(bytes: u64) {
    RUN_BUDGET.with(|b| b.set(bytes));
}

/// Bytes of the run's budget left.
fn run_budget_left() -> u64 {
    RUN_BUDGET.with(std::cell::Cell::get)
}

/// Counts `bytes` read against the run's budget.
fn spend(bytes: u64) {
    RUN_BUDGET.with(|b| b.set(b.get().saturating_sub(bytes)));
}

/// Most spawns one scan keeps: past it, the oldest are dropped first.
pub const MAX_SPAWNS_PER_SCAN: usize = 512;
/// Most lines one scan parses as JSON (those that may hold a spawn or a link): a
/// transcript full of them is read over several scans, each of bounded cost.
pub const MAX_PARSED_PER_SCAN: usize = 4096;
/// Most distinct links one scan keeps: past it, the oldest are dropped first.
pub const MAX_LINKS_PER_SCAN: usize = 2048;

/// Read sizes, the longest line kept in memory and the most bytes one call reads.
#[derive(Debug, Clone, Copy)]
struct Limits {
    chunk: usize,
    max_line: usize,
    budget: u64,
}

/// Forward scans: big reads, sized to stay in cache while memchr runs over them.
const FORWARD: Limits = Limits {
    chunk: 256 * 1024,
    max_line: MAX_LINE_BYTES,
    budget: SCAN_BUDGET,
};
/// Reads from the end: the answer is usually in the last few lines.
const REVERSE: Limits = Limits {
    chunk: 64 * 1024,
    max_line: MAX_LINE_BYTES,
    budget: READ_BUDGET,
};

/// Where an earlier scan of a transcript stopped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScanCursor {
    /// Byte offset just past the last complete line scanned.
    pub offset: u64,
    /// Complete lines before `offset`.
    pub line_count: u64,
    /// Identifies the file and the bytes just before `offset`; a scan that finds it
    /// changed starts again from the beginning. Opaque: store and hand back as is.
    pub fingerprint: String,
}

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

/// What one call of [`scan_spawns`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanOutcome {
    /// Spawns in file order.
    pub spawns: Vec<SpawnRecord>,
    /// Links in first-seen order, each pair once per scan (a later scan may repeat one).
    pub links: Vec<SpawnLink>,
    /// Where the next scan starts.
    pub cursor: ScanCursor,
    /// Bytes read from the file by this call.
    pub bytes_read: u64,
    /// The previous cursor no longer fit the file (it shrank or was replaced), so the
    /// whole file was scanned again: spawns and links seen before come again.
    pub rescanned_from_start: bool,
    /// Spawns and links past the per-scan caps, dropped oldest first.
    pub dropped: u64,
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
// Incremental spawn scan

/// Scans `path` for Agent/Task spawns and spawn -> agent links, from `previous` (or
/// the start) to the end of the file. A last line without its `\n` is left for the
/// next scan. A missing or unreadable file is an error for the caller to handle.
pub fn scan_spawns(path: &Path, previous: Option<&ScanCursor>) -> io::Result<ScanOutcome> {
    scan_spawns_with(path, previous, FORWARD)
}

fn scan_spawns_with(
    path: &Path,
    previous: Option<&ScanCursor>,
    limits: Limits,
) -> io::Result<ScanOutcome> {
    let mut file = crate::agent_files::open_regular(path)?;
    let meta = file.metadata()?;
    // Read up to the size at open: what is appended meanwhile is for the next scan.
    let len = meta.len();
    let identity = file_identity(&meta);
    let mut bytes_read = 0u64;

    let mut resume = None;
    if let Some(prev) = previous.filter(|prev| prev.offset <= len) {
        let window_len = prev.offset.min(FINGERPRINT_WINDOW as u64);
        file.seek(SeekFrom::Start(prev.offset - window_len))?;
        let mut window = Vec::with_capacity(FINGERPRINT_WINDOW);
        (&mut file).take(window_len).read_to_end(&mut window)?;
        bytes_read += window.len() as u64;
        if fingerprint(&identity, &window) == prev.fingerprint {
            resume = Some((prev.offset, prev.line_count, window));
        }
    }
    let rescanned_from_start = previous.is_some() && resume.is_none();
    // A transcript met for the first time (or again from the start) is read only over
    // its last bytes: what came long before is history.
    let (start, line_base, window) =
        resume.unwrap_or_else(|| (len.saturating_sub(limits.budget), 0, Vec::new()));
    file.seek(SeekFrom::Start(start))?;
    // Starting inside a line (an over-long one passed before, or the far end of a
    // transcript read from near its end): its rest is not a line.
    let mid_line = start > 0 && window.last() != Some(&b'\n');
    let to_read = (len - start).min(limits.budget).min(run_budget_left());

    let filter = SpawnFilter::new();
    let mut found = Found::default();
    let feed = feed_lines(
        &mut file,
        to_read,
        window,
        limits,
        FeedFrom {
            mid_line,
            include_tail: false,
        },
        |index, line| found.collect(line, line_base + index, &filter),
    )?;
    // A tail longer than any line kept is never read again from its start: the cursor
    // moves past what was read of it.
    let (offset, window) = if feed.skipping {
        (start + feed.fed, feed.end_window)
    } else {
        (start + feed.consumed, feed.window)
    };

    Ok(ScanOutcome {
        spawns: found.spawns.into(),
        links: found.links.into(),
        cursor: ScanCursor {
            offset,
            line_count: line_base + feed.lines,
            fingerprint: fingerprint(&identity, &window),
        },
        bytes_read: bytes_read + feed.bytes_read,
        rescanned_from_start,
        dropped: found.dropped,
    })
}

/// Substrings without which a line cannot hold a spawn or a link. Claude Code writes
/// compact JSON, but any JSON writer keeps these quoted tokens intact (whitespace goes
/// between tokens, and a quote inside a string is escaped), so no spawn is dropped.
struct SpawnFilter {
    tool_use: Finder<'static>,
    agent: Finder<'static>,
    task: Finder<'static>,
    agent_id: Finder<'static>,
}

impl SpawnFilter {
    fn new() -> Self {
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
struct Found {
    spawns: VecDeque<SpawnRecord>,
    links: VecDeque<SpawnLink>,
    seen_links: HashSet<SpawnLink>,
    dropped: u64,
    /// Lines parsed as JSON so far.
    parsed: usize,
}

impl Found {
    /// Collects what the line holds; breaks once the scan parsed its share of lines.
    fn collect(&mut self, line: &[u8], line_index: u64, filter: &SpawnFilter) -> ControlFlow<()> {
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

/// Where a forward pass starts and what it hands out.
#[derive(Clone, Copy)]
struct FeedFrom {
    /// The pass starts inside a line: its rest, up to the first `\n`, is dropped.
    mid_line: bool,
    /// The unterminated last line is handed out too.
    include_tail: bool,
}

/// What a forward pass over a file's lines saw.
struct Feed {
    /// Bytes of complete lines passed, from where the pass started.
    consumed: u64,
    /// Bytes read, from where the pass started.
    fed: u64,
    /// The last [`FINGERPRINT_WINDOW`] bytes before `fed`.
    end_window: Vec<u8>,
    /// The pass ended inside a line too long to keep (or one started before it).
    skipping: bool,
    /// Complete lines passed, an over-long one included.
    lines: u64,
    /// The last [`FINGERPRINT_WINDOW`] bytes before the end of the last complete line.
    window: Vec<u8>,
    bytes_read: u64,
}

/// Reads up to `len` bytes from the file's current position and hands every complete
/// line (without its `\n`) with its index to `on_line`; also the unterminated tail when
/// `include_tail`. Lines over `limits.max_line` are counted, not handed out. `window`
/// holds the bytes just before the start position.
fn feed_lines(
    file: &mut File,
    len: u64,
    window: Vec<u8>,
    limits: Limits,
    from: FeedFrom,
    mut on_line: impl FnMut(u64, &[u8]) -> ControlFlow<()>,
) -> io::Result<Feed> {
    // No bigger than needed: an incremental scan reads a few KB.
    let wanted = usize::try_from(len).map_or(limits.chunk, |len| len.min(limits.chunk));
    let mut buf = vec![0u8; wanted.max(1)];
    let mut filled = 0usize;
    // Offset (from the start position) of buf[0].
    let mut buf_offset = 0u64;
    let mut remaining = len;
    // Inside a line over max_line, or the rest of a line started before: its bytes are
    // dropped until its end.
    let mut skipping = from.mid_line;
    // The tail of every byte dropped from buf so far.
    let mut passed = window.clone();
    let mut feed = Feed {
        consumed: 0,
        fed: 0,
        end_window: Vec::new(),
        skipping: false,
        lines: 0,
        window,
        bytes_read: 0,
    };

    // `on_line` asked to stop after the last line passed.
    let mut stopped = false;
    while remaining > 0 && !stopped {
        if filled == buf.len() {
            if buf.len() < limits.max_line {
                let grown = buf.len().saturating_mul(2).min(limits.max_line);
                buf.resize(grown.max(buf.len() + 1), 0);
            } else {
                skipping = true;
                push_window(&mut passed, &buf[..filled]);
                buf_offset += filled as u64;
                filled = 0;
            }
        }
        let room = buf.len() - filled;
        let want = usize::try_from(remaining).map_or(room, |r| r.min(room));
        let n = file.read(&mut buf[filled..filled + want])?;
        if n == 0 {
            // The file shrank under us; what was read is all there is.
            break;
        }
        feed.bytes_read += n as u64;
        remaining -= n as u64;
        let mut search_from = filled;
        filled += n;

        let mut line_start = 0;
        while let Some(i) = memchr::memchr(b'\n', &buf[search_from..filled]) {
            let line_end = search_from + i;
            if skipping {
                skipping = false;
            } else {
                stopped = on_line(feed.lines, &buf[line_start..line_end]).is_break();
            }
            feed.lines += 1;
            line_start = line_end + 1;
            search_from = line_start;
            if stopped {
                break;
            }
        }
        if line_start > 0 {
            push_window(&mut passed, &buf[..line_start]);
            feed.window.clone_from(&passed);
            buf_offset += line_start as u64;
            feed.consumed = buf_offset;
            buf.copy_within(line_start..filled, 0);
            filled -= line_start;
        }
    }
    if stopped {
        // What was read past the last line passed is read again next time.
        feed.fed = feed.consumed;
        feed.bytes_read = feed.bytes_read.max(feed.consumed);
        spend(feed.bytes_read);
        return Ok(feed);
    }
    if from.include_tail && !skipping && filled > 0 {
        let _ = on_line(feed.lines, &buf[..filled]);
    }
    feed.fed = len - remaining;
    feed.skipping = skipping;
    spend(feed.bytes_read);
    push_window(&mut passed, &buf[..filled]);
    feed.end_window = passed;
    Ok(feed)
}

/// Appends `bytes` to `window`, keeping only its last [`FINGERPRINT_WINDOW`] bytes.
fn push_window(window: &mut Vec<u8>, bytes: &[u8]) {
    if bytes.len() >= FINGERPRINT_WINDOW {
        window.clear();
        window.extend_from_slice(&bytes[bytes.len() - FINGERPRINT_WINDOW..]);
    } else {
        window.extend_from_slice(bytes);
        let excess = window.len().saturating_sub(FINGERPRINT_WINDOW);
        window.drain(..excess);
    }
}

/// Which file this is, as far as the platform tells: a file replaced by another
/// (rename over it) has a new identity even when its first bytes match.
fn file_identity(meta: &Metadata) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        format!("{:x}.{:x}", meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        String::from("-")
    }
}

fn fingerprint(identity: &str, window: &[u8]) -> String {
    format!("v1:{identity}:{}", hex_prefix(window, 8))
}

/// The first `bytes` bytes of `sha256(data)`, in lower-case hex.
fn hex_prefix(data: &[u8], bytes: usize) -> String {
    let digest = Sha256::digest(data);
    let mut hex = String::with_capacity(bytes * 2);
    for byte in digest.iter().take(bytes) {
        // Writing to a String cannot fail.
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

// ---------------------------------------------------------------------------------
// Whole-file and from-the-end reads

/// Usage of a whole transcript (a subagent's own), each message counted once however
/// many lines repeat its usage. Lines without `message.id` count each.
pub fn total_usage(path: &Path) -> io::Result<Usage> {
    total_usage_with(path, FORWARD)
}

fn total_usage_with(path: &Path, limits: Limits) -> io::Result<Usage> {
    let mut file = crate::agent_files::open_regular(path)?;
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
    by_message.into_values().for_each(|usage| total.add(usage));
    Ok(total)
}

/// Context size in tokens: input + cache creation + cache read tokens of the last
/// main-chain (not sidechain) assistant line with usage after the last compaction.
/// `Some(0)` when a compaction comes after every such line, `None` when there is none.
/// Synthetic assistant lines (model `<synthetic>`, no API call) are not measurements.
pub fn current_context_tokens(path: &Path) -> io::Result<Option<u64>> {
    context_tokens_in(&mut ReverseLines::open(path)?)
}

fn context_tokens_in(lines: &mut ReverseLines) -> io::Result<Option<u64>> {
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

fn last_assistant_text_in(lines: &mut ReverseLines) -> io::Result<Option<String>> {
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

fn files_written_in(lines: &mut ReverseLines, max_lines: usize) -> io::Result<Vec<String>> {
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

// ---------------------------------------------------------------------------------
// Reading backwards

/// A file's lines from the last to the first, read backwards in chunks, so a question
/// about the end of a 100 MB transcript costs a few reads. An unterminated last line is
/// handed out like the others (a cut-short one then fails to parse). A line longer than
/// the limit (32 MiB) is skipped rather than held in memory.
pub struct ReverseLines {
    file: File,
    /// File offset of `buf[start]`: everything before it is unread.
    pos: u64,
    buf: Vec<u8>,
    /// The bytes not handed out yet are `buf[start..end]`, ending where a line ends.
    start: usize,
    end: usize,
    /// How many bytes at the end of `buf[start..end]` are known to hold no `\n`.
    searched: usize,
    limits: Limits,
    /// Dropping the bytes of an over-long line until its start.
    skipping: bool,
    started: bool,
    done: bool,
    /// The read budget ran out before the start of the file.
    exhausted: bool,
    bytes_read: u64,
}

impl ReverseLines {
    pub fn open(path: &Path) -> io::Result<Self> {
        Self::new(crate::agent_files::open_regular(path)?)
    }

    pub fn new(file: File) -> io::Result<Self> {
        Self::with_limits(file, REVERSE)
    }

    fn with_limits(file: File, limits: Limits) -> io::Result<Self> {
        let pos = file.metadata()?.len();
        let chunk = limits.chunk.max(1);
        Ok(ReverseLines {
            file,
            pos,
            buf: vec![0; chunk],
            start: chunk,
            end: chunk,
            searched: 0,
            limits: Limits { chunk, ..limits },
            skipping: false,
            started: false,
            done: false,
            exhausted: false,
            bytes_read: 0,
        })
    }

    /// Bytes read from the file so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Whether the lines stopped because the read budget ran out, not at the start of
    /// the file: an answer not found may still be in the file.
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// The line before the one returned last (without its `\n`), or `None` at the
    /// start of the file.
    pub fn next_line(&mut self) -> io::Result<Option<&[u8]>> {
        if !self.started {
            self.started = true;
            if self.pos == 0 {
                self.done = true;
                return Ok(None);
            }
            self.fill()?;
            if self.buf[self.end - 1] == b'\n' {
                self.end -= 1;
            }
        }
        loop {
            let unsearched = self.end - self.searched;
            if let Some(i) = memchr::memrchr(b'\n', &self.buf[self.start..unsearched]) {
                let newline = self.start + i;
                let line_end = self.end;
                self.end = newline;
                self.searched = 0;
                if self.skipping {
                    // Only the first bytes of the over-long line were left; drop them.
                    self.skipping = false;
                    continue;
                }
                return Ok(Some(&self.buf[newline + 1..line_end]));
            }
            if self.pos > 0 && (self.bytes_read >= self.limits.budget || run_budget_left() == 0) {
                // The first bytes kept are the end of a line whose start is unread.
                self.exhausted = true;
                self.done = true;
                return Ok(None);
            }
            if self.pos == 0 {
                if self.done || self.skipping {
                    self.done = true;
                    return Ok(None);
                }
                self.done = true;
                let (start, end) = (self.start, self.end);
                self.end = start;
                self.searched = 0;
                return Ok(Some(&self.buf[start..end]));
            }
            if self.skipping || self.end - self.start > self.limits.max_line {
                self.skipping = true;
                self.start = self.buf.len();
                self.end = self.buf.len();
            }
            self.searched = self.end - self.start;
            self.fill()?;
        }
    }

    /// Calls `f` on each line, last first, until it breaks; returns the break value.
    pub fn try_for_each<B>(
        &mut self,
        mut f: impl FnMut(&[u8]) -> ControlFlow<B>,
    ) -> io::Result<Option<B>> {
        while let Some(line) = self.next_line()? {
            if let ControlFlow::Break(value) = f(line) {
                return Ok(Some(value));
            }
        }
        Ok(None)
    }

    /// Reads the chunk before `pos` in front of the unread bytes.
    fn fill(&mut self) -> io::Result<()> {
        let n =
            usize::try_from(self.pos).map_or(self.limits.chunk, |pos| pos.min(self.limits.chunk));
        if self.start < n {
            let live = self.end - self.start;
            if live + n > self.buf.len() {
                let mut grown = vec![0; (self.buf.len() * 2).max(live + n)];
                let at = grown.len() - live;
                grown[at..].copy_from_slice(&self.buf[self.start..self.end]);
                self.buf = grown;
            } else {
                let at = self.buf.len() - live;
                self.buf.copy_within(self.start..self.end, at);
            }
            self.end = self.buf.len();
            self.start = self.end - live;
        }
        self.pos -= n as u64;
        self.file.seek(SeekFrom::Start(self.pos))?;
        self.file
            .read_exact(&mut self.buf[self.start - n..self.start])?;
        self.start -= n;
        self.bytes_read += n as u64;
        spend(n as u64);
        Ok(())
    }
}

// ---------------------------------------------------------------------------------
// Line shapes: only the fields nagger reads, each tolerant of a wrong type (it reads as
// absent), borrowing strings from the line where it can; everything else is skipped
// without allocating.

#[derive(Default, Deserialize)]
#[serde(default)]
struct RawLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: LooseStr<'a>,
    #[serde(borrow)]
    subtype: LooseStr<'a>,
    #[serde(rename = "isSidechain")]
    is_sidechain: LooseBool,
    #[serde(borrow)]
    message: Loose<RawMessage<'a>>,
    #[serde(rename = "toolUseResult", borrow)]
    tool_use_result: Loose<AgentRef<'a>>,
    #[serde(borrow)]
    data: Loose<AgentRef<'a>>,
    #[serde(rename = "parentToolUseID", borrow)]
    parent_tool_use_id: LooseStr<'a>,
}

impl<'a> RawLine<'a> {
    fn assistant_usage(&self) -> Option<(&RawMessage<'a>, Usage)> {
        if !self.kind.is("assistant") {
            return None;
        }
        let message = self.message.0.as_ref()?;
        let usage = message.usage.0.as_ref()?;
        Some((
            message,
            Usage {
                input_tokens: usage.input_tokens.0,
                output_tokens: usage.output_tokens.0,
                cache_creation_input_tokens: usage.cache_creation_input_tokens.0,
                cache_read_input_tokens: usage.cache_read_input_tokens.0,
            },
        ))
    }
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct RawMessage<'a> {
    #[serde(borrow)]
    id: LooseStr<'a>,
    #[serde(borrow)]
    model: LooseStr<'a>,
    #[serde(borrow)]
    content: LooseList<RawBlock<'a>>,
    usage: Loose<RawUsage>,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct RawUsage {
    input_tokens: LooseU64,
    output_tokens: LooseU64,
    cache_creation_input_tokens: LooseU64,
    cache_read_input_tokens: LooseU64,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct RawBlock<'a> {
    #[serde(rename = "type", borrow)]
    kind: LooseStr<'a>,
    #[serde(borrow)]
    id: LooseStr<'a>,
    #[serde(borrow)]
    name: LooseStr<'a>,
    #[serde(borrow)]
    text: LooseStr<'a>,
    #[serde(borrow)]
    tool_use_id: LooseStr<'a>,
    #[serde(borrow)]
    input: Loose<RawInput<'a>>,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct RawInput<'a> {
    #[serde(borrow)]
    subagent_type: LooseStr<'a>,
    #[serde(borrow)]
    description: LooseStr<'a>,
    #[serde(borrow)]
    prompt: LooseStr<'a>,
    #[serde(borrow)]
    name: LooseStr<'a>,
    #[serde(borrow)]
    team_name: LooseStr<'a>,
    #[serde(borrow)]
    file_path: LooseStr<'a>,
    #[serde(borrow)]
    notebook_path: LooseStr<'a>,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct AgentRef<'a> {
    #[serde(rename = "agentId", borrow)]
    agent_id: LooseStr<'a>,
}

/// The top-level `type` of a line, parsing no further than that key: Claude Code
/// writes it before a progress or user line's body. `None` when the line has no
/// `type`, or is malformed before it.
fn peek_kind(line: &[u8]) -> Option<String> {
    struct Peek<'s>(&'s mut Option<String>);

    impl<'de> Visitor<'de> for Peek<'_> {
        type Value = ();

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<LooseStr>()? {
                if key.is("type") {
                    *self.0 = map.next_value::<LooseStr>()?.owned();
                    // Stop here: the rest of the line is not needed.
                    return Err(de::Error::custom("type found"));
                }
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }

    let mut kind = None;
    let mut deserializer = serde_json::Deserializer::from_slice(line);
    // The error is how the visitor stops early, or a malformed line: `kind` says which.
    let _ = (&mut deserializer).deserialize_map(Peek(&mut kind));
    kind
}

/// A string, or `None` when absent or of another type.
#[derive(Default)]
struct LooseStr<'a>(Option<Cow<'a, str>>);

impl LooseStr<'_> {
    fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }

    fn owned(&self) -> Option<String> {
        self.get().map(str::to_owned)
    }

    fn is(&self, expected: &str) -> bool {
        self.get() == Some(expected)
    }
}

/// `true` only when the value is JSON `true`.
#[derive(Default)]
struct LooseBool(bool);

/// A non-negative number, or 0.
#[derive(Default)]
struct LooseU64(u64);

/// An object of shape `T`, or `None` when absent or not an object.
struct Loose<T>(Option<T>);

impl<T> Default for Loose<T> {
    fn default() -> Self {
        Loose(None)
    }
}

/// The elements of an array that are objects of shape `T`; empty for anything else.
struct LooseList<T>(Vec<T>);

impl<T> Default for LooseList<T> {
    fn default() -> Self {
        LooseList(Vec::new())
    }
}

/// A JSON value reduced to what the loose types keep of it.
enum Scalar<'a> {
    Str(Cow<'a, str>),
    Bool(bool),
    Number(u64),
    Other,
}

/// Visitor methods that consume a value of a type the visitor does not want, giving
/// the default.
macro_rules! default_on_scalars {
    () => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
}

fn skip_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

struct ScalarVisitor<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for ScalarVisitor<'a> {
    type Value = Scalar<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v)))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Scalar::Bool(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Scalar::Number(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(u64::try_from(v).map_or(Scalar::Other, Scalar::Number))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        // `as` saturates, and these are token counts.
        Ok(if v.is_finite() && v >= 0.0 {
            Scalar::Number(v as u64)
        } else {
            Scalar::Other
        })
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        skip_map(map).map(|()| Scalar::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        skip_seq(seq).map(|()| Scalar::Other)
    }
}

fn deserialize_scalar<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Scalar<'a>, D::Error> {
    d.deserialize_any(ScalarVisitor(PhantomData))
}

impl<'de: 'a, 'a> Deserialize<'de> for LooseStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(LooseStr(match deserialize_scalar(d)? {
            Scalar::Str(s) => Some(s),
            _ => None,
        }))
    }
}

impl<'de> Deserialize<'de> for LooseBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(LooseBool(matches!(
            deserialize_scalar(d)?,
            Scalar::Bool(true)
        )))
    }
}

impl<'de> Deserialize<'de> for LooseU64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(LooseU64(match deserialize_scalar(d)? {
            Scalar::Number(n) => n,
            _ => 0,
        }))
    }
}

struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
    type Value = Loose<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    default_on_scalars!();
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|t| Loose(Some(t)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        skip_seq(seq).map(|()| Loose(None))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Loose<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ObjectVisitor(PhantomData))
    }
}

struct ListVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ListVisitor<T> {
    type Value = LooseList<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    default_on_scalars!();
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        skip_map(map).map(|()| LooseList(Vec::new()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Loose<T>>()? {
            items.extend(item.0);
        }
        Ok(LooseList(items))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for LooseList<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ListVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use proptest::prelude::*;
    use serde_json::{Value, json};
    use tempfile::TempDir;

    use super::*;

    // Fixtures in Claude Code's transcript format, one line each, with the envelope
    // fields Claude Code writes around every line.

    /// A line in Claude Code's key order: the envelope, then `type` before the body,
    /// except for assistant lines, whose `message` comes first.
    fn envelope(kind: &str, sidechain: bool, body: Value) -> String {
        let Value::Object(body) = body else {
            unreachable!("fixtures build objects");
        };
        let mut fields = vec![
            ("parentUuid", json!("5b0d7c1e-8a8e-4d55-9d1e-0c3f6f0e2a11")),
            ("isSidechain", json!(sidechain)),
            ("userType", json!("external")),
            ("cwd", json!("/home/dev/shop")),
            ("sessionId", json!("0f6c2d4e-3b9a-4f1e-a2c7-8d5e6f7a8b9c")),
            ("version", json!("2.1.70")),
            ("gitBranch", json!("main")),
        ];
        let body = body
            .iter()
            .map(|(key, value)| (key.as_str(), value.clone()));
        if kind == "assistant" {
            fields.extend(body);
            fields.push(("type", json!(kind)));
        } else {
            fields.push(("type", json!(kind)));
            fields.extend(body);
        }
        fields.push(("uuid", json!("9e8d7c6b-5a49-4837-8261-504f3e2d1c0b")));
        fields.push(("timestamp", json!("2026-03-01T10:00:00.000Z")));
        let pairs: Vec<String> = fields
            .iter()
            .map(|(key, value)| format!("{}:{value}", json!(key)))
            .collect();
        format!("{{{}}}\n", pairs.join(","))
    }

    fn usage(input: u64, creation: u64, read: u64, output: u64) -> Value {
        json!({
            "input_tokens": input,
            "cache_creation_input_tokens": creation,
            "cache_read_input_tokens": read,
            "output_tokens": output,
            "service_tier": "standard",
        })
    }

    fn assistant_with(msg_id: &str, content: Value, usage: Value, sidechain: bool) -> String {
        envelope(
            "assistant",
            sidechain,
            json!({
                "message": {
                    "model": "claude-opus-4-5",
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "content": content,
                    "stop_reason": null,
                    "usage": usage,
                },
                "requestId": "req_011CVx",
            }),
        )
    }

    fn assistant(msg_id: &str, content: Value, usage: Value) -> String {
        assistant_with(msg_id, content, usage, false)
    }

    fn text(text: &str) -> Value {
        json!({"type": "text", "text": text})
    }

    fn tool_use(id: &str, name: &str, input: Value) -> Value {
        json!({"type": "tool_use", "id": id, "name": name, "input": input})
    }

    fn spawn(id: &str, tool: &str, subagent_type: &str, prompt: &str) -> Value {
        tool_use(
            id,
            tool,
            json!({
                "subagent_type": subagent_type,
                "description": format!("{subagent_type} work"),
                "prompt": prompt,
            }),
        )
    }

    fn spawn_line(msg_id: &str, block: Value) -> String {
        assistant(msg_id, json!([block]), usage(3, 200, 15000, 90))
    }

    /// The user line Claude Code writes when a subagent returns.
    fn agent_result(tool_use_id: &str, agent_id: &str) -> String {
        envelope(
            "user",
            false,
            json!({
                "message": {"role": "user", "content": [{
                    "tool_use_id": tool_use_id,
                    "type": "tool_result",
                    "content": [{"type": "text", "text": "[COMPRESSED] agent_type: coder\nResult: done"}],
                }]},
                "toolUseResult": {
                    "status": "completed",
                    "prompt": "Fix the bug",
                    "agentId": agent_id,
                    "content": [{"type": "text", "text": "done"}],
                    "totalDurationMs": 81234,
                    "totalTokens": 40211,
                },
            }),
        )
    }

    fn tool_result(tool_use_id: &str, output: &str) -> String {
        envelope(
            "user",
            false,
            json!({
                "message": {"role": "user", "content": [{
                    "tool_use_id": tool_use_id, "type": "tool_result", "content": output,
                }]},
                "toolUseResult": {"stdout": output, "stderr": "", "interrupted": false},
            }),
        )
    }

    /// The progress line Claude Code writes into the parent while a subagent works.
    fn progress(parent_tool_use_id: &str, agent_id: &str) -> String {
        envelope(
            "progress",
            false,
            json!({
                "data": {
                    "message": {"type": "assistant", "message": {
                        "id": "msg_sub", "role": "assistant",
                        "content": [{"type": "tool_use", "id": "toolu_sub", "name": "Read",
                                     "input": {"file_path": "/home/dev/shop/src/cart.rs"}}],
                        "usage": usage(1, 2, 3, 4),
                    }},
                    "normalizedMessages": [],
                    "type": "agent_progress",
                    "prompt": "Fix the bug",
                    "agentId": agent_id,
                },
                "toolUseID": "agent_msg_01",
                "parentToolUseID": parent_tool_use_id,
            }),
        )
    }

    fn compact_boundary() -> String {
        envelope(
            "system",
            false,
            json!({
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "level": "info",
                "compactMetadata": {"trigger": "auto", "preTokens": 167000},
            }),
        )
    }

    const SUMMARY: &str =
        "{\"type\":\"summary\",\"summary\":\"Cart fixes\",\"leafUuid\":\"9e8d7c6b\"}\n";

    struct Transcript {
        _dir: TempDir,
        path: PathBuf,
    }

    impl Transcript {
        fn new(content: &str) -> Self {
            let dir = tempfile::tempdir().expect("temp dir");
            let path = dir.path().join("session.jsonl");
            std::fs::write(&path, content).expect("write transcript");
            Transcript { _dir: dir, path }
        }

        fn append(&self, content: impl AsRef<[u8]>) {
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&self.path)
                .expect("open transcript");
            file.write_all(content.as_ref()).expect("append");
        }

        fn len(&self) -> u64 {
            std::fs::metadata(&self.path).expect("stat").len()
        }
    }

    fn link(tool_use_id: &str, agent_id: &str) -> SpawnLink {
        SpawnLink {
            tool_use_id: tool_use_id.into(),
            agent_id: agent_id.into(),
        }
    }

    fn tool_use_ids(outcome: &ScanOutcome) -> Vec<&str> {
        outcome
            .spawns
            .iter()
            .map(|s| s.tool_use_id.as_deref().unwrap_or("-"))
            .collect()
    }

    /// Reads of a few bytes, to cross chunk boundaries inside every line.
    fn tiny() -> Limits {
        Limits {
            chunk: 7,
            max_line: 1 << 20,
            budget: u64::MAX,
        }
    }

    // --- scan_spawns ---

    #[test]
    fn scan_finds_agent_and_task_spawns_with_their_inputs() {
        let team_spawn = tool_use(
            "toolu_03",
            "Agent",
            json!({"subagent_type": "coder", "description": "Fix cart", "prompt": "[ROLE:coder-fix] Fix it",
                   "name": "alice", "team_name": "shop", "model": "sonnet", "run_in_background": true}),
        );
        let transcript = Transcript::new(
            &[
                SUMMARY.to_owned(),
                spawn_line(
                    "msg_1",
                    spawn("toolu_01", "Task", "Explore", "Map the repo"),
                ),
                assistant(
                    "msg_2",
                    json!([
                        text("Reading"),
                        tool_use("toolu_02", "Read", json!({"file_path": "/a"}))
                    ]),
                    usage(1, 1, 1, 1),
                ),
                spawn_line("msg_3", team_spawn),
            ]
            .concat(),
        );

        let outcome = scan_spawns(&transcript.path, None).expect("scan");

        assert_eq!(
            outcome.spawns,
            vec![
                SpawnRecord {
                    line_index: 1,
                    tool_use_id: Some("toolu_01".into()),
                    tool_name: "Task".into(),
                    subagent_type: Some("Explore".into()),
                    description: Some("Explore work".into()),
                    prompt: Some("Map the repo".into()),
                    name: None,
                    team_name: None,
                },
                SpawnRecord {
                    line_index: 3,
                    tool_use_id: Some("toolu_03".into()),
                    tool_name: "Agent".into(),
                    subagent_type: Some("coder".into()),
                    description: Some("Fix cart".into()),
                    prompt: Some("[ROLE:coder-fix] Fix it".into()),
                    name: Some("alice".into()),
                    team_name: Some("shop".into()),
                },
            ]
        );
        assert_eq!(outcome.cursor.offset, transcript.len());
        assert_eq!(outcome.cursor.line_count, 4);
        assert!(!outcome.rescanned_from_start);
    }

    #[test]
    fn scan_accepts_whitespace_and_several_spawns_in_one_line() {
        let pretty = "{\"type\": \"assistant\", \"message\": {\"id\": \"msg_9\", \"content\": [\
            {\"type\" : \"tool_use\", \"id\": \"toolu_a\", \"name\" : \"Agent\", \"input\": {\"subagent_type\": \"coder\"}},\
            {\"type\": \"tool_use\",\"id\":\"toolu_b\",\"name\":\"Task\",\"input\":{\"prompt\":\"caf\\u00e9 \\\"quoted\\\"\"}}]}}\n";
        let transcript = Transcript::new(pretty);

        let outcome = scan_spawns(&transcript.path, None).expect("scan");

        assert_eq!(tool_use_ids(&outcome), ["toolu_a", "toolu_b"]);
        assert_eq!(outcome.spawns[1].prompt.as_deref(), Some("café \"quoted\""));
        assert_eq!(outcome.spawns[1].subagent_type, None);
    }

    #[test]
    fn scan_ignores_spawn_lookalikes_and_bad_lines() {
        let transcript = Transcript::new(
            &[
                // A user line that quotes a spawn is not a spawn.
                envelope(
                    "user",
                    false,
                    json!({"message": {"role": "user", "content": [tool_use("toolu_x", "Agent", json!({}))]}}),
                ),
                // Other tools, and a Task name that is not a tool_use.
                spawn_line("msg_1", tool_use("toolu_y", "TaskCreate", json!({"subject": "Task"}))),
                assistant("msg_2", json!([{"type": "text", "name": "Agent", "text": "\"tool_use\""}]), usage(1, 1, 1, 1)),
                // Malformed, wrong types, not an object, invalid UTF-8.
                "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"name\":\"Agent\"\n".into(),
                "{\"type\":\"assistant\",\"message\":{\"content\":\"tool_use Agent\"}}\n".into(),
                "[\"tool_use\",\"Agent\"]\n".into(),
                "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"name\":\"Agent\",\"id\":\"\u{0}@FF@\"}]}}\n".into(),
                "\n".into(),
                // Wrong types for the fields read still give the spawn.
                "{\"type\":\"assistant\",\"isSidechain\":\"no\",\"message\":{\"id\":7,\"content\":[5,{\"type\":\"tool_use\",\"name\":\"Agent\",\"id\":[1],\"input\":{\"prompt\":3,\"subagent_type\":\"coder\"}}]}}\n".into(),
            ]
            .concat()
            .replace("@FF@", "@"),
        );
        // Invalid UTF-8 in place of the marker.
        let bytes = std::fs::read(&transcript.path).expect("read");
        let bytes: Vec<u8> = bytes
            .iter()
            .map(|&b| if b == b'@' { 0xff } else { b })
            .collect();
        std::fs::write(&transcript.path, bytes).expect("write");

        let outcome = scan_spawns(&transcript.path, None).expect("scan");

        assert_eq!(outcome.spawns.len(), 1);
        let spawn = &outcome.spawns[0];
        assert_eq!(spawn.line_index, 8);
        assert_eq!(
            (spawn.tool_use_id.as_deref(), spawn.prompt.as_deref()),
            (None, None)
        );
        assert_eq!(spawn.subagent_type.as_deref(), Some("coder"));
        assert_eq!(outcome.cursor.line_count, 9);
    }

    #[test]
    fn scan_links_spawns_from_results_and_progress_once_each() {
        let transcript = Transcript::new(
            &[
                spawn_line("msg_1", spawn("toolu_01", "Agent", "coder", "Fix")),
                spawn_line("msg_2", spawn("toolu_02", "Agent", "reviewer", "Review")),
                progress("toolu_02", "a7f3c9e"),
                progress("toolu_02", "a7f3c9e"),
                tool_result("toolu_99", "ok"),
                agent_result("toolu_01", "b1d2e3f"),
                progress("toolu_02", "a7f3c9e"),
            ]
            .concat(),
        );

        let outcome = scan_spawns(&transcript.path, None).expect("scan");

        assert_eq!(
            outcome.links,
            [link("toolu_02", "a7f3c9e"), link("toolu_01", "b1d2e3f")]
        );
        assert_eq!(outcome.spawns.len(), 2);
    }

    #[test]
    fn scan_skips_result_link_when_the_answered_tool_use_is_ambiguous() {
        let line = envelope(
            "user",
            false,
            json!({
                "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01", "content": "a"},
                    {"type": "tool_result", "tool_use_id": "toolu_02", "content": "b"},
                ]},
                "toolUseResult": {"status": "completed", "agentId": "a1"},
            }),
        );
        let transcript = Transcript::new(&line);

        let outcome = scan_spawns(&transcript.path, None).expect("scan");

        assert!(outcome.links.is_empty());
    }

    #[test]
    fn scan_reads_only_appended_bytes_next_time() {
        let first = [
            spawn_line("msg_1", spawn("toolu_01", "Task", "coder", "One")),
            tool_result("toolu_00", &"x".repeat(5000)),
        ]
        .concat();
        let transcript = Transcript::new(&first);
        let full = scan_spawns(&transcript.path, None).expect("first scan");
        assert_eq!(full.bytes_read, first.len() as u64);

        let appended = [
            progress("toolu_02", "agent2"),
            spawn_line("msg_2", spawn("toolu_02", "Agent", "coder", "Two")),
        ]
        .concat();
        transcript.append(&appended);
        let next = scan_spawns(&transcript.path, Some(&full.cursor)).expect("second scan");

        // Appended bytes plus the fingerprint window before the old cursor.
        assert_eq!(
            next.bytes_read,
            appended.len() as u64 + FINGERPRINT_WINDOW as u64
        );
        assert!(!next.rescanned_from_start);
        assert_eq!(tool_use_ids(&next), ["toolu_02"]);
        assert_eq!(next.spawns[0].line_index, 3);
        assert_eq!(next.links, [link("toolu_02", "agent2")]);
        assert_eq!(next.cursor.line_count, 4);

        let idle = scan_spawns(&transcript.path, Some(&next.cursor)).expect("third scan");
        assert_eq!(idle.bytes_read, FINGERPRINT_WINDOW as u64);
        assert!(idle.spawns.is_empty() && idle.links.is_empty());
        assert_eq!(idle.cursor, next.cursor);
    }

    #[test]
    fn scan_leaves_a_partial_last_line_for_the_next_scan() {
        let line = spawn_line("msg_1", spawn("toolu_01", "Agent", "coder", "Fix"));
        let (head, tail) = line.split_at(line.len() / 2);
        let transcript = Transcript::new(&[SUMMARY, head].concat());

        let before = scan_spawns(&transcript.path, None).expect("scan");
        assert!(before.spawns.is_empty());
        assert_eq!(before.cursor.offset, SUMMARY.len() as u64);
        assert_eq!(before.cursor.line_count, 1);

        transcript.append(tail);
        let after = scan_spawns(&transcript.path, Some(&before.cursor)).expect("rescan");
        assert_eq!(tool_use_ids(&after), ["toolu_01"]);
        assert_eq!(after.spawns[0].line_index, 1);
        assert_eq!(after.cursor.offset, transcript.len());
    }

    #[test]
    fn scan_holds_a_complete_line_without_newline_until_it_ends() {
        let line = spawn_line("msg_1", spawn("toolu_01", "Agent", "coder", "Fix"));
        let transcript = Transcript::new(line.trim_end());

        let before = scan_spawns(&transcript.path, None).expect("scan");
        assert!(before.spawns.is_empty());
        assert_eq!(before.cursor.offset, 0);

        transcript.append("\n");
        let after = scan_spawns(&transcript.path, Some(&before.cursor)).expect("rescan");
        assert_eq!(tool_use_ids(&after), ["toolu_01"]);
        assert!(!after.rescanned_from_start);
    }

    #[test]
    fn scan_starts_over_when_the_file_shrank() {
        let transcript = Transcript::new(
            &[
                spawn_line("msg_1", spawn("toolu_01", "Agent", "coder", "One")),
                spawn_line("msg_2", spawn("toolu_02", "Agent", "coder", "Two")),
            ]
            .concat(),
        );
        let full = scan_spawns(&transcript.path, None).expect("scan");

        std::fs::write(
            &transcript.path,
            spawn_line("msg_3", spawn("toolu_03", "Agent", "coder", "Three")),
        )
        .expect("truncate");
        let again = scan_spawns(&transcript.path, Some(&full.cursor)).expect("rescan");

        assert!(again.rescanned_from_start);
        assert_eq!(tool_use_ids(&again), ["toolu_03"]);
        assert_eq!(again.spawns[0].line_index, 0);
        assert_eq!(again.cursor.line_count, 1);
    }

    #[test]
    fn scan_starts_over_when_the_bytes_before_the_cursor_changed() {
        let one = spawn_line("msg_1", spawn("toolu_01", "Agent", "coder", "One"));
        let transcript = Transcript::new(&one);
        let full = scan_spawns(&transcript.path, None).expect("scan");

        // Same file, same length up to the cursor, the line's end rewritten in place.
        let other = one
            .replace("toolu_01", "toolu_09")
            .replace("2026-03-01", "2026-03-02");
        let changed_at = one.find("2026-03-01").expect("fixture has a timestamp");
        assert!(one.len() - changed_at <= FINGERPRINT_WINDOW);
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(&transcript.path)
            .expect("open");
        file.write_all(other.as_bytes()).expect("rewrite");
        file.write_all(SUMMARY.as_bytes()).expect("append");
        drop(file);

        let again = scan_spawns(&transcript.path, Some(&full.cursor)).expect("rescan");
        assert!(again.rescanned_from_start);
        assert_eq!(tool_use_ids(&again), ["toolu_09"]);
        assert_eq!(again.cursor.line_count, 2);
    }

    #[cfg(unix)]
    #[test]
    fn scan_starts_over_when_the_file_was_replaced() {
        let one = spawn_line("msg_1", spawn("toolu_01", "Agent", "coder", "One"));
        let transcript = Transcript::new(&one);
        let full = scan_spawns(&transcript.path, None).expect("scan");

        // A copy with identical content renamed over the original: a new file.
        let copy = transcript.path.with_extension("tmp");
        std::fs::write(&copy, [one.as_str(), SUMMARY].concat()).expect("write copy");
        std::fs::rename(&copy, &transcript.path).expect("replace");

        let again = scan_spawns(&transcript.path, Some(&full.cursor)).expect("rescan");
        assert!(again.rescanned_from_start);
        assert_eq!(tool_use_ids(&again), ["toolu_01"]);
    }

    #[test]
    fn scan_starts_over_on_a_foreign_cursor() {
        let transcript =
            Transcript::new(&spawn_line("msg_1", spawn("toolu_01", "Agent", "c", "p")));
        let foreign = ScanCursor {
            offset: 10,
            line_count: 3,
            fingerprint: String::new(),
        };

        let again = scan_spawns(&transcript.path, Some(&foreign)).expect("scan");

        assert!(again.rescanned_from_start);
        assert_eq!(tool_use_ids(&again), ["toolu_01"]);
        assert_eq!(again.spawns[0].line_index, 0);
    }

    #[test]
    fn scan_parses_lines_longer_than_its_buffer_and_skips_over_long_ones() {
        let long = spawn_line(
            "msg_1",
            spawn("toolu_01", "Agent", "coder", &"p".repeat(3000)),
        );
        let too_long = spawn_line(
            "msg_2",
            spawn("toolu_02", "Agent", "coder", &"q".repeat(5000)),
        );
        let after = spawn_line("msg_3", spawn("toolu_03", "Agent", "coder", "short"));
        let transcript = Transcript::new(&[long, too_long, after].concat());

        let limits = Limits {
            chunk: 7,
            max_line: 4096,
            budget: u64::MAX,
        };
        let outcome = scan_spawns_with(&transcript.path, None, limits).expect("scan");

        assert_eq!(tool_use_ids(&outcome), ["toolu_01", "toolu_03"]);
        assert_eq!(outcome.spawns[1].line_index, 2);
        assert_eq!(outcome.cursor.offset, transcript.len());
        assert_eq!(outcome.cursor.line_count, 3);
        let whole = scan_spawns(&transcript.path, None).expect("scan");
        assert_eq!(whole.cursor, outcome.cursor);
    }

    #[test]
    fn scan_of_an_empty_file_finds_nothing_and_a_missing_file_is_an_error() {
        let transcript = Transcript::new("");
        let outcome = scan_spawns(&transcript.path, None).expect("scan");
        assert!(outcome.spawns.is_empty());
        assert_eq!((outcome.cursor.offset, outcome.cursor.line_count), (0, 0));

        let missing = transcript.path.with_file_name("missing.jsonl");
        let error = scan_spawns(&missing, None).expect_err("missing file");
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn prompt_hash_is_the_sha256_prefix() {
        let transcript = Transcript::new(&spawn_line("m", spawn("t", "Agent", "c", "abc")));
        let outcome = scan_spawns(&transcript.path, None).expect("scan");
        assert_eq!(
            outcome.spawns[0].prompt_hash().as_deref(),
            Some("ba7816bf8f01cfea")
        );
    }

    // --- current_context_tokens ---

    fn context_tokens(content: &str) -> Option<u64> {
        let transcript = Transcript::new(content);
        let whole = current_context_tokens(&transcript.path).expect("read");
        let file = File::open(&transcript.path).expect("open");
        let mut lines = ReverseLines::with_limits(file, tiny()).expect("reader");
        assert_eq!(context_tokens_in(&mut lines).expect("read"), whole);
        whole
    }

    #[test]
    fn context_tokens_come_from_the_last_main_chain_assistant_usage() {
        let content = [
            assistant("msg_1", json!([text("a")]), usage(10, 100, 1000, 5)),
            assistant("msg_2", json!([text("b")]), usage(20, 200, 2000, 7)),
            tool_result("toolu_1", "ok"),
            assistant_with("msg_s", json!([text("side")]), usage(1, 1, 1, 1), true),
            progress("toolu_9", "agent9"),
            SUMMARY.to_owned(),
        ]
        .concat();
        assert_eq!(context_tokens(&content), Some(2220));
    }

    #[test]
    fn context_tokens_are_zero_after_compaction_until_a_new_assistant_line() {
        let before = [
            assistant("msg_1", json!([text("a")]), usage(10, 100, 150_000, 5)),
            compact_boundary(),
            envelope("user", false, json!({"message": {"role": "user", "content": "This session is being continued"}, "isCompactSummary": true})),
        ]
        .concat();
        assert_eq!(context_tokens(&before), Some(0));

        let after = [
            before,
            assistant("msg_2", json!([text("b")]), usage(3, 9000, 12000, 5)),
        ]
        .concat();
        assert_eq!(context_tokens(&after), Some(21003));
    }

    #[test]
    fn context_tokens_ignore_sidechain_synthetic_and_bad_lines() {
        let synthetic = envelope(
            "assistant",
            false,
            json!({"message": {"model": "<synthetic>", "id": "x", "role": "assistant",
                   "content": [text("No response requested.")], "usage": usage(0, 0, 0, 0)}}),
        );
        let content = [
            assistant("msg_1", json!([text("a")]), usage(1, 2, 3, 4)),
            assistant_with("msg_s", json!([text("s")]), usage(50, 50, 50, 50), true),
            synthetic,
            "{\"type\":\"assistant\",\"message\":{\"usage\":{\"input_tokens\":999\n".into(),
            "{\"type\":\"assistant\",\"message\":{\"usage\":{\"input_tokens\":7".into(),
        ]
        .concat();
        assert_eq!(context_tokens(&content), Some(6));
    }

    #[test]
    fn context_tokens_are_none_without_assistant_usage() {
        assert_eq!(context_tokens(""), None);
        assert_eq!(context_tokens(SUMMARY), None);
        let content = [
            tool_result("toolu_1", "ok"),
            assistant_with("msg_s", json!([text("s")]), usage(5, 5, 5, 5), true),
            "garbage\n".into(),
        ]
        .concat();
        assert_eq!(context_tokens(&content), None);
    }

    #[test]
    fn context_tokens_read_only_the_end_of_a_large_file() {
        let filler = tool_result("toolu_f", &"y".repeat(4000));
        let mut content = String::new();
        while content.len() < 2 * 1024 * 1024 {
            content.push_str(&assistant(
                "msg_old",
                json!([text("old")]),
                usage(1, 1, 1, 1),
            ));
            content.push_str(&filler);
        }
        content.push_str(&assistant(
            "msg_new",
            json!([text("new")]),
            usage(5, 6, 7, 8),
        ));
        content.push_str(&filler);
        let transcript = Transcript::new(&content);

        let mut lines = ReverseLines::open(&transcript.path).expect("reader");
        assert_eq!(context_tokens_in(&mut lines).expect("read"), Some(18));
        assert!(lines.bytes_read() <= REVERSE.chunk as u64);
    }

    #[test]
    fn context_tokens_handle_an_assistant_line_longer_than_a_chunk() {
        let big = assistant(
            "msg_1",
            json!([text(&"z".repeat(200_000))]),
            usage(100, 0, 0, 1),
        );
        let content = [big, tool_result("toolu", "ok")].concat();
        assert_eq!(context_tokens(&content), Some(100));
    }

    #[test]
    fn reading_a_missing_transcript_is_an_error() {
        let missing = Path::new("/nonexistent/nagger/session.jsonl");
        assert!(current_context_tokens(missing).is_err());
        assert!(total_usage(missing).is_err());
        assert!(last_assistant_text(missing).is_err());
        assert!(files_written(missing, 10).is_err());
    }

    #[test]
    fn peek_kind_reads_the_top_level_type_wherever_it_is() {
        assert_eq!(
            peek_kind(progress("t", "a").as_bytes()).as_deref(),
            Some("progress")
        );
        let line = assistant("m", json!([text("x")]), usage(1, 1, 1, 1));
        assert_eq!(peek_kind(line.as_bytes()).as_deref(), Some("assistant"));
        assert_eq!(
            peek_kind(br#"{"data":{"type":"x"},"type":"user","cut"#).as_deref(),
            Some("user")
        );
        assert_eq!(peek_kind(br#"{"data":{"type":"x"}}"#), None);
        assert_eq!(peek_kind(br#"{"data":{"ty"#), None);
        assert_eq!(peek_kind(b"[1]"), None);
    }

    // --- total_usage ---

    #[test]
    fn total_usage_counts_each_message_once() {
        let content = [
            assistant("msg_1", json!([{"type": "thinking", "thinking": "hm"}]), usage(10, 100, 1000, 1)),
            assistant("msg_1", json!([text("a")]), usage(10, 100, 1000, 1)),
            assistant("msg_1", json!([tool_use("t1", "Read", json!({}))]), usage(10, 100, 1000, 40)),
            tool_result("t1", "ok"),
            assistant("msg_2", json!([text("b")]), usage(2, 20, 200, 3)),
            envelope("assistant", true, json!({"message": {"content": [], "usage": usage(1, 0, 0, 1)}})),
            progress("toolu_x", "agent_x"),
            "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_3\",\"usage\":{\"input_tokens\":5}}}".into(),
        ]
        .concat();
        let transcript = Transcript::new(&content);
        let expected = Usage {
            input_tokens: 18,
            output_tokens: 44,
            cache_creation_input_tokens: 120,
            cache_read_input_tokens: 1200,
        };

        assert_eq!(total_usage(&transcript.path).expect("usage"), expected);
        assert_eq!(
            total_usage_with(&transcript.path, tiny()).expect("usage"),
            expected
        );
        assert_eq!(expected.total(), 1382);
        assert_eq!(expected.context(), 1338);
    }

    #[test]
    fn total_usage_of_an_empty_file_is_zero() {
        let transcript = Transcript::new("");
        assert_eq!(
            total_usage(&transcript.path).expect("usage"),
            Usage::default()
        );
    }

    // --- last_assistant_text ---

    fn last_text(content: &str) -> Option<String> {
        let transcript = Transcript::new(content);
        let whole = last_assistant_text(&transcript.path).expect("read");
        let file = File::open(&transcript.path).expect("open");
        let mut lines = ReverseLines::with_limits(file, tiny()).expect("reader");
        assert_eq!(last_assistant_text_in(&mut lines).expect("read"), whole);
        whole
    }

    #[test]
    fn last_text_joins_the_text_blocks_of_the_last_message_with_text() {
        let content = [
            assistant("msg_1", json!([text("old answer")]), usage(1, 1, 1, 1)),
            assistant("msg_2", json!([{"type": "thinking", "thinking": "hm"}]), usage(1, 1, 1, 1)),
            assistant("msg_2", json!([text("[COMPRESSED] agent_type: coder")]), usage(1, 1, 1, 1)),
            tool_result("t0", "interleaved"),
            assistant("msg_2", json!([text("Changed files: a.rs"), text("Result: ok")]), usage(1, 1, 1, 1)),
            assistant("msg_2", json!([tool_use("t1", "Bash", json!({"command": "ls"}))]), usage(1, 1, 1, 1)),
            tool_result("t1", "a.rs"),
            assistant("msg_3", json!([tool_use("t2", "Bash", json!({"command": "ls"}))]), usage(1, 1, 1, 1)),
            "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_4\",\"content\":[{\"type\":\"text\",\"text\":\"cut".into(),
        ]
        .concat();
        assert_eq!(
            last_text(&content).as_deref(),
            Some("[COMPRESSED] agent_type: coder\nChanged files: a.rs\nResult: ok")
        );
    }

    #[test]
    fn last_text_without_message_id_is_that_line_only() {
        let content = [
            "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"first\"}]}}\n",
            "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"second\"}]}}\n",
            "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"  \"}]}}\n",
        ]
        .concat();
        assert_eq!(last_text(&content).as_deref(), Some("second"));
    }

    #[test]
    fn last_text_is_none_without_assistant_text() {
        assert_eq!(last_text(""), None);
        let content = [
            tool_result("t1", "ok"),
            assistant(
                "m",
                json!([tool_use("t1", "Read", json!({}))]),
                usage(1, 1, 1, 1),
            ),
        ]
        .concat();
        assert_eq!(last_text(&content), None);
    }

    // --- files_written ---

    fn edits(msg_id: &str, blocks: Value) -> String {
        assistant_with(msg_id, blocks, usage(1, 1, 1, 1), true)
    }

    #[test]
    fn files_written_lists_write_and_edit_targets_first_seen_once() {
        let content = [
            edits("m0", json!([tool_use("t0", "Write", json!({"file_path": "/p/too_old.rs", "content": "x"}))])),
            edits("m1", json!([
                tool_use("t1", "Edit", json!({"file_path": "/p/a.rs", "old_string": "x", "new_string": "y"})),
                tool_use("t2", "Read", json!({"file_path": "/p/read.rs"})),
            ])),
            tool_result("t1", "ok"),
            edits("m2", json!([
                tool_use("t3", "MultiEdit", json!({"file_path": "/p/b.rs", "edits": []})),
                tool_use("t4", "Write", json!({"file_path": "/p/a.rs", "content": "z"})),
            ])),
            edits("m3", json!([tool_use("t5", "NotebookEdit", json!({"notebook_path": "/p/n.ipynb", "new_source": ""}))])),
            edits("m4", json!([tool_use("t6", "Edit", json!({"file_path": 5}))])),
            envelope("user", true, json!({"message": {"content": [tool_use("t7", "Write", json!({"file_path": "/p/user.rs"}))]}})),
        ]
        .concat();
        let transcript = Transcript::new(&content);

        let files = files_written(&transcript.path, 6).expect("read");
        assert_eq!(files, ["/p/a.rs", "/p/b.rs", "/p/n.ipynb"]);
        let file = File::open(&transcript.path).expect("open");
        let mut lines = ReverseLines::with_limits(file, tiny()).expect("reader");
        assert_eq!(files_written_in(&mut lines, 6).expect("read"), files);

        let all = files_written(&transcript.path, 100).expect("read");
        assert_eq!(all, ["/p/too_old.rs", "/p/a.rs", "/p/b.rs", "/p/n.ipynb"]);
        assert!(files_written(&transcript.path, 0).expect("read").is_empty());
    }

    // --- subagent_transcript_path ---

    #[test]
    fn subagent_transcript_path_sits_beside_the_parent() {
        let parent = Path::new("/home/dev/.claude/projects/-home-dev-shop/0f6c2d4e.jsonl");
        assert_eq!(
            subagent_transcript_path(parent, "a7f3c9e_x-1"),
            Some(PathBuf::from(
                "/home/dev/.claude/projects/-home-dev-shop/0f6c2d4e/subagents/agent-a7f3c9e_x-1.jsonl"
            ))
        );
    }

    #[test]
    fn subagent_transcript_path_refuses_unsafe_agent_ids() {
        let parent = Path::new("/p/s.jsonl");
        for bad in ["", "../x", "a/b", "a.b", "a b", "é", &"a".repeat(129)] {
            assert_eq!(subagent_transcript_path(parent, bad), None, "{bad:?}");
        }
        assert!(subagent_transcript_path(parent, &"a".repeat(128)).is_some());
    }

    // --- ReverseLines ---

    fn lines_backwards(content: &[u8], limits: Limits) -> Vec<Vec<u8>> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, content).expect("write");
        let mut lines =
            ReverseLines::with_limits(File::open(&path).expect("open"), limits).expect("reader");
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().expect("read") {
            out.push(line.to_vec());
        }
        out
    }

    /// Lines as a forward split sees them: a trailing `\n` ends the last line.
    fn lines_forward(content: &[u8]) -> Vec<Vec<u8>> {
        if content.is_empty() {
            return Vec::new();
        }
        let body = content.strip_suffix(b"\n").unwrap_or(content);
        body.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
    }

    #[test]
    fn reverse_lines_yield_every_line_last_first() {
        let cases: [&[u8]; 7] = [
            b"",
            b"\n",
            b"a",
            b"a\n",
            b"a\n\nbc\n",
            b"\n\nx",
            b"one\ntwo\nthree",
        ];
        for content in cases {
            let mut expected = lines_forward(content);
            expected.reverse();
            for chunk in [1, 2, 3, 64] {
                let limits = Limits {
                    chunk,
                    max_line: 1024,
                    budget: u64::MAX,
                };
                assert_eq!(
                    lines_backwards(content, limits),
                    expected,
                    "{content:?} / {chunk}"
                );
            }
        }
    }

    #[test]
    fn reverse_lines_skip_lines_over_the_limit() {
        let content = format!("first\n{}\nlast\n{}", "L".repeat(100), "M".repeat(100));
        let limits = Limits {
            chunk: 8,
            max_line: 50,
            budget: u64::MAX,
        };
        assert_eq!(
            lines_backwards(content.as_bytes(), limits),
            [b"last".to_vec(), b"first".to_vec()]
        );
        let starts_long = format!("{}\nlast", "L".repeat(100));
        assert_eq!(
            lines_backwards(starts_long.as_bytes(), limits),
            [b"last".to_vec()]
        );
    }

    // --- properties ---

    fn fragment() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            (0..4u8, 0..3u8).prop_map(|(n, t)| {
                let tool = if t == 0 { "Task" } else { "Agent" };
                spawn_line(
                    &format!("msg_{n}"),
                    spawn(&format!("toolu_{n}"), tool, "coder", "go"),
                )
                .into_bytes()
            }),
            (0..4u8, 0..3u8).prop_map(|(n, a)| agent_result(
                &format!("toolu_{n}"),
                &format!("agent{a}")
            )
            .into_bytes()),
            (0..4u8, 0..3u8).prop_map(|(n, a)| progress(
                &format!("toolu_{n}"),
                &format!("agent{a}")
            )
            .into_bytes()),
            Just(compact_boundary().into_bytes()),
            Just(SUMMARY.as_bytes().to_vec()),
            Just(tool_result("toolu_0", "ok").into_bytes()),
            prop::collection::vec(any::<u8>(), 0..40),
        ]
    }

    fn transcript_and_cuts() -> impl Strategy<Value = (Vec<u8>, Vec<usize>)> {
        prop::collection::vec(fragment(), 0..12).prop_flat_map(|fragments| {
            let content = fragments.concat();
            let len = content.len();
            (Just(content), prop::collection::vec(0..=len, 0..8))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        // Scanning in pieces as the file grows finds exactly what one full scan finds.
        #[test]
        fn incremental_scans_match_one_full_scan((content, mut cuts) in transcript_and_cuts(), small in any::<bool>()) {
            let limits = if small { Limits { chunk: 16, max_line: 1 << 20, budget: u64::MAX } } else { FORWARD };
            cuts.push(content.len());
            cuts.sort_unstable();
            let transcript = Transcript::new("");
            let mut cursor: Option<ScanCursor> = None;
            let mut spawns = Vec::new();
            let mut links = Vec::new();
            let mut written = 0;
            for cut in cuts {
                transcript.append(&content[written..cut]);
                written = cut;
                let outcome = scan_spawns_with(&transcript.path, cursor.as_ref(), limits).expect("scan");
                prop_assert!(!outcome.rescanned_from_start);
                spawns.extend(outcome.spawns);
                for found in outcome.links {
                    if !links.contains(&found) {
                        links.push(found);
                    }
                }
                cursor = Some(outcome.cursor);
            }
            let full = scan_spawns_with(&transcript.path, None, limits).expect("full scan");
            prop_assert_eq!(spawns, full.spawns);
            prop_assert_eq!(links, full.links);
            prop_assert_eq!(cursor, Some(full.cursor));
        }

        // No reader panics or fails on arbitrary bytes, whatever the chunk size.
        #[test]
        fn readers_survive_arbitrary_bytes(
            content in prop_oneof![
                prop::collection::vec(any::<u8>(), 0..600),
                prop::collection::vec(fragment(), 0..6).prop_map(|f| f.concat()),
            ],
            chunk in 1..64usize,
        ) {
            let transcript = Transcript::new("");
            transcript.append(&content);
            let limits = Limits { chunk, max_line: 256, budget: u64::MAX };
            let path = &transcript.path;
            let reverse = || ReverseLines::with_limits(File::open(path).expect("open"), limits).expect("reader");
            scan_spawns_with(path, None, limits).expect("scan");
            total_usage_with(path, limits).expect("usage");
            context_tokens_in(&mut reverse()).expect("tokens");
            last_assistant_text_in(&mut reverse()).expect("text");
            files_written_in(&mut reverse(), 50).expect("files");
            let mut backwards = Vec::new();
            let mut lines = ReverseLines::with_limits(File::open(path).expect("open"), Limits { chunk, max_line: usize::MAX, budget: u64::MAX }).expect("reader");
            while let Some(line) = lines.next_line().expect("read") {
                backwards.push(line.to_vec());
            }
            backwards.reverse();
            prop_assert_eq!(backwards, lines_forward(&content));
        }
    }
}
