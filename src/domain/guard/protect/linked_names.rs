//! Protected names that are symbolic links. A user may keep `~/.claude/settings.json` in
//! a dotfiles repository, make `.claude` a link onto another folder, or `/etc/claude-code`
//! a link into configuration management: writing the place the link leads writes the
//! protected file as surely as writing its name. Each such place is recorded with the
//! name it stands for, and a path under it is judged as that name.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::super::paths::normalize;

/// Names under a project root that are protected or hold protected files.
const IN_PROJECT: &[&str] = &[
    ".claude",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude-nagger",
    ".claude-nagger/config.toml",
];

/// The same under the home, beside nagger's kept copy of the trusted settings.
const IN_HOME: &[&str] = &[
    ".claude",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude.json",
    ".local/state/nagger",
];

/// The place a link leads (in home form) and the protected name it stands for.
type Link = (String, String);

/// The links found per root looked in. A hook looks in one project; tests in many.
static LINKS: Mutex<Vec<(PathBuf, Vec<Link>)>> = Mutex::new(Vec::new());

/// Most roots remembered (one per project a process checks calls for).
const MAX_ROOTS: usize = 64;

/// Looks once for the protected names of `root`, the home and the managed folders that
/// are symbolic links: one `lstat` per name, a resolution only for a link. Paths are
/// kept as `home_form` writes them.
pub(super) fn look_in(root: &Path, managed_folders: &[&str], home_form: fn(&str) -> String) {
    let Ok(mut links) = LINKS.lock() else {
        return;
    };
    if links.iter().any(|(r, _)| r == root) || links.len() >= MAX_ROOTS {
        return;
    }
    let home = std::env::var("HOME").ok().filter(|h| h.starts_with('/'));
    let mut names: Vec<PathBuf> = IN_PROJECT.iter().map(|n| root.join(n)).collect();
    if let Some(home) = &home {
        names.extend(IN_HOME.iter().map(|n| Path::new(home).join(n)));
    }
    if let Some(state) = std::env::var_os("XDG_STATE_HOME").filter(|s| !s.is_empty()) {
        names.push(Path::new(&state).join("nagger"));
    }
    for managed in managed_folders {
        // Kept in lower case for comparing; the folder on disk is as the system has it.
        let on_disk = if managed.starts_with("/library") {
            "/Library/Application Support/ClaudeCode".to_owned()
        } else {
            (*managed).to_owned()
        };
        names.push(PathBuf::from(&on_disk));
        names.push(Path::new(&on_disk).join("managed-settings.json"));
    }
    let mut found = Vec::new();
    for name in names {
        let is_link = std::fs::symlink_metadata(&name).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            continue;
        }
        let Ok(real) = std::fs::canonicalize(&name) else {
            continue;
        };
        let real = normalize(&home_form(&real.to_string_lossy()));
        let alias = normalize(&home_form(&name.to_string_lossy()));
        if real != alias && real != "/" && real != "~" {
            found.push((real, alias));
        }
    }
    links.push((root.to_path_buf(), found));
}

/// The protected name `normal` (a normalized path in home form) stands for, when it is
/// the place a protected name's link leads or lies under it.
pub(super) fn alias_of(normal: &str) -> Option<String> {
    let links = LINKS.lock().ok()?;
    links
        .iter()
        .flat_map(|(_, l)| l.iter())
        .find_map(|(real, alias)| {
            let rest = normal.strip_prefix(real.as_str())?;
            (rest.is_empty() || rest.starts_with('/')).then(|| format!("{alias}{rest}"))
        })
}

/// Whether a place a protected name's link leads to lies under the folder `normal`.
pub(super) fn holds_one(normal: &str) -> bool {
    if matches!(normal, "/" | "~" | "." | "") {
        return false; // the root and the home have checks of their own
    }
    let Ok(links) = LINKS.lock() else {
        return false;
    };
    links.iter().flat_map(|(_, l)| l.iter()).any(|(real, _)| {
        real.strip_prefix(normal)
            .is_some_and(|rest| rest.starts_with('/'))
    })
}
