//! Settings files on disk: read as Claude Code settings, backed up before a change,
//! written atomically (a symlinked file stays a symlink).

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::error::{InstallError, io_error};

/// A settings file as read: its exact bytes (for the backup) and its value.
pub(super) struct Settings {
    pub(super) bytes: Vec<u8>,
    pub(super) value: Value,
}

/// `None` when the file does not exist. A file of only whitespace counts as `{}`.
pub(super) fn read_settings(path: &Path) -> Result<Option<Settings>, InstallError> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(io_error("read", path)(error)),
    };
    let value = if bytes.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Map::new())
    } else {
        serde_json::from_slice(&bytes).map_err(|error| InstallError::InvalidJson {
            path: path.to_path_buf(),
            line: error.line(),
            column: error.column(),
            // serde_json's message repeats the position, which the variant already carries.
            message: error
                .to_string()
                .trim_end_matches(&format!(
                    " at line {} column {}",
                    error.line(),
                    error.column()
                ))
                .to_string(),
        })?
    };
    Ok(Some(Settings { bytes, value }))
}

pub(super) fn to_pretty_json(value: &Value) -> Vec<u8> {
    let mut text = serde_json::to_string_pretty(value).expect("a JSON value always serialises");
    text.push('\n');
    text.into_bytes()
}

/// The file to write when `path` is a symlink (settings kept in a dotfiles repository), so the
/// link survives the rename.
pub(super) fn write_target(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// Copies `bytes` to `<backup_dir>/<file>.<YYYYmmddHHMMSS>`, never over an existing file.
pub(super) fn back_up(
    backup_dir: &Path,
    path: &Path,
    bytes: &[u8],
) -> Result<PathBuf, InstallError> {
    let stamp = chrono::Local::now().format("%Y%m%d%H%M%S");
    let name = path.file_name().map_or_else(
        || "settings.json".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    fs::create_dir_all(backup_dir).map_err(io_error("create directory", backup_dir))?;
    for attempt in 1u32.. {
        let suffix = if attempt == 1 {
            String::new()
        } else {
            format!("-{attempt}")
        };
        let backup = backup_dir.join(format!("{name}.{stamp}{suffix}"));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&backup)
        {
            Ok(mut file) => {
                file.write_all(bytes)
                    .and_then(|()| file.sync_all())
                    .map_err(io_error("write backup", &backup))?;
                return Ok(backup);
            }
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(io_error("create backup", &backup)(error)),
        }
    }
    unreachable!("the backup suffixes are unbounded")
}

/// Writes through a temporary file in the same directory and a rename, so a reader sees the
/// old file or the new one, never half of one. With `replace` false an existing file wins and
/// the result is `false`.
pub(super) fn write_atomically(
    path: &Path,
    contents: &[u8],
    replace: bool,
) -> Result<bool, InstallError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir).map_err(io_error("create directory", dir))?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".nagger-").suffix(".tmp");
    // A replaced file keeps its mode; a new one gets the usual 0644, not tempfile's 0600.
    match fs::metadata(path) {
        Ok(meta) => {
            builder.permissions(meta.permissions());
        }
        Err(_) => set_new_file_permissions(&mut builder),
    }
    let mut temp = builder
        .tempfile_in(dir)
        .map_err(io_error("create a temporary file in", dir))?;
    temp.write_all(contents)
        .and_then(|()| temp.as_file().sync_all())
        .map_err(io_error("write", temp.path()))?;
    let persisted = if replace {
        temp.persist(path).map(drop)
    } else {
        temp.persist_noclobber(path).map(drop)
    };
    match persisted {
        Ok(()) => Ok(true),
        Err(e) if !replace && e.error.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(io_error("write", path)(e.error)),
    }
}

#[cfg(unix)]
fn set_new_file_permissions(builder: &mut tempfile::Builder) {
    use std::os::unix::fs::PermissionsExt as _;
    builder.permissions(fs::Permissions::from_mode(0o644));
}

#[cfg(not(unix))]
fn set_new_file_permissions(_builder: &mut tempfile::Builder) {}

pub(super) fn exists(path: &Path) -> Result<bool, InstallError> {
    path.try_exists().map_err(io_error("inspect", path))
}
