//! Why `install` or `uninstall` left a file unchanged.

use std::io;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(
        "{}: not valid JSON at line {line}, column {column} ({message}); the file was left unchanged",
        path.display()
    )]
    InvalidJson {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}{detail}; the file was left unchanged", path_prefix(path.as_deref()))]
    BadShape {
        /// `None` when raised by the pure [`merge_hooks`], which knows no file.
        path: Option<PathBuf>,
        detail: String,
    },
    #[error("cannot {action} {}: {error}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        error: io::Error,
    },
}

fn path_prefix(path: Option<&Path>) -> String {
    path.map(|p| format!("{}: ", p.display()))
        .unwrap_or_default()
}

impl InstallError {
    pub(super) fn in_file(self, file: &Path) -> Self {
        match self {
            InstallError::BadShape { path: None, detail } => InstallError::BadShape {
                path: Some(file.to_path_buf()),
                detail,
            },
            other => other,
        }
    }
}

pub(super) fn io_error(
    action: &'static str,
    path: &Path,
) -> impl FnOnce(io::Error) -> InstallError {
    let path = path.to_path_buf();
    move |error| InstallError::Io {
        action,
        path,
        error,
    }
}
