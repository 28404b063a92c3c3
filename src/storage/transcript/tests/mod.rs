//! Unit tests of the transcript readers, one file per room, and the transcript lines
//! they share.

use std::fs::File;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{Value, json};
use tempfile::TempDir;

use super::budget::*;
use super::lines::*;
use super::queries::*;
use super::records::*;
use super::reverse::*;
use super::scan::*;

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
    let mut line = json!({
        "message": {
            "model": "claude-opus-4-5",
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "content": null,
            "stop_reason": null,
            "usage": null,
        },
        "requestId": "req_011CVx",
    });
    // Moved in, each in the place its null keeps for it.
    line["message"]["content"] = content;
    line["message"]["usage"] = usage;
    envelope("assistant", sidechain, line)
}

fn assistant(msg_id: &str, content: Value, usage: Value) -> String {
    assistant_with(msg_id, content, usage, false)
}

fn text(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

fn tool_use(id: &str, name: &str, input: Value) -> Value {
    let mut block = json!({"type": "tool_use", "id": id, "name": name, "input": null});
    block["input"] = input;
    block
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
    assistant(msg_id, Value::Array(vec![block]), usage(3, 200, 15000, 90))
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
            "compactMetadata": {"trigger": "auto", "preTokens": 167_000},
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

mod properties;
mod queries;
mod reverse;
mod scan;
