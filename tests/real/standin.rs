//! A stand-in for the Messages API that the real Claude Code talks to in these
//! tests: it listens on 127.0.0.1, answers `POST /v1/messages` with server-sent
//! events (or one JSON body when the client does not stream), and records every
//! request so a test can assert on what the model was shown.
//!
//! Answers are scripted per conversation. A conversation is recognised by the last
//! `[SCRIPT:name]` tag in its user text (the prompt Claude Code was started with,
//! or the prompt a subagent was spawned with); its step is the number of assistant
//! turns since the message that holds the tag.

use serde_json::{Value, json};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// One block of a scripted answer.
#[derive(Debug, Clone)]
pub enum Block {
    Text(String),
    Tool { name: String, input: Value },
}

pub fn text(s: impl Into<String>) -> Block {
    Block::Text(s.into())
}

pub fn bash(command: &str) -> Block {
    Block::Tool {
        name: "Bash".into(),
        input: json!({ "command": command, "description": "run a command" }),
    }
}

/// A request as a script sees it: which conversation, and how far it got.
pub struct Turn<'a> {
    pub tag: &'a str,
    pub step: usize,
}

pub type Script = dyn Fn(&Turn<'_>) -> Vec<Block> + Send + Sync;

/// A request the stand-in received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub tag: Option<String>,
    pub step: usize,
    pub body: Value,
}

impl Recorded {
    /// The newest user message, as text (tool results and text blocks).
    pub fn last_user_text(&self) -> String {
        last_user_text(&self.body)
    }

    /// The whole request (system prompt and every message), as one string.
    pub fn all_text(&self) -> String {
        self.body.to_string()
    }

    /// Tool results of the newest user message: (content as text, is_error).
    pub fn tool_results(&self) -> Vec<(String, bool)> {
        let Some(last) = messages(&self.body)
            .iter()
            .rev()
            .find(|m| m["role"] == "user")
        else {
            return Vec::new();
        };
        blocks(last)
            .iter()
            .filter(|b| b["type"] == "tool_result")
            .map(|b| {
                (
                    content_text(&b["content"]),
                    b["is_error"].as_bool().unwrap_or(false),
                )
            })
            .collect()
    }
}

pub struct StandIn {
    pub port: u16,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
}

impl StandIn {
    pub fn start(script: Arc<Script>) -> StandIn {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let ids = Arc::new(AtomicU64::new(1));
        {
            let requests = requests.clone();
            let stop = stop.clone();
            thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let (requests, script, ids) = (requests.clone(), script.clone(), ids.clone());
                    thread::spawn(move || serve(stream, &requests, &*script, &ids));
                }
            });
        }
        StandIn {
            port,
            requests,
            stop,
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    /// The scripted conversation's requests, in the order of their steps.
    pub fn conversation(&self, tag: &str) -> Vec<Recorded> {
        let mut v: Vec<Recorded> = self
            .requests()
            .into_iter()
            .filter(|r| r.tag.as_deref() == Some(tag))
            .collect();
        v.sort_by_key(|r| r.step);
        v
    }

    /// The request a conversation made at one step (the newest one when the client
    /// retried it).
    pub fn at(&self, tag: &str, step: usize) -> Option<Recorded> {
        self.conversation(tag).into_iter().rfind(|r| r.step == step)
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag and ends.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(stream: TcpStream, requests: &Mutex<Vec<Recorded>>, script: &Script, ids: &AtomicU64) {
    let _ = stream.set_read_timeout(Some(Duration::from_mins(5)));
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut writer = stream;
    // Keep-alive: one request after another until the client closes.
    while let Some((method, path, body)) = read_request(&mut reader) {
        let response = respond(&method, &path, &body, requests, script, ids);
        if writer.write_all(&response).is_err() || writer.flush().is_err() {
            break;
        }
    }
    let _ = writer.shutdown(Shutdown::Both);
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<(String, String, Vec<u8>)> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let name = name.trim().to_ascii_lowercase();
            let value = value.trim();
            if name == "content-length" {
                length = value.parse().ok()?;
            } else if name == "transfer-encoding" && value.eq_ignore_ascii_case("chunked") {
                chunked = true;
            }
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).ok()?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        body.resize(length, 0);
        reader.read_exact(&mut body).ok()?;
    }
    Some((method, path, body))
}

fn respond(
    method: &str,
    path: &str,
    body: &[u8],
    requests: &Mutex<Vec<Recorded>>,
    script: &Script,
    ids: &AtomicU64,
) -> Vec<u8> {
    let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    if method != "POST" || !path.starts_with("/v1/messages") {
        return http(
            404,
            "application/json",
            br#"{"type":"error","error":{"type":"not_found_error","message":"not here"}}"#,
        );
    }
    if path.starts_with("/v1/messages/count_tokens") {
        return http(200, "application/json", br#"{"input_tokens":1000}"#);
    }
    let (tag, step) = conversation_of(&request);
    requests.lock().unwrap().push(Recorded {
        tag: tag.clone(),
        step,
        body: request.clone(),
    });
    let answer = match (&tag, is_summary_request(&request)) {
        (_, true) => vec![text(
            "<summary>The session ran its scripted plan; subagents reported their results.</summary>",
        )],
        (Some(tag), false) => script(&Turn { tag, step }),
        (None, false) => vec![text("ok")],
    };
    let answer = if answer.is_empty() {
        vec![text("done")]
    } else {
        answer
    };
    let id = ids.fetch_add(1, Ordering::SeqCst);
    let prefix = tag.as_deref().unwrap_or("free");
    let model = request["model"]
        .as_str()
        .unwrap_or("claude-stand-in")
        .to_string();
    let mut content = Vec::new();
    for (i, block) in answer.iter().enumerate() {
        content.push(match block {
            Block::Text(t) => json!({ "type": "text", "text": t }),
            Block::Tool { name, input } => json!({
                "type": "tool_use",
                "id": format!("toolu_{prefix}_{id:04}{i}"),
                "name": name,
                "input": input,
            }),
        });
    }
    let stop_reason = if answer.iter().any(|b| matches!(b, Block::Tool { .. })) {
        "tool_use"
    } else {
        "end_turn"
    };
    let usage = json!({
        "input_tokens": 1000, "output_tokens": 10,
        "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0
    });
    let message_id = format!("msg_standin_{id:06}");
    if request["stream"].as_bool() != Some(true) {
        let body = json!({
            "id": message_id, "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop_reason, "stop_sequence": null, "usage": usage,
        });
        return http(200, "application/json", body.to_string().as_bytes());
    }
    let mut events = vec![(
        "message_start",
        json!({ "type": "message_start", "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage,
        }}),
    )];
    for (index, block) in content.iter().enumerate() {
        let (start, delta) = if block["type"] == "text" {
            (
                json!({ "type": "text", "text": "" }),
                json!({ "type": "text_delta", "text": block["text"] }),
            )
        } else {
            (
                json!({ "type": "tool_use", "id": block["id"], "name": block["name"], "input": {} }),
                json!({ "type": "input_json_delta", "partial_json": block["input"].to_string() }),
            )
        };
        events.push((
            "content_block_start",
            json!({ "type": "content_block_start", "index": index, "content_block": start }),
        ));
        events.push((
            "content_block_delta",
            json!({ "type": "content_block_delta", "index": index, "delta": delta }),
        ));
        events.push((
            "content_block_stop",
            json!({ "type": "content_block_stop", "index": index }),
        ));
    }
    events.push((
        "message_delta",
        json!({ "type": "message_delta", "delta": { "stop_reason": stop_reason, "stop_sequence": null },
                "usage": { "output_tokens": 10 } }),
    ));
    events.push(("message_stop", json!({ "type": "message_stop" })));
    let mut sse = String::new();
    for (name, data) in events {
        let _ = write!(sse, "event: {name}\ndata: {data}\n\n");
    }
    http(200, "text/event-stream", sse.as_bytes())
}

fn http(status: u16, content_type: &str, body: &[u8]) -> Vec<u8> {
    let reason = if status == 200 { "OK" } else { "Not Found" };
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nrequest-id: req_standin\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

fn messages(request: &Value) -> &[Value] {
    request["messages"].as_array().map_or(&[], |v| v.as_slice())
}

fn blocks(message: &Value) -> Vec<Value> {
    match &message["content"] {
        Value::String(s) => vec![json!({ "type": "text", "text": s })],
        Value::Array(a) => a.clone(),
        _ => Vec::new(),
    }
}

fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn last_user_text(request: &Value) -> String {
    let Some(last) = messages(request).iter().rev().find(|m| m["role"] == "user") else {
        return String::new();
    };
    blocks(last)
        .iter()
        .map(|b| match b["type"].as_str() {
            Some("tool_result") => content_text(&b["content"]),
            _ => b["text"].as_str().unwrap_or("").to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The conversation's tag and step: the last `[SCRIPT:x]` in user text (never in
/// tool results, which carry other agents' words), and the assistant turns since.
fn conversation_of(request: &Value) -> (Option<String>, usize) {
    let mut found: Option<(String, usize)> = None;
    for (i, message) in messages(request).iter().enumerate() {
        if message["role"] != "user" {
            continue;
        }
        for block in blocks(message) {
            if block["type"] != "text" {
                continue;
            }
            let text = block["text"].as_str().unwrap_or("");
            if let Some(tag) = last_tag(text) {
                found = Some((tag, i));
            }
        }
    }
    match found {
        Some((tag, at)) => {
            let step = messages(request)[at..]
                .iter()
                .filter(|m| m["role"] == "assistant")
                .count();
            (Some(tag), step)
        }
        None => (None, 0),
    }
}

fn last_tag(text: &str) -> Option<String> {
    let mut tag = None;
    let mut rest = text;
    while let Some(at) = rest.find("[SCRIPT:") {
        let after = &rest[at + "[SCRIPT:".len()..];
        match after.find(']') {
            Some(end)
                if end > 0
                    && after[..end]
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
            {
                tag = Some(after[..end].to_string());
                rest = &after[end..];
            }
            _ => rest = after,
        }
    }
    tag
}

/// Claude Code's compaction asks the model for a summary of the conversation.
fn is_summary_request(request: &Value) -> bool {
    let Some(last) = messages(request).iter().rev().find(|m| m["role"] == "user") else {
        return false;
    };
    blocks(last).iter().any(|b| {
        b["text"].as_str().is_some_and(|t| {
            t.contains("create a detailed summary of the conversation")
                || t.contains("Your task is to create a detailed summary")
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_steps() {
        let req = json!({ "messages": [
            { "role": "user", "content": [{ "type": "text", "text": "<r>x</r>" }, { "type": "text", "text": "[SCRIPT:main] go" }] },
            { "role": "assistant", "content": [{ "type": "tool_use", "id": "t", "name": "Bash", "input": {} }] },
            { "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "t", "content": "[SCRIPT:other]" }] },
        ]});
        assert_eq!(conversation_of(&req), (Some("main".into()), 1));
        assert_eq!(
            last_tag("a [SCRIPT:x] b [SCRIPT:y-2] [SCRIPT:]"),
            Some("y-2".into())
        );
    }
}
