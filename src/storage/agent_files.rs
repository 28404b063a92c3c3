//! The exact facts Claude Code writes about a subagent, each read with bounded I/O:
//! the first line of the agent's own transcript (the prompt it was spawned with),
//! its `.meta.json` (the `toolUseId` of the spawning call), and whether a tool call's
//! `tool_use_id` is already at the end of a transcript (who made the call).
//!
//! Every file is opened without blocking and refused unless it is a regular file,
//! so a FIFO or a device in its place never hangs a hook.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::base::files::open_regular;

/// The longest first line read for a prompt; a longer prompt gives no fact.
pub const MAX_PROMPT_LINE: u64 = 4 * 1024 * 1024;
/// The largest meta file read.
pub const MAX_META: u64 = 64 * 1024;
/// How far back from the end a transcript is searched for a tool_use_id.
pub const TAIL_BUDGET: u64 = 512 * 1024;
/// How many lines from the end a transcript is searched for a tool_use_id: the call's
/// line is the newest or close to it (a few progress lines, parallel calls).
pub const TAIL_LINES: usize = 24;

/// `<parent without .jsonl>/subagents/agent-<agent_id>.meta.json`.
pub fn meta_path(agent_transcript: &Path) -> PathBuf {
    agent_transcript.with_extension("meta.json")
}

/// What a read of an agent file cost.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    pub bytes_read: u64,
}

/// sha256(prompt)[:16 hex] of the prompt on the first line of an agent's transcript
/// (a `user` line whose message content is the prompt), or None when the file is not
/// there yet, its first line is not complete, or it holds no prompt.
pub fn prompt_hash(agent_transcript: &Path, cost: &mut Cost) -> Option<String> {
    let mut file = open_regular(agent_transcript).ok()?;
    let mut line = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let n = file.read(&mut chunk).ok()?;
        cost.bytes_read += n as u64;
        if n == 0 {
            return None; // no complete first line yet
        }
        if let Some(end) = memchr::memchr(b'\n', &chunk[..n]) {
            line.extend_from_slice(&chunk[..end]);
            break;
        }
        line.extend_from_slice(&chunk[..n]);
        if line.len() as u64 > MAX_PROMPT_LINE {
            return None;
        }
    }
    let value: serde_json::Value = serde_json::from_slice(&line).ok()?;
    if value["type"] != "user" {
        return None;
    }
    let prompt = match &value["message"]["content"] {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(blocks) => blocks
            .iter()
            .find(|b| b["type"] == "text")
            .and_then(|b| b["text"].as_str())?
            .to_string(),
        _ => return None,
    };
    Some(crate::storage::transcript::prompt_hash(&prompt))
}

/// The `toolUseId` of the call that spawned the agent, from its meta file.
pub fn meta_tool_use_id(agent_transcript: &Path, cost: &mut Cost) -> Option<String> {
    let file = open_regular(&meta_path(agent_transcript)).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_META + 1).read_to_end(&mut bytes).ok()?;
    cost.bytes_read += bytes.len() as u64;
    if bytes.len() as u64 > MAX_META {
        return None;
    }
    let value: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    value["toolUseId"]
        .as_str()
        .filter(|s| !s.is_empty() && s.len() <= 256)
        .map(str::to_string)
}

/// Where a transcript holds a tool_use_id near its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TailHit {
    /// The line is marked `"isSidechain":true`: a subagent's line written into the
    /// parent transcript (as Claude Code versions before per-agent transcripts did).
    pub sidechain: bool,
}

/// Whether `tool_use_id` (as a JSON string) is in one of the last lines of a
/// transcript. Reads at most [`TAIL_BUDGET`] bytes from the end; a file that is
/// missing or not a regular file does not hold it.
pub fn tail_has_tool_use(transcript: &Path, tool_use_id: &str, cost: &mut Cost) -> bool {
    tail_find_tool_use(transcript, tool_use_id, cost).is_some()
}

/// [`tail_has_tool_use`], telling whether the line that holds it is a sidechain's.
pub fn tail_find_tool_use(
    transcript: &Path,
    tool_use_id: &str,
    cost: &mut Cost,
) -> Option<TailHit> {
    let mut file = open_regular(transcript).ok()?;
    let len = file.metadata().ok()?.len();
    let needle = format!("\"{tool_use_id}\"");
    let finder = memchr::memmem::FinderRev::new(needle.as_bytes());
    // Read backwards in chunks; keep the bytes of lines not yet complete in front.
    let mut pos = len;
    let mut window: Vec<u8> = Vec::new();
    let chunk = 64 * 1024u64;
    while pos > 0 && cost_within(len - pos) {
        let n = chunk.min(pos);
        pos -= n;
        let mut buf = vec![0u8; usize::try_from(n).expect("a chunk is at most 64 KiB")];
        file.seek(SeekFrom::Start(pos)).ok()?;
        file.read_exact(&mut buf).ok()?;
        cost.bytes_read += n;
        buf.extend_from_slice(&window);
        window = buf;
        // The needle may straddle a chunk edge: the whole window is searched again,
        // bounded by the budget.
        if let Some(at) = finder.rfind(&window) {
            let start = memchr::memrchr(b'\n', &window[..at]).map_or(0, |i| i + 1);
            let end = memchr::memchr(b'\n', &window[at..]).map_or(window.len(), |i| at + i);
            let line = &window[start..end];
            let sidechain = memchr::memmem::find(line, b"\"isSidechain\":true").is_some();
            return Some(TailHit { sidechain });
        }
        if memchr::memchr_iter(b'\n', &window).count() > TAIL_LINES {
            return None;
        }
    }
    None
}

fn cost_within(read_so_far: u64) -> bool {
    read_so_far < TAIL_BUDGET
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_with(lines: &[String]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        for l in lines {
            writeln!(f, "{l}").unwrap();
        }
        f
    }

    #[test]
    fn prompt_hash_of_the_first_line() {
        let first = serde_json::json!({"type": "user", "message": {"role": "user", "content": "[ROLE:coder] fix it"}});
        let f = file_with(&[first.to_string(), "{\"type\":\"assistant\"}".into()]);
        let mut cost = Cost::default();
        assert_eq!(
            prompt_hash(f.path(), &mut cost),
            Some(crate::storage::transcript::prompt_hash(
                "[ROLE:coder] fix it"
            ))
        );
        // blocks instead of a string
        let first = serde_json::json!({"type": "user", "message": {"content": [{"type": "text", "text": "p"}]}});
        let f = file_with(&[first.to_string()]);
        assert_eq!(
            prompt_hash(f.path(), &mut cost),
            Some(crate::storage::transcript::prompt_hash("p"))
        );
    }

    #[test]
    fn no_prompt_from_a_cut_line_a_missing_file_or_another_kind() {
        let mut cost = Cost::default();
        let mut f = tempfile::NamedTempFile::new().unwrap();
        write!(f, "{{\"type\":\"user\",\"message\":{{\"content\":\"cut").unwrap();
        assert_eq!(prompt_hash(f.path(), &mut cost), None);
        assert_eq!(
            prompt_hash(Path::new("/no/such/agent.jsonl"), &mut cost),
            None
        );
        let f = file_with(&["{\"type\":\"assistant\",\"message\":{\"content\":\"x\"}}".into()]);
        assert_eq!(prompt_hash(f.path(), &mut cost), None);
    }

    #[test]
    fn a_huge_first_line_is_read_only_to_its_bound() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let big = "x".repeat(usize::try_from(MAX_PROMPT_LINE + 100_000).unwrap());
        writeln!(
            f,
            "{{\"type\":\"user\",\"message\":{{\"content\":\"{big}\"}}}}"
        )
        .unwrap();
        let mut cost = Cost::default();
        assert_eq!(prompt_hash(f.path(), &mut cost), None);
        assert!(cost.bytes_read <= MAX_PROMPT_LINE + 32 * 1024, "{cost:?}");
    }

    #[test]
    fn meta_tool_use_id_read() {
        let dir = tempfile::tempdir().unwrap();
        let transcript = dir.path().join("agent-a1.jsonl");
        let mut cost = Cost::default();
        assert_eq!(meta_tool_use_id(&transcript, &mut cost), None);
        std::fs::write(
            dir.path().join("agent-a1.meta.json"),
            r#"{"agentType":"general-purpose","toolUseId":"toolu_9"}"#,
        )
        .unwrap();
        assert_eq!(
            meta_tool_use_id(&transcript, &mut cost).as_deref(),
            Some("toolu_9")
        );
    }

    #[test]
    fn tail_search_finds_recent_ids_only_and_reads_boundedly() {
        let mut lines: Vec<String> = (0..5000)
            .map(|i| format!("{{\"type\":\"assistant\",\"message\":{{\"content\":[{{\"type\":\"tool_use\",\"id\":\"toolu_{i}\"}}]}}}}"))
            .collect();
        lines.push("{\"type\":\"progress\"}".into());
        let f = file_with(&lines);
        let mut cost = Cost::default();
        assert!(tail_has_tool_use(f.path(), "toolu_4999", &mut cost));
        assert!(tail_has_tool_use(f.path(), "toolu_4990", &mut cost));
        let mut cost = Cost::default();
        assert!(!tail_has_tool_use(f.path(), "toolu_10", &mut cost));
        assert!(cost.bytes_read <= TAIL_BUDGET, "{cost:?}");
        // an id that is a prefix of another does not match it
        assert!(!tail_has_tool_use(
            f.path(),
            "toolu_499",
            &mut Cost::default()
        ));
    }

    #[test]
    fn a_sidechain_line_is_told_apart() {
        let f = file_with(&[
            r#"{"type":"assistant","isSidechain":true,"message":{"content":[{"type":"tool_use","id":"toolu_s"}]}}"#.into(),
            r#"{"type":"assistant","isSidechain":false,"message":{"content":[{"type":"tool_use","id":"toolu_m"}]}}"#.into(),
        ]);
        let mut cost = Cost::default();
        assert_eq!(
            tail_find_tool_use(f.path(), "toolu_s", &mut cost),
            Some(TailHit { sidechain: true })
        );
        assert_eq!(
            tail_find_tool_use(f.path(), "toolu_m", &mut cost),
            Some(TailHit { sidechain: false })
        );
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("agent-x.jsonl");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(
            status.is_ok_and(|s| s.success()),
            "mkfifo is needed for this test"
        );
        let mut cost = Cost::default();
        assert!(!tail_has_tool_use(&fifo, "toolu_1", &mut cost));
        assert_eq!(prompt_hash(&fifo, &mut cost), None);
        assert!(open_regular(&fifo).is_err());
    }
}
