//! Where a skill or command named `name` (`/name`, `ns:name`, `plugin:name`) can live,
//! and reading such a file bounded and without blocking.
//!
//! Claude Code looks in the project's `.claude/skills/<name>/SKILL.md` and
//! `.claude/commands/<name>.md` (a subfolder `ns/` makes the name `ns:name`), in the
//! same folders of the user's Claude Code folder (`~/.claude`, or `$CLAUDE_CONFIG_DIR`),
//! and in the `skills/` and `commands/` folders of installed plugins
//! (`plugins/installed_plugins.json` there names each one's `installPath`; a plugin's
//! skills are named `plugin:name`).

use crate::base::files::open_regular;
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Most bytes read of one skill or command file; a longer file is judged on what was
/// read and counted as not read whole.
pub const MAX_FILE_BYTES: u64 = 256 * 1024;
/// Most bytes read of `installed_plugins.json`.
const MAX_PLUGIN_LIST_BYTES: u64 = 1024 * 1024;
/// Most folders between the working folder and the project root searched for
/// `.claude/` folders.
const MAX_DEPTH: usize = 16;

/// Where to look for skills and commands.
#[derive(Debug, Clone)]
pub struct Roots {
    pub project_root: PathBuf,
    /// The session's working folder, when inside the project: its `.claude/` folders
    /// and those of the folders up to the project root are searched too.
    pub cwd: Option<PathBuf>,
    /// The user's Claude Code folder (`$CLAUDE_CONFIG_DIR`, else `~/.claude`).
    pub user_dir: Option<PathBuf>,
}

impl Roots {
    /// The user's Claude Code folder from the environment.
    pub fn user_dir_from_env() -> Option<PathBuf> {
        std::env::var_os("CLAUDE_CONFIG_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| crate::base::paths::home_dir().map(|h| h.join(".claude")))
    }

    /// The `.claude` folders of the project: the working folder's and each one's up to
    /// the project root, root last.
    fn project_dirs(&self) -> Vec<PathBuf> {
        let mut dirs = Vec::new();
        if let Some(cwd) = &self.cwd
            && cwd.starts_with(&self.project_root)
        {
            for dir in cwd.ancestors().take(MAX_DEPTH) {
                if dir == self.project_root {
                    break;
                }
                dirs.push(dir.join(".claude"));
            }
        }
        dirs.push(self.project_root.join(".claude"));
        dirs
    }
}

/// A file read for its shell lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    pub path: PathBuf,
    /// The folder `${CLAUDE_SKILL_DIR}` names: the skill's folder, or the command file's.
    pub dir: PathBuf,
    pub text: String,
    /// The file is longer than [`MAX_FILE_BYTES`]: only its start was read.
    pub cut: bool,
}

/// The parts of a name that could be a file: no empty part, no `.` or `..`, no slash,
/// no control character. `None` for a name no file can have.
fn name_parts(name: &str) -> Option<Vec<&str>> {
    let name = name.trim().trim_start_matches('/');
    let parts: Vec<&str> = name.split(':').collect();
    let fine = |p: &&str| {
        !p.is_empty()
            && *p != "."
            && *p != ".."
            && !p.contains(['/', '\\'])
            && !p.chars().any(char::is_control)
    };
    (!name.is_empty() && name.len() <= 512 && parts.iter().all(fine)).then_some(parts)
}

/// The files `ns:…:name` can be under one `.claude`-like folder (or a plugin's root).
fn under(base: &Path, parts: &[&str], out: &mut Vec<(PathBuf, PathBuf)>) {
    let mut skill = base.join("skills");
    for part in parts {
        skill.push(part);
    }
    for file in ["SKILL.md", "skill.md"] {
        out.push((skill.join(file), skill.clone()));
    }
    let mut command = base.join("commands");
    for part in &parts[..parts.len() - 1] {
        command.push(part);
    }
    let file = command.join(format!("{}.md", parts[parts.len() - 1]));
    out.push((file, command));
}

/// Every file the name may stand for, most specific first; only those that exist are
/// read.
pub fn candidates(name: &str, roots: &Roots) -> Vec<(PathBuf, PathBuf)> {
    let Some(parts) = name_parts(name) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for dir in roots.project_dirs() {
        under(&dir, &parts, &mut out);
    }
    if let Some(user) = &roots.user_dir {
        under(user, &parts, &mut out);
        if parts.len() > 1 {
            for root in plugin_roots(user, parts[0]) {
                under(&root, &parts[1..], &mut out);
            }
        }
    }
    out
}

/// The folders of the installed plugin `plugin` (every marketplace, every scope), from
/// `plugins/installed_plugins.json` in the user's Claude Code folder.
fn plugin_roots(user_dir: &Path, plugin: &str) -> Vec<PathBuf> {
    let path = user_dir.join("plugins").join("installed_plugins.json");
    let Ok((text, false)) = read_bounded(&path, MAX_PLUGIN_LIST_BYTES) else {
        return Vec::new();
    };
    let Ok(list) = serde_json::from_str::<Value>(&text) else {
        return Vec::new();
    };
    let Some(plugins) = list.get("plugins").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut roots = Vec::new();
    for (key, installs) in plugins {
        if key.split('@').next() != Some(plugin) {
            continue;
        }
        // Version 1 holds one install per plugin, version 2 a list of them.
        let installs = match installs {
            Value::Array(list) => list.iter().collect(),
            one => vec![one],
        };
        for install in installs {
            if let Some(path) = install.get("installPath").and_then(Value::as_str) {
                roots.push(PathBuf::from(path));
            }
        }
    }
    roots
}

/// Reads at most `max` bytes of a regular file without blocking; whether it was cut.
fn read_bounded(path: &Path, max: u64) -> std::io::Result<(String, bool)> {
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes)?;
    let cut = bytes.len() as u64 > max;
    bytes.truncate(usize::try_from(max).unwrap_or(usize::MAX));
    Ok((String::from_utf8_lossy(&bytes).into_owned(), cut))
}

/// The files the name stands for that exist and can be read. Every one is returned:
/// which one Claude Code picks when several share a name is not decided here, so each
/// is judged.
pub fn find(name: &str, roots: &Roots) -> Vec<SkillFile> {
    let mut found: Vec<SkillFile> = Vec::new();
    for (path, dir) in candidates(name, roots) {
        let Ok((text, cut)) = read_bounded(&path, MAX_FILE_BYTES) else {
            continue;
        };
        // `SKILL.md` and `skill.md` are one file on a case-insensitive disk.
        if found.iter().any(|f| f.dir == dir && f.text == text) {
            continue;
        }
        found.push(SkillFile {
            path,
            dir,
            text,
            cut,
        });
    }
    found
}

/// Most agent files of one folder (and its subfolders) looked through for an agent's name.
const MAX_AGENT_FILES: usize = 64;
/// Most folders below an agents folder looked into, and how deep.
const MAX_AGENT_DIRS: usize = 32;
const MAX_AGENT_DEPTH: usize = 8;
/// How much of an agent file is read for the name its frontmatter gives.
const MAX_HEAD_BYTES: u64 = MAX_FILE_BYTES;

/// The `.md` files of an agents folder and of its subfolders, bounded.
fn agent_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![(dir.to_path_buf(), 0)];
    let mut seen = 0;
    while let Some((folder, depth)) = folders.pop() {
        seen += 1;
        if seen > MAX_AGENT_DIRS {
            break;
        }
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten().take(MAX_AGENT_FILES) {
            let path = entry.path();
            // Through links, as the client reads them.
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                if depth < MAX_AGENT_DEPTH {
                    folders.push((path, depth + 1));
                }
            } else if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("md"))
                && files.len() < MAX_AGENT_FILES
            {
                files.push(path);
            }
        }
    }
    files
}

/// The agent files that may define the agent `name`: `<name>.md` in the agents folders of
/// the project (and those between the working folder and it) and of the user, and any
/// file there whose frontmatter says `name: <name>`. Each is read bounded.
pub fn find_agent(name: &str, roots: &Roots) -> Vec<SkillFile> {
    let Some(parts) = name_parts(name) else {
        return Vec::new();
    };
    let file_name = parts.join(":");
    let mut dirs: Vec<PathBuf> = roots
        .project_dirs()
        .into_iter()
        .map(|d| d.join("agents"))
        .collect();
    dirs.extend(roots.user_dir.iter().map(|d| d.join("agents")));
    let mut found: Vec<SkillFile> = Vec::new();
    let push = |path: PathBuf, dir: &Path, found: &mut Vec<SkillFile>| {
        if found.iter().any(|f| f.path == path) {
            return;
        }
        if let Ok((text, cut)) = read_bounded(&path, MAX_FILE_BYTES) {
            found.push(SkillFile {
                path,
                dir: dir.to_path_buf(),
                text,
                cut,
            });
        }
    };
    for dir in &dirs {
        push(dir.join(format!("{file_name}.md")), dir, &mut found);
        // Every agent file of the folder and its subfolders (Claude Code reads them all),
        // by the name its frontmatter gives as YAML reads it.
        for path in agent_files(dir) {
            let Ok((head, _)) = read_bounded(&path, MAX_HEAD_BYTES) else {
                continue;
            };
            let front = crate::base::frontmatter::read(&head);
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            if stem == file_name || front.names.iter().any(|n| n == name) {
                push(path, dir, &mut found);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots(dir: &Path) -> Roots {
        Roots {
            project_root: dir.join("p"),
            cwd: Some(dir.join("p/sub")),
            user_dir: Some(dir.join("home/.claude")),
        }
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn project_user_and_namespaced_files_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(&d.join("p/.claude/skills/deploy/SKILL.md"), "project skill");
        write(&d.join("home/.claude/commands/deploy.md"), "user command");
        write(&d.join("p/.claude/commands/ops/clean.md"), "ns command");
        write(&d.join("p/sub/.claude/commands/near.md"), "nearer");
        let r = roots(d);
        let texts =
            |name: &str| -> Vec<String> { find(name, &r).into_iter().map(|f| f.text).collect() };
        assert_eq!(texts("/deploy"), ["project skill", "user command"]);
        assert_eq!(texts("ops:clean"), ["ns command"]);
        assert_eq!(texts("near"), ["nearer"]);
        assert!(texts("missing").is_empty());
        let found = find("deploy", &r);
        assert_eq!(found[0].dir, d.join("p/.claude/skills/deploy"));
    }

    #[test]
    fn plugin_skills_come_from_the_installed_plugins_list() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let install = d.join("home/.claude/plugins/cache/market/tools/1.0.0");
        write(&install.join("skills/sweep/SKILL.md"), "plugin skill");
        write(&install.join("commands/tidy.md"), "plugin command");
        write(
            &d.join("home/.claude/plugins/installed_plugins.json"),
            &serde_json::json!({"version": 2, "plugins": {"tools@market": [
                {"scope": "user", "installPath": install.to_string_lossy()}
            ]}})
            .to_string(),
        );
        let r = roots(d);
        assert_eq!(find("tools:sweep", &r)[0].text, "plugin skill");
        assert_eq!(find("tools:tidy", &r)[0].text, "plugin command");
        assert!(find("other:sweep", &r).is_empty());
    }

    #[test]
    fn names_that_leave_their_folder_are_no_files() {
        let dir = tempfile::tempdir().unwrap();
        let r = roots(dir.path());
        for name in ["", "/", "..", "a:..:b", "a/b", "x\ny", "a::b"] {
            assert!(candidates(name, &r).is_empty(), "{name:?}");
        }
    }

    #[test]
    fn long_files_and_fifos_are_read_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let long = "x".repeat(usize::try_from(MAX_FILE_BYTES).unwrap() + 10);
        write(&d.join("p/.claude/commands/long.md"), &long);
        let found = find("long", &roots(d));
        assert!(found[0].cut);
        assert_eq!(found[0].text.len() as u64, MAX_FILE_BYTES);
        let fifo = d.join("p/.claude/commands/pipe.md");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        assert!(find("pipe", &roots(d)).is_empty());
    }
}
