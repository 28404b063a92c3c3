//! What the incremental scan keeps from each line: a cheap filter for lines that may
//! hold a spawn or a link, and the spawns and links it collects, capped per scan.

use std::collections::{HashSet, VecDeque};
use std::ops::ControlFlow;

use memchr::memmem::Finder;

use super::budget::{MAX_LINKS_PER_SCAN, MAX_PARSED_PER_SCAN, MAX_SPAWNS_PER_SCAN};
use super::lines::{RawInput, RawLine};
use super::records::{SpawnLink, SpawnRecord};

/// The subagent tool: `Agent`, named `Task` before Claude Code 2.1.63.
const SPAWN_TOOLS: [&str; 2] = ["Agent", "Task"];

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
