//! The digest: who it is for, the entries, tasks and files it offers, and its text.

use super::consts::LEADER;
use crate::base::text;
use crate::domain::config::ContextConfig;
use crate::storage::store::{ContextEntry, FileChange, TaskRecord};
use serde::Serialize;
use std::fmt::Write as _;

const FILES_PER_ENTRY: usize = 10;

/// Which selection stage an entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Results of this session's finished agents.
    Session,
    /// Earlier results of the same role in other sessions.
    SameRole,
    /// Decisions, blockers and handoffs from other sessions.
    CrossSession,
    /// Entries tagged with this role or `all`.
    Tagged,
    /// Fallback when 1-4 found nothing: the latest entries.
    Recent,
}

/// Who the digest is for.
#[derive(Debug, Clone, Copy)]
pub enum Audience<'a> {
    /// A subagent about to start.
    Subagent {
        session_id: &'a str,
        agent_id: Option<&'a str>,
        agent_type: &'a str,
        role: Option<&'a str>,
    },
    /// The main agent, after a compaction.
    Main { session_id: &'a str },
}

impl Audience<'_> {
    pub(super) fn session_id(&self) -> &str {
        match self {
            Audience::Subagent { session_id, .. } | Audience::Main { session_id } => session_id,
        }
    }

    pub(super) fn role(&self) -> &str {
        match self {
            Audience::Subagent {
                role, agent_type, ..
            } => role.unwrap_or(agent_type),
            Audience::Main { .. } => LEADER,
        }
    }

    pub(super) fn agent_type(&self) -> &str {
        match self {
            Audience::Subagent { agent_type, .. } => agent_type,
            Audience::Main { .. } => LEADER,
        }
    }
}

/// An entry the digest offers, and the stage that found it.
#[derive(Debug, Clone)]
pub struct Picked {
    pub stage: Stage,
    pub entry: ContextEntry,
}

/// How a picked entry shows in JSON (`nagger context --json`): its stage, then the
/// entry's fields a reader of the digest needs (not its tags or tokens).
#[derive(Serialize)]
struct PickedView<'a> {
    stage: Stage,
    id: i64,
    session_id: &'a str,
    agent_id: Option<&'a str>,
    agent_type: Option<&'a str>,
    role: Option<&'a str>,
    category: &'a str,
    content_hash: &'a str,
    created_at: i64,
    content: &'a str,
    files: &'a [String],
}

impl Serialize for Picked {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let e = &self.entry;
        PickedView {
            stage: self.stage,
            id: e.id,
            session_id: &e.session_id,
            agent_id: e.agent_id.as_deref(),
            agent_type: e.agent_type.as_deref(),
            role: e.role.as_deref(),
            category: &e.category,
            content_hash: &e.content_hash,
            created_at: e.created_at,
            content: &e.content,
            files: &e.files,
        }
        .serialize(serializer)
    }
}

/// A selected digest and its text ("" when there is nothing to share).
#[derive(Debug, Clone, Default)]
pub struct Digest {
    /// The categories the audience receives; None: all.
    pub categories: Option<Vec<String>>,
    /// Newest first.
    pub entries: Vec<Picked>,
    pub tasks: Vec<TaskRecord>,
    /// Main agent only: what the session changed.
    pub files: Vec<FileChange>,
    pub text: String,
}

/// The digest's text; "" when it holds nothing.
pub(super) fn render(config: &ContextConfig, audience: &Audience<'_>, d: &Digest) -> String {
    if d.entries.is_empty() && d.tasks.is_empty() && d.files.is_empty() {
        return String::new();
    }
    let session = audience.session_id();
    let mut out = match audience {
        Audience::Subagent { .. } => String::from(
            "## Shared context (nagger)\nResults of agents that finished before you, newest \
             first. Build on them instead of redoing their work.",
        ),
        Audience::Main { .. } => String::from(
            "## Shared context (nagger)\nWhat this session's subagents reported, newest first \
             (restored after the compaction).",
        ),
    };
    for p in &d.entries {
        let e = &p.entry;
        let who = e
            .role
            .as_deref()
            .or(e.agent_type.as_deref())
            .unwrap_or("agent");
        let agent = e
            .agent_id
            .as_deref()
            .map(|a| format!(" {a}"))
            .unwrap_or_default();
        let place = if e.session_id == session {
            "this session".to_string()
        } else {
            format!("session {}", text::prefix(&e.session_id, 8).0)
        };
        let _ = write!(
            out,
            "\n\n### {} · {who}{agent} · {place}\n{}",
            e.category,
            text::cut(e.content.trim(), config.max_entry_chars)
        );
        if !e.files.is_empty() {
            let shown: Vec<&str> = e
                .files
                .iter()
                .take(FILES_PER_ENTRY)
                .map(String::as_str)
                .collect();
            let _ = write!(out, "\nFiles written: {}", shown.join(", "));
            if e.files.len() > FILES_PER_ENTRY {
                let _ = write!(out, " (+{} more)", e.files.len() - FILES_PER_ENTRY);
            }
        }
    }
    if !d.tasks.is_empty() {
        let _ = write!(out, "\n\n### Open tasks for {}", audience.role());
        for t in &d.tasks {
            let _ = write!(out, "\n- #{} {}", t.id, text::one_line(&t.title, 200));
            if let Some(desc) = t.description.as_deref().filter(|d| !d.trim().is_empty()) {
                let _ = write!(out, ": {}", text::one_line(desc, 300));
            }
        }
    }
    if !d.files.is_empty() {
        out.push_str("\n\n### Files changed in this session");
        for f in &d.files {
            let by = if f.agent_id.is_empty() {
                "main agent".to_string()
            } else {
                format!("agent {}", f.agent_id)
            };
            let _ = write!(out, "\n- {} ({}, {by})", f.path, f.tool);
        }
    }
    out
}
