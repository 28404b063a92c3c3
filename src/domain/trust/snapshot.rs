//! `.claude-nagger/trusted.json`: the safety settings the user last confirmed, in the
//! config's own shapes (`guard`, `rules.file`, `rules.command`, `rules.tool`), with the
//! digest of its projection near the top so that a hook run whose config has not changed
//! reads no more than that. JSON, because a hook run whose config waits for confirmation
//! reads all of it, and JSON costs a fraction of TOML to parse. Written atomically: a
//! temporary file in the same folder, then a rename.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::projection::{Digest, Projection};
use crate::domain::guard::GuardConfig;
use crate::domain::rules::{PatternRule, RulesConfig, ToolRule};

/// The snapshot's file name, beside `config.toml`.
pub const SNAPSHOT_FILE: &str = "trusted.json";

/// Largest snapshot nagger reads.
const MAX_SNAPSHOT_BYTES: u64 = 1024 * 1024;

/// What stands before the digest.
const DIGEST_PREFIX: &str = "\"projection\": \"";

/// What the file says about itself.
const ABOUT: &str = "The safety settings you last confirmed. nagger keeps them in force while config.toml would weaken them; run `nagger trust` in your terminal to change them.";

/// Where the snapshot of the config at `config_path` lives.
pub fn snapshot_path(config_path: &Path) -> PathBuf {
    config_path.with_file_name(SNAPSHOT_FILE)
}

/// The snapshot's text, opened without blocking and bounded.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let file = crate::base::files::open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_SNAPSHOT_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_SNAPSHOT_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {} KiB", MAX_SNAPSHOT_BYTES / 1024),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not valid UTF-8"))
}

/// The digest in the header of the snapshot at `path`, reading only its first bytes
/// (what a hook run whose config did not change reads).
pub fn read_digest(path: &Path) -> std::io::Result<Option<Digest>> {
    use std::io::Read;
    let mut file = crate::base::files::open_regular(path)?;
    let mut head = [0u8; 512];
    let mut n = 0;
    while n < head.len() {
        match file.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    // A header cut inside a character is no header.
    let text = match std::str::from_utf8(&head[..n]) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    // Only whole lines count.
    let text = if n == head.len() {
        text.rsplit_once('\n').map_or("", |(whole, _)| whole)
    } else {
        text
    };
    Ok(stored_digest(text))
}

/// The digest written in the snapshot's header, if it has one.
pub fn stored_digest(text: &str) -> Option<Digest> {
    text.lines().take(4).find_map(|line| {
        let rest = &line[line.find(DIGEST_PREFIX)? + DIGEST_PREFIX.len()..];
        let hex = &rest[..rest.find('"')?];
        Digest::parse_hex(hex)
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default, rename = "about")]
    _about: String,
    #[serde(default, rename = "projection")]
    _projection: String,
    guard: GuardConfig,
    #[serde(default)]
    rules: RulesConfig,
    #[serde(default)]
    session_token_threshold: Option<u64>,
    #[serde(default)]
    role_resolution: Option<crate::domain::config::RoleResolution>,
}

/// The projection the snapshot holds, or why it cannot be read.
pub fn parse(text: &str) -> Result<Projection, String> {
    let file: File = serde_json::from_str(text).map_err(|e| one_line(&e.to_string()))?;
    Ok(Projection {
        threshold: file.session_token_threshold,
        roles: file.role_resolution,
        ..Projection::of(&file.guard, &file.rules)
    })
}

/// A reason the snapshot cannot be read, on one line and shown as text: it may quote the
/// file, which whoever wrote it chose.
fn one_line(s: &str) -> String {
    crate::base::text::one_line(&crate::domain::config::printable(s), 300)
}

#[derive(Serialize)]
struct OutGuard<'a> {
    enabled: bool,
    deny: Vec<&'a str>,
    allow: Vec<&'a str>,
    secrets: Vec<&'a str>,
    shell_tools: Vec<&'a str>,
}

#[derive(Serialize)]
struct OutPatternRule<'a> {
    name: &'a str,
    patterns: &'a [String],
    exclude: &'a [String],
    severity: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    token_threshold: Option<u64>,
    scope: &'a [String],
    message: &'a str,
}

impl<'a> From<&'a PatternRule> for OutPatternRule<'a> {
    fn from(r: &'a PatternRule) -> Self {
        OutPatternRule {
            name: &r.name,
            patterns: &r.patterns,
            exclude: &r.exclude,
            severity: r.severity.as_str(),
            token_threshold: r.token_threshold,
            scope: &r.scope,
            message: &r.message,
        }
    }
}

#[derive(Serialize)]
struct OutToolRule<'a> {
    name: &'a str,
    tool: &'a str,
    input: &'a std::collections::BTreeMap<String, String>,
    severity: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    token_threshold: Option<u64>,
    scope: &'a [String],
    message: &'a str,
}

impl<'a> From<&'a ToolRule> for OutToolRule<'a> {
    fn from(r: &'a ToolRule) -> Self {
        OutToolRule {
            name: &r.name,
            tool: &r.tool,
            input: &r.input,
            severity: r.severity.as_str(),
            token_threshold: r.token_threshold,
            scope: &r.scope,
            message: &r.message,
        }
    }
}

#[derive(Serialize)]
struct OutRules<'a> {
    file: Vec<OutPatternRule<'a>>,
    command: Vec<OutPatternRule<'a>>,
    tool: Vec<OutToolRule<'a>>,
}

#[derive(Serialize)]
struct Out<'a> {
    about: &'a str,
    projection: String,
    guard: OutGuard<'a>,
    rules: OutRules<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_token_threshold: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    role_resolution: Option<&'a crate::domain::config::RoleResolution>,
}

fn strs(set: &std::collections::BTreeSet<String>) -> Vec<&str> {
    set.iter().map(String::as_str).collect()
}

/// The snapshot's text for `p`.
pub fn render(p: &Projection) -> String {
    let mut secrets = strs(&p.secrets);
    secrets.extend(p.secret_exemptions.iter().map(String::as_str));
    let out = Out {
        about: ABOUT,
        projection: p.digest().to_string(),
        guard: OutGuard {
            enabled: p.enabled,
            deny: strs(&p.deny),
            allow: strs(&p.allow),
            secrets,
            shell_tools: strs(&p.shell_tools),
        },
        rules: OutRules {
            file: p.file.iter().map(OutPatternRule::from).collect(),
            command: p.command.iter().map(OutPatternRule::from).collect(),
            tool: p.tool.iter().map(OutToolRule::from).collect(),
        },
        session_token_threshold: p.threshold,
        role_resolution: p.roles.as_ref(),
    };
    let mut text = serde_json::to_string_pretty(&out).unwrap_or_default();
    text.push('\n');
    text
}

/// Where nagger keeps its own copy of the snapshot at `path`, outside the project:
/// `$XDG_STATE_HOME/nagger/trusted/<project>.json`, else under `~/.local/state`, named by
/// a digest of the project's folder. A snapshot deleted, emptied or replaced by a route
/// the guard could not see leaves this copy, and the stronger of both stays in force.
/// `None` without a home.
pub fn copy_path(path: &Path) -> Option<PathBuf> {
    // Unit tests never write into the home of whoever runs them.
    if cfg!(test) {
        return None;
    }
    let base = match std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
    {
        Some(dir) => dir,
        None => crate::base::paths::home_dir()?.join(".local/state"),
    };
    copy_path_under(&base, path)
}

/// [`copy_path`] under the state folder `base` (what `XDG_STATE_HOME` names).
pub fn copy_path_under(base: &Path, path: &Path) -> Option<PathBuf> {
    use sha2::{Digest as _, Sha256};
    let project = path.parent()?.parent()?;
    let project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    let hash = Sha256::digest(project.as_os_str().as_encoded_bytes());
    let name = hash[..12].iter().fold(String::new(), |mut name, b| {
        use std::fmt::Write as _;
        let _ = write!(name, "{b:02x}");
        name
    });
    Some(base.join("nagger/trusted").join(format!("{name}.json")))
}

/// Writes the snapshot of `p` at `path` and nagger's own copy of it (see
/// [`copy_path`]; the copy is best effort: a home that cannot be written leaves the
/// snapshot alone in force).
pub fn write_trusted(path: &Path, p: &Projection) -> std::io::Result<()> {
    write(path, p)?;
    write_copy(path, p);
    Ok(())
}

/// Writes nagger's own copy of the snapshot at `path`, best effort.
pub fn write_copy(path: &Path, p: &Projection) {
    if let Some(copy) = copy_path(path)
        && let Some(dir) = copy.parent()
        && std::fs::create_dir_all(dir).is_ok()
    {
        let _ = write(&copy, p);
    }
}

/// Writes the snapshot of `p` at `path` atomically (the project's file alone). A
/// snapshot larger than nagger reads ([`MAX_SNAPSHOT_BYTES`]) is not written: the one
/// there stays, since a snapshot that cannot be read back trusts only the defaults (a
/// config that adds entries until the settings in force outgrow it would otherwise drop
/// what the user trusted).
pub fn write(path: &Path, p: &Projection) -> std::io::Result<()> {
    use std::io::Write;
    let text = render(p);
    if text.len() as u64 > MAX_SNAPSHOT_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "the settings would make it larger than {} KiB, more than nagger reads back",
                MAX_SNAPSHOT_BYTES / 1024
            ),
        ));
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let temp = dir.join(format!(".{SNAPSHOT_FILE}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}
