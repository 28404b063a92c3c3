//! The import's data: claude-nagger's files as read, what they become in nagger's
//! terms, and the report.

use std::fmt;
use std::path::{Path, PathBuf};

/// claude-nagger's files, by name, in `.claude-nagger/`.
pub const YAML_FILES: [&str; 4] = [
    "config.yaml",
    "file_conventions.yaml",
    "command_conventions.yaml",
    "mcp_conventions.yaml",
];

/// The line `merge` writes at the top of config.toml: which YAML files, by hash, the
/// config holds. `doctor` compares it with the files as they are now.
pub const STAMP_PREFIX: &str = "# imported from claude-nagger:";

/// The text of each of claude-nagger's files found (name, text).
#[derive(Debug, Clone, Default)]
pub struct Sources {
    pub files: Vec<(&'static str, String)>,
}

impl Sources {
    /// Reads whichever of claude-nagger's files are in `dir`.
    pub fn read(dir: &Path) -> std::io::Result<Sources> {
        let mut files = Vec::new();
        for name in YAML_FILES {
            match std::fs::read_to_string(dir.join(name)) {
                Ok(text) => files.push((name, text)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(std::io::Error::new(
                        e.kind(),
                        format!("reading {}: {e}", dir.join(name).display()),
                    ));
                }
            }
        }
        Ok(Sources { files })
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.as_str())
    }

    /// `config.yaml=1a2b3c4d5e6f …`: the stamp's content for these files.
    pub fn stamp(&self) -> String {
        use sha2::Digest;
        let parts: Vec<String> = self
            .files
            .iter()
            .map(|(name, text)| {
                let hash = sha2::Sha256::digest(text.as_bytes());
                let hex = hash.iter().take(6).fold(String::new(), |mut s, b| {
                    use std::fmt::Write as _;
                    let _ = write!(s, "{b:02x}");
                    s
                });
                format!("{name}={hex}")
            })
            .collect();
        parts.join(" ")
    }
}

/// What happened to one entry of claude-nagger's config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Carried over with the same meaning.
    Carried,
    /// Carried over, with a difference said in the note.
    Changed,
    /// Not carried over; the note says why.
    Dropped,
}

impl Outcome {
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Carried => "carried",
            Outcome::Changed => "changed",
            Outcome::Dropped => "dropped",
        }
    }
}

/// One line of the import's report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Where in claude-nagger's files: `config.yaml session_startup.messages.first_time`.
    pub source: String,
    pub outcome: Outcome,
    /// Where it went in config.toml (`[session.first_time]`), empty when dropped.
    pub target: String,
    pub note: String,
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:<8} {}", self.outcome.label(), self.source)?;
        if !self.target.is_empty() {
            write!(f, " -> {}", self.target)?;
        }
        if !self.note.is_empty() {
            write!(f, ": {}", self.note)?;
        }
        Ok(())
    }
}

/// A message as nagger shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub title: String,
    pub text: String,
}

/// A role's conventions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Role {
    pub enabled: bool,
    pub message: Option<Message>,
}

/// A `[[rules.file]]`, `[[rules.command]]` or `[[rules.tool]]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub table: &'static str,
    pub name: String,
    pub patterns: Vec<String>,
    pub exclude: Vec<String>,
    pub tool: Option<String>,
    pub input: Vec<(String, String)>,
    pub severity: &'static str,
    pub token_threshold: Option<u64>,
    pub scope: Vec<String>,
    pub message: String,
}

/// The config claude-nagger's files amount to, in nagger's terms, and the report.
#[derive(Debug, Clone, Default)]
pub struct Imported {
    pub session_enabled: Option<bool>,
    pub session_token_threshold: Option<u64>,
    pub first_time: Option<Message>,
    pub repeated: Option<Message>,
    pub roles: Vec<(String, Role)>,
    pub prefixes: Vec<(String, String)>,
    pub rules: Vec<Rule>,
    pub report: Vec<Entry>,
    /// The stamp of the files converted.
    pub stamp: String,
}

/// A YAML file claude-nagger could not read either.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{file}: {message}")]
pub struct ImportError {
    pub file: PathBuf,
    pub message: String,
}

/// A name as a TOML key in a table header.
pub fn toml_key(name: &str) -> String {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        name.to_string()
    } else {
        format!("{name:?}")
    }
}
