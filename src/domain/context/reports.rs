//! Report files under `.claude-nagger/context/`: where agents write them, how nagger
//! reads them back without following links out of the folder, and their clean-up.

use crate::base::paths::{self, sanitize_component};
use std::io::{self, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

/// `.claude-nagger/context`: the only folder nagger reads reports from or writes to.
pub fn context_root(project_root: &Path) -> PathBuf {
    paths::state_dir(project_root).join("context")
}

/// An id as one file-name component, one to one: an id that is already a safe
/// component stays as it is; any other is sanitised and marked with `~` (which no safe
/// component holds) and a short hash of the id, so `x/y` and `x_y` never meet.
pub fn file_component(id: &str) -> String {
    let safe = sanitize_component(id);
    if safe == id {
        return safe;
    }
    let digest = crate::storage::transcript::prompt_hash(id);
    format!("{safe}~{}", &digest[..8])
}

/// `.claude-nagger/context/<session>/`, the session id sanitised.
pub fn session_dir(project_root: &Path, session_id: &str) -> PathBuf {
    context_root(project_root).join(file_component(session_id))
}

/// `.claude-nagger/context/<session>/<type>-<agent_id>.md`, every id sanitised.
pub fn report_path(
    project_root: &Path,
    session_id: &str,
    agent_type: &str,
    agent_id: &str,
) -> PathBuf {
    session_dir(project_root, session_id).join(format!(
        "{}-{}.md",
        file_component(agent_type),
        file_component(agent_id)
    ))
}

/// The report path shown by `nagger context`, with the agent id left open.
pub fn report_path_placeholder(project_root: &Path, session_id: &str, agent_type: &str) -> String {
    session_dir(project_root, session_id)
        .join(format!("{}-<agent_id>.md", file_component(agent_type)))
        .display()
        .to_string()
}

/// Whether `path` lies inside the context folder, by its components: no `..`, no
/// root or prefix after the folder.
pub fn is_inside_context(project_root: &Path, path: &Path) -> bool {
    let root = context_root(project_root);
    path.strip_prefix(&root).is_ok_and(|rest| {
        rest.components().count() > 0
            && rest.components().all(|c| matches!(c, Component::Normal(_)))
    })
}

/// Whether `path` is a directory itself, not a symlink to one.
fn is_real_dir(path: &Path) -> io::Result<bool> {
    Ok(std::fs::symlink_metadata(path)?.is_dir())
}

/// The folder is a real directory inside the real context folder (no symlink
/// anywhere on the way out of `.claude-nagger/context`, nor in place of
/// `.claude-nagger` or its `context` folder).
fn real_dir_inside(project_root: &Path, dir: &Path) -> io::Result<bool> {
    let root = context_root(project_root);
    if !is_real_dir(&paths::state_dir(project_root))? || !is_real_dir(&root)? {
        return Ok(false);
    }
    let dir_meta = std::fs::symlink_metadata(dir)?;
    if !dir_meta.is_dir() {
        return Ok(false);
    }
    let real_root = std::fs::canonicalize(&root)?;
    let real_dir = std::fs::canonicalize(dir)?;
    Ok(real_dir.starts_with(&real_root) && real_dir != real_root)
}

/// Reads an agent's report, at most `max_bytes`: None when there is none, or when the
/// path, a symlink or the folder would lead outside `.claude-nagger/context/`.
pub fn read_report(project_root: &Path, path: &Path, max_bytes: u64) -> io::Result<Option<String>> {
    if !is_inside_context(project_root, path) {
        return Ok(None);
    }
    let Some(dir) = path.parent() else {
        return Ok(None);
    };
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    // A hard link to a file elsewhere would bring that file's contents in.
    if !meta.is_file() || meta.nlink() != 1 || !real_dir_inside(project_root, dir)? {
        return Ok(None);
    }
    let file = open_no_follow(path)?;
    // Still the file checked above, not one swapped in since.
    let opened = file.metadata()?;
    if !opened.is_file() || opened.ino() != meta.ino() || opened.dev() != meta.dev() {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    file.take(max_bytes).read_to_end(&mut bytes)?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Opens a file for reading without following a symlink in its place and without
/// blocking on a FIFO or a device.
fn open_no_follow(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    #[cfg(target_os = "linux")]
    const FLAGS: i32 = 0o400_000 | 0o4000; // O_NOFOLLOW | O_NONBLOCK
    #[cfg(not(target_os = "linux"))]
    const FLAGS: i32 = 0x0100 | 0x0004; // O_NOFOLLOW | O_NONBLOCK on the BSDs and macOS
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(FLAGS)
        .open(path)
}

/// Creates one folder (never its parents), refusing anything but a real directory in
/// its place.
fn make_real_dir(dir: &Path) -> io::Result<()> {
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            if is_real_dir(dir)? {
                Ok(())
            } else {
                Err(io::Error::other(format!(
                    "{} is not a folder: a symlink or a file in its place leads outside",
                    dir.display()
                )))
            }
        }
        Err(e) => Err(e),
    }
}

/// Creates `.claude-nagger/context/<session>/` (for the agents' reports) and
/// returns it, refusing one that leads outside through a symlink. Only
/// `.claude-nagger` and the folders inside it are created, one at a time: never the
/// project's folder or anything above it.
pub fn ensure_session_dir(project_root: &Path, session_id: &str) -> io::Result<PathBuf> {
    let dir = session_dir(project_root, session_id);
    if !is_inside_context(project_root, &dir) {
        return Err(io::Error::other(
            "session folder outside the context folder",
        ));
    }
    if !is_real_dir(project_root)? {
        return Err(io::Error::other(format!(
            "{} is not a folder",
            project_root.display()
        )));
    }
    make_real_dir(&paths::state_dir(project_root))?;
    make_real_dir(&context_root(project_root))?;
    make_real_dir(&dir)?;
    if !real_dir_inside(project_root, &dir)? {
        return Err(io::Error::other(format!(
            "{} leads outside the context folder",
            dir.display()
        )));
    }
    Ok(dir)
}

/// Writes `.claude-nagger/context/<session>/_summary.md` atomically (a symlink in
/// its place is replaced, never followed).
pub fn write_summary(project_root: &Path, session_id: &str, text: &str) -> io::Result<PathBuf> {
    let dir = ensure_session_dir(project_root, session_id)?;
    let path = dir.join("_summary.md");
    let mut tmp = tempfile::NamedTempFile::new_in(&dir)?;
    tmp.write_all(text.as_bytes())?;
    tmp.persist(&path).map_err(|e| e.error)?;
    Ok(path)
}

/// Removes session folders under `.claude-nagger/context/` untouched for `ttl`.
/// Symlinks are left alone. Returns how many were removed.
pub fn purge_report_dirs(project_root: &Path, ttl: std::time::Duration) -> io::Result<usize> {
    let root = context_root(project_root);
    let entries = match std::fs::read_dir(&root) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let now = std::time::SystemTime::now();
    let mut removed = 0;
    for entry in entries.flatten() {
        let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
            continue;
        };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > ttl);
        if meta.is_dir() && old && std::fs::remove_dir_all(entry.path()).is_ok() {
            removed += 1;
        }
    }
    Ok(removed)
}
