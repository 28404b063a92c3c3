//! Transcript reading on a generated ~100 MB Claude Code session: the first full spawn
//! scan, the incremental scan SubagentStart does after 10 KB were appended, and the
//! context size read from the end of 1 MB and 100 MB transcripts.

use std::fs::OpenOptions;
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use nagger::storage::transcript::{current_context_tokens, scan_spawns};
use serde_json::{Value, json};

#[path = "../tests/common/rng.rs"]
mod rng;
use rng::Rng;

const WORDS: [&str; 16] = [
    "fn",
    "cart",
    "total",
    "let",
    "order",
    "\"quoted\"",
    "path\\to",
    "café",
    "✓",
    "return",
    "impl",
    "{",
    "}",
    "line\n",
    "self.items",
    "tests",
];

fn prose(rng: &mut Rng, len: usize) -> String {
    let mut text = String::with_capacity(len + 16);
    while text.len() < len {
        text.push_str(WORDS[rng.between(0, WORDS.len())]);
        text.push(' ');
    }
    text
}

struct Writer {
    rng: Rng,
    out: Vec<u8>,
    message: u64,
}

impl Writer {
    /// Writes a line in Claude Code's key order: the envelope, then `type` before the
    /// body, except for assistant lines, whose `message` comes first.
    fn line(&mut self, kind: &str, sidechain: bool, body: Value) {
        let Value::Object(body) = body else {
            unreachable!("lines are objects");
        };
        let envelope = [
            ("parentUuid", json!("5b0d7c1e-8a8e-4d55-9d1e-0c3f6f0e2a11")),
            ("isSidechain", json!(sidechain)),
            ("userType", json!("external")),
            ("cwd", json!("/home/dev/shop")),
            ("sessionId", json!("0f6c2d4e-3b9a-4f1e-a2c7-8d5e6f7a8b9c")),
            ("version", json!("2.1.70")),
            ("gitBranch", json!("main")),
        ];
        let mut fields: Vec<(String, Value)> = envelope
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect();
        let type_field = ("type".to_owned(), json!(kind));
        if kind == "assistant" {
            fields.extend(body);
            fields.push(type_field);
        } else {
            fields.push(type_field);
            fields.extend(body);
        }
        fields.push(("uuid".into(), json!("9e8d7c6b-5a49-4837-8261-504f3e2d1c0b")));
        fields.push(("timestamp".into(), json!("2026-03-01T10:00:00.000Z")));
        self.out.push(b'{');
        for (i, (key, value)) in fields.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            serde_json::to_writer(&mut self.out, key).expect("writing to memory");
            self.out.push(b':');
            serde_json::to_writer(&mut self.out, value).expect("writing to memory");
        }
        self.out.extend_from_slice(b"}\n");
    }

    fn message(&mut self, block: Value) -> Value {
        self.message += 1;
        let mut message = json!({
            "model": "claude-opus-4-5",
            "id": format!("msg_{:016x}", self.message),
            "type": "message",
            "role": "assistant",
            "content": null,
            "usage": {"input_tokens": 3, "cache_creation_input_tokens": 812,
                      "cache_read_input_tokens": 48_000 + self.message, "output_tokens": 420},
        });
        // Moved in, in the place the null keeps for it.
        message["content"] = Value::Array(vec![block]);
        message
    }

    fn assistant(&mut self, block: Value) {
        let message = self.message(block);
        self.line(
            "assistant",
            false,
            json!({"message": message, "requestId": "req_011CVx"}),
        );
    }

    fn work_block(&mut self) -> Value {
        let id = format!("toolu_{:016x}", self.rng.next());
        match self.rng.below(4) {
            0 => {
                let len = self.rng.between(1000, 10_000);
                json!({"type": "text", "text": prose(&mut self.rng, len)})
            }
            1 => {
                let len = self.rng.between(500, 4000);
                json!({"type": "thinking", "thinking": prose(&mut self.rng, len), "signature": "EqQBCkYIBxgCKkB"})
            }
            2 => json!({"type": "tool_use", "id": id, "name": "Read",
                        "input": {"file_path": "/home/dev/shop/src/cart.rs"}}),
            _ => {
                let len = self.rng.between(500, 3000);
                json!({"type": "tool_use", "id": id, "name": "Edit",
                       "input": {"file_path": "/home/dev/shop/src/cart.rs",
                                 "old_string": prose(&mut self.rng, len), "new_string": "x"}})
            }
        }
    }

    fn tool_result(&mut self) {
        let len = self.rng.between(1000, 10_000);
        let output = prose(&mut self.rng, len);
        let tool_use_id = format!("toolu_{:016x}", self.rng.next());
        self.line(
            "user",
            false,
            json!({
                "message": {"role": "user", "content": [
                    {"tool_use_id": tool_use_id, "type": "tool_result", "content": output}]},
                "toolUseResult": {"type": "text", "file": {"filePath": "/home/dev/shop/src/cart.rs",
                                  "numLines": 120, "startLine": 1, "totalLines": 120}},
            }),
        );
    }

    fn spawn(&mut self, n: u64) -> String {
        let tool_use_id = format!("toolu_spawn_{n:08}");
        let len = self.rng.between(1000, 4000);
        let block = json!({"type": "tool_use", "id": tool_use_id, "name": "Agent", "input": {
            "subagent_type": "coder", "description": "Fix the cart total",
            "prompt": format!("[ROLE:coder] {}", prose(&mut self.rng, len))}});
        self.assistant(block);
        tool_use_id
    }

    fn progress(&mut self, parent: &str, agent_id: &str) {
        let block = self.work_block();
        let message = self.message(block);
        self.line(
            "progress",
            false,
            json!({
                "data": {"message": {"type": "assistant", "message": message,
                                     "uuid": "0b1c2d3e", "timestamp": "2026-03-01T10:00:01.000Z"},
                         "normalizedMessages": [], "type": "agent_progress",
                         "prompt": "Fix the cart total", "agentId": agent_id},
                "toolUseID": "agent_msg_01",
                "parentToolUseID": parent,
            }),
        );
    }

    fn agent_result(&mut self, tool_use_id: &str, agent_id: &str) {
        self.line(
            "user",
            false,
            json!({
                "message": {"role": "user", "content": [{"tool_use_id": tool_use_id, "type": "tool_result",
                    "content": [{"type": "text", "text": "[COMPRESSED] agent_type: coder\nResult: done"}]}]},
                "toolUseResult": {"status": "completed", "prompt": "Fix the cart total",
                                  "agentId": agent_id, "totalDurationMs": 81234, "totalTokens": 40211},
            }),
        );
    }
}

/// A session of `target` bytes: mostly the main agent's messages and tool results,
/// a subagent spawn every few hundred lines whose progress lines follow it.
fn transcript(target: usize) -> Vec<u8> {
    let mut w = Writer {
        rng: Rng(0x9e37_79b9_7f4a_7c15),
        out: Vec::with_capacity(target + (1 << 20)),
        message: 0,
    };
    let mut spawned = 0;
    while w.out.len() < target {
        for _ in 0..100 {
            let block = w.work_block();
            w.assistant(block);
            w.tool_result();
        }
        spawned += 1;
        let tool_use_id = w.spawn(spawned);
        let agent_id = format!("a{spawned:07x}");
        for _ in 0..20 {
            w.progress(&tool_use_id, &agent_id);
        }
        w.agent_result(&tool_use_id, &agent_id);
    }
    w.out
}

struct Fixture {
    _dir: tempfile::TempDir,
    small: PathBuf,
    large: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let small = dir.path().join("small.jsonl");
    let large = dir.path().join("large.jsonl");
    std::fs::write(&small, transcript(1 << 20)).expect("write 1 MB transcript");
    std::fs::write(&large, transcript(100 << 20)).expect("write 100 MB transcript");
    Fixture {
        _dir: dir,
        small,
        large,
    }
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).expect("stat transcript").len()
}

fn bench_transcript(c: &mut Criterion) {
    let fx = fixture();

    let mut group = c.benchmark_group("scan_spawns");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    group.throughput(Throughput::Bytes(file_len(&fx.large)));
    group.bench_function("full_100MB", |b| {
        b.iter(|| scan_spawns(black_box(&fx.large), None).expect("scan"));
    });

    let cursor = scan_spawns(&fx.large, None).expect("scan").cursor;
    let mut w = Writer {
        rng: Rng(3),
        out: Vec::new(),
        message: 1 << 30,
    };
    w.spawn(1 << 20);
    while w.out.len() < 10 * 1024 {
        w.assistant(json!({"type": "tool_use", "id": "toolu_r", "name": "Read",
                           "input": {"file_path": "/home/dev/shop/src/cart.rs"}}));
    }
    let appended = w.out;
    OpenOptions::new()
        .append(true)
        .open(&fx.large)
        .and_then(|mut file| file.write_all(&appended))
        .expect("append 10 KB");
    group.throughput(Throughput::Bytes(appended.len() as u64));
    group.bench_function("after_10KB_appended", |b| {
        b.iter(|| scan_spawns(black_box(&fx.large), Some(&cursor)).expect("scan"));
    });
    group.finish();

    let mut group = c.benchmark_group("current_context_tokens");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    group.bench_function("1MB", |b| {
        b.iter(|| current_context_tokens(black_box(&fx.small)).expect("tokens"));
    });
    group.bench_function("100MB", |b| {
        b.iter(|| current_context_tokens(black_box(&fx.large)).expect("tokens"));
    });

    // A subagent still working: its progress lines, not the main agent's, end the file.
    let mut w = Writer {
        rng: Rng(7),
        out: Vec::new(),
        message: 1 << 40,
    };
    let tool_use_id = w.spawn(0);
    while w.out.len() < 1 << 20 {
        w.progress(&tool_use_id, "a_running");
    }
    OpenOptions::new()
        .append(true)
        .open(&fx.large)
        .and_then(|mut file| file.write_all(&w.out))
        .expect("append progress");
    group.bench_function("100MB_ending_in_1MB_of_progress", |b| {
        b.iter(|| current_context_tokens(black_box(&fx.large)).expect("tokens"));
    });
    group.finish();
}

criterion_group!(benches, bench_transcript);
criterion_main!(benches);
