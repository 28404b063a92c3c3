//! What the demo feeds nagger, in Claude Code's own formats: the project's
//! config, transcript lines (JSONL) and hook inputs (JSON on stdin).

use serde_json::{Value, json};
use std::path::PathBuf;

/// An example config: session conventions, a file, a command and a tool rule, the
/// guard, shared-context filters and compressed reports.
pub const EXAMPLE_CONFIG: &str = include_str!("../../../docs/example-config.toml");

/// Conventions for the demo's other roles, so each agent's text is its own.
pub const EXTRA_ROLES: &str = r#"
# Added by `nagger demo`: conventions for the other roles of the session.
[roles.navigator]
title = "navigator conventions"
text = "Read only: map the code, change nothing."
[roles.tester]
title = "tester conventions"
text = "Never edit production code; report failing tests with their command."
[roles.reviewer]
title = "reviewer conventions"
text = "Review the diff against docs/ARCHITECTURE.md and end with a verdict."
"#;

/// Files of the demo's small Rails-like project.
pub const PROJECT_FILES: &[(&str, &str)] = &[
    (
        "README.md",
        "# shop\n\nA small Rails shop, the scene of `nagger demo`.\n",
    ),
    (
        "docs/ARCHITECTURE.md",
        "# Architecture\n\nModels in app/models, views in app/views (see docs/views.md).\n",
    ),
    (
        "docs/views.md",
        "# Views\n\nPartials only; no queries in templates.\n",
    ),
    (
        "app/models/user.rb",
        "class User < ApplicationRecord\nend\n",
    ),
    (
        "app/views/users/show.html.erb",
        "<h1><%= @user.name %></h1>\n",
    ),
];

/// A subagent of the demo: its spawn in the parent transcript and what nagger
/// should make of it.
#[derive(Debug, Clone)]
pub struct Agent {
    pub id: &'static str,
    pub agent_type: &'static str,
    /// The Agent tool_use that spawned it.
    pub tool_use_id: &'static str,
    pub description: &'static str,
    pub prompt: &'static str,
    /// The role nagger should resolve.
    pub role: &'static str,
}

impl Agent {
    /// The `Agent` tool's input (the tool was `Task` before Claude Code 2.1.63).
    pub fn spawn_input(&self) -> Value {
        json!({
            "subagent_type": self.agent_type,
            "description": self.description,
            "prompt": self.prompt,
        })
    }
}

/// Usage block of an assistant line: context = input + cache_creation + cache_read.
fn usage(context_tokens: u64, output: u64) -> Value {
    json!({
        "input_tokens": 6,
        "cache_creation_input_tokens": 1200,
        "cache_read_input_tokens": context_tokens.saturating_sub(1206),
        "output_tokens": output,
    })
}

/// One Claude Code session: its transcript lines and its hook inputs.
#[derive(Debug, Clone)]
pub struct Session {
    pub id: String,
    pub transcript: PathBuf,
    pub cwd: PathBuf,
}

impl Session {
    /// `<transcript without .jsonl>/subagents/agent-<id>.jsonl`.
    pub fn agent_transcript(&self, agent: &Agent) -> PathBuf {
        self.transcript
            .with_extension("")
            .join("subagents")
            .join(format!("agent-{}.jsonl", agent.id))
    }

    // ── transcript lines ──

    /// A transcript line with the fields Claude Code writes on every line.
    fn line(&self, uuid: &str, kind: &str, sidechain: bool, message: Value) -> Value {
        let mut line = json!({
            "parentUuid": null,
            "isSidechain": sidechain,
            "userType": "external",
            "cwd": self.cwd.display().to_string(),
            "sessionId": self.id,
            "type": kind,
            "uuid": uuid,
            "timestamp": "2025-06-02T09:14:00.000Z",
            "message": null,
        });
        // Moved in, in the place the null keeps for it.
        line["message"] = message;
        line
    }

    fn assistant(
        &self,
        sidechain: bool,
        message_id: &str,
        uuid: &str,
        block: Value,
        tokens: u64,
    ) -> Value {
        let mut message = json!({
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": null,
            "usage": usage(tokens, 90),
        });
        message["content"] = Value::Array(vec![block]);
        self.line(uuid, "assistant", sidechain, message)
    }

    pub fn user_prompt(&self, uuid: &str, text: &str) -> Value {
        self.line(
            uuid,
            "user",
            false,
            json!({"role": "user", "content": text}),
        )
    }

    /// A main-agent text line at a given context size.
    pub fn assistant_text(&self, message_id: &str, text: &str, tokens: u64) -> Value {
        let block = json!({"type": "text", "text": text});
        self.assistant(false, message_id, &format!("u-{message_id}"), block, tokens)
    }

    /// One tool_use line of an assistant message. Claude Code writes one line per
    /// content block, repeating the message's id and usage.
    pub fn tool_use(
        &self,
        sidechain: bool,
        message_id: &str,
        tool_use_id: &str,
        tool: &str,
        input: Value,
        tokens: u64,
    ) -> Value {
        let mut block = json!({"type": "tool_use", "id": tool_use_id, "name": tool, "input": null});
        block["input"] = input;
        self.assistant(
            sidechain,
            message_id,
            &format!("u-{tool_use_id}"),
            block,
            tokens,
        )
    }

    /// A plain tool_result line (Read, Bash, ...).
    pub fn tool_result(&self, sidechain: bool, tool_use_id: &str, text: &str) -> Value {
        self.line(
            &format!("u-result-{tool_use_id}"),
            "user",
            sidechain,
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tool_use_id, "content": text}
            ]}),
        )
    }

    /// The tool_result line written when a subagent returns: its
    /// `toolUseResult.agentId` links the spawn to the agent exactly.
    pub fn agent_result(&self, agent: &Agent, report: &str) -> Value {
        let mut v = self.line(
            &format!("u-result-{}", agent.tool_use_id),
            "user",
            false,
            json!({"role": "user", "content": [{
                "type": "tool_result",
                "tool_use_id": agent.tool_use_id,
                "content": [{"type": "text", "text": report}],
            }]}),
        );
        v["toolUseResult"] = json!({"agentId": agent.id, "status": "completed"});
        v
    }

    pub fn compact_boundary(&self) -> Value {
        json!({
            "type": "system",
            "subtype": "compact_boundary",
            "sessionId": self.id,
            "content": "Conversation compacted",
            "isMeta": false,
            "level": "info",
            "compactMetadata": {"trigger": "auto", "preTokens": 167_000},
        })
    }

    /// The summary Claude Code puts first after a compaction.
    pub fn compact_summary(&self) -> Value {
        let mut v = self.user_prompt(
            "u-compact-summary",
            "This session is being continued from a previous conversation that ran out of \
             context. Summary: the user asked for avatars on the profile page; subagents \
             mapped, built, tested and reviewed it.",
        );
        v["isCompactSummary"] = json!(true);
        v
    }

    /// A subagent's own text line (sidechain).
    pub fn subagent_text(&self, message_id: &str, text: &str) -> Value {
        let block = json!({"type": "text", "text": text});
        self.assistant(true, message_id, &format!("u-{message_id}"), block, 24_000)
    }

    // ── hook inputs, as Claude Code sends them on stdin ──

    fn common(&self, event: &str) -> Value {
        json!({
            "session_id": self.id,
            "transcript_path": self.transcript.display().to_string(),
            "cwd": self.cwd.display().to_string(),
            "hook_event_name": event,
            "permission_mode": "default",
        })
    }

    pub fn session_start(&self, source: &str) -> Value {
        let mut v = self.common("SessionStart");
        v["source"] = json!(source);
        v
    }

    pub fn session_end(&self, reason: &str) -> Value {
        let mut v = self.common("SessionEnd");
        v["reason"] = json!(reason);
        v
    }

    pub fn subagent_start(&self, agent: &Agent) -> Value {
        let mut v = self.common("SubagentStart");
        v["agent_id"] = json!(agent.id);
        v["agent_type"] = json!(agent.agent_type);
        v
    }

    pub fn subagent_stop(
        &self,
        agent: &Agent,
        last_message: &str,
        stop_hook_active: bool,
    ) -> Value {
        let mut v = self.common("SubagentStop");
        v["agent_id"] = json!(agent.id);
        v["agent_type"] = json!(agent.agent_type);
        v["agent_transcript_path"] = json!(self.agent_transcript(agent).display().to_string());
        v["stop_hook_active"] = json!(stop_hook_active);
        v["last_assistant_message"] = json!(last_message);
        v
    }

    /// PreToolUse as Claude Code before 2.1.69 sends it, also from inside a
    /// subagent: nothing says who calls.
    pub fn pre_tool_use(&self, tool_use_id: &str, tool: &str, input: Value) -> Value {
        let mut v = self.common("PreToolUse");
        v["tool_name"] = json!(tool);
        v["tool_input"] = input;
        v["tool_use_id"] = json!(tool_use_id);
        v
    }

    /// PreToolUse from inside a subagent, as Claude Code 2.1.69 and later send it.
    pub fn pre_tool_use_as(
        &self,
        agent: &Agent,
        tool_use_id: &str,
        tool: &str,
        input: Value,
    ) -> Value {
        let mut v = self.pre_tool_use(tool_use_id, tool, input);
        v["agent_id"] = json!(agent.id);
        v["agent_type"] = json!(agent.agent_type);
        v
    }
}
