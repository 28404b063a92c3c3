//! What nagger takes from a transcript's lines: spawns of subagents, exact spawn ->
//! agent links, token usage, and the prompt hash that keys a spawn.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

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

    pub(super) fn add(&mut self, other: Usage) {
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
    pub(super) fn merge_repeat(&mut self, other: Usage) {
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

/// The first `bytes` bytes of `sha256(data)`, in lower-case hex.
pub(super) fn hex_prefix(data: &[u8], bytes: usize) -> String {
    let digest = Sha256::digest(data);
    let mut hex = String::with_capacity(bytes * 2);
    for byte in digest.iter().take(bytes) {
        // Writing to a String cannot fail.
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}
