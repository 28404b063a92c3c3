//! Where nagger keeps things: the project root, the database and the config.

use std::path::{Path, PathBuf};

/// The environment a command resolves paths from (read once, passed down, so
/// tests can pin it).
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// `$CLAUDE_PROJECT_DIR`.
    pub project_dir: Option<PathBuf>,
    /// `$NAGGER_DB` or `--db`.
    pub db_override: Option<PathBuf>,
    /// The process's working directory.
    pub cwd: PathBuf,
}

impl Env {
    pub fn from_process(db_flag: Option<PathBuf>) -> Env {
        let non_empty = |v: std::ffi::OsString| (!v.is_empty()).then(|| PathBuf::from(v));
        Env {
            project_dir: std::env::var_os("CLAUDE_PROJECT_DIR").and_then(non_empty),
            db_override: db_flag.or_else(|| std::env::var_os("NAGGER_DB").and_then(non_empty)),
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        }
    }

    /// `$CLAUDE_PROJECT_DIR`, else the input's cwd, else the process's.
    pub fn project_root(&self, input_cwd: Option<&str>) -> PathBuf {
        if let Some(dir) = &self.project_dir {
            return dir.clone();
        }
        match input_cwd {
            Some(cwd) if Path::new(cwd).is_absolute() => PathBuf::from(cwd),
            Some(cwd) => self.cwd.join(cwd),
            None => self.cwd.clone(),
        }
    }

    pub fn db_path(&self, project_root: &Path) -> PathBuf {
        self.db_override
            .clone()
            .unwrap_or_else(|| state_dir(project_root).join("state.db"))
    }
}

pub fn state_dir(project_root: &Path) -> PathBuf {
    project_root.join(".claude-nagger")
}

pub fn config_path(project_root: &Path) -> PathBuf {
    state_dir(project_root).join("config.toml")
}

/// Makes an id from the input safe as one file-name component: anything outside
/// `[A-Za-z0-9._-]` becomes `_`, no leading dot, at most 96 characters.
pub fn sanitize_component(id: &str) -> String {
    let mut out: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(96)
        .collect();
    while out.starts_with('.') {
        out.replace_range(..1, "_");
    }
    if out.is_empty() {
        out.push('_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_dir_wins_over_input_cwd() {
        let env = Env {
            project_dir: Some("/p".into()),
            db_override: None,
            cwd: "/w".into(),
        };
        assert_eq!(env.project_root(Some("/c")), PathBuf::from("/p"));
        assert_eq!(
            env.db_path(Path::new("/p")),
            PathBuf::from("/p/.claude-nagger/state.db")
        );
        let env = Env {
            project_dir: None,
            ..env
        };
        assert_eq!(env.project_root(Some("/c")), PathBuf::from("/c"));
        assert_eq!(env.project_root(None), PathBuf::from("/w"));
    }

    #[test]
    fn sanitized_ids_cannot_escape_a_folder() {
        assert_eq!(sanitize_component("../../etc/x"), "_._.._etc_x");
        assert_eq!(sanitize_component(".."), "_.");
        assert_eq!(sanitize_component(""), "_");
        assert_eq!(sanitize_component("a/b\\c\0d"), "a_b_c_d");
        assert!(!sanitize_component(&"x".repeat(500)).contains('/'));
    }
}
