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
    /// `project`: the `--project` flag, which wins over `$CLAUDE_PROJECT_DIR`.
    pub fn from_process(db_flag: Option<PathBuf>, project: Option<PathBuf>) -> Env {
        let non_empty = |v: std::ffi::OsString| (!v.is_empty()).then(|| PathBuf::from(v));
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        // Whole and without `.` parts (`--project .` is the folder itself, not a name
        // every path in it would have to start with).
        let whole = |p: PathBuf| -> PathBuf {
            let p = if p.is_absolute() { p } else { cwd.join(p) };
            p.components().collect()
        };
        Env {
            project_dir: project
                .or_else(|| std::env::var_os("CLAUDE_PROJECT_DIR").and_then(non_empty))
                .map(whole),
            db_override: db_flag.or_else(|| std::env::var_os("NAGGER_DB").and_then(non_empty)),
            cwd,
        }
    }

    /// The project: `--project` or `$CLAUDE_PROJECT_DIR` when set; else found from the
    /// input's cwd (else the process's) by [`discover_project`].
    pub fn project_root(&self, input_cwd: Option<&str>) -> PathBuf {
        if let Some(dir) = &self.project_dir {
            return dir.clone();
        }
        let start = match input_cwd {
            Some(cwd) if Path::new(cwd).is_absolute() => PathBuf::from(cwd),
            Some(cwd) => self.cwd.join(cwd),
            None => self.cwd.clone(),
        };
        discover_project(&start, home_dir().as_deref())
    }

    pub fn db_path(&self, project_root: &Path) -> PathBuf {
        self.db_override
            .clone()
            .unwrap_or_else(|| state_dir(project_root).join("state.db"))
    }
}

/// `$HOME`, when set.
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// The project a folder belongs to: the nearest folder, from `start` up, holding
/// `.claude-nagger/` or `.claude/`; else the root of the git work tree `start` is in;
/// else `start` itself. The home folder's own `~/.claude` (Claude Code's user settings)
/// does not make home a project, though a `~/.claude-nagger/` does.
pub fn discover_project(start: &Path, home: Option<&Path>) -> PathBuf {
    let is_home = |dir: &Path| home.is_some_and(|h| same_dir(h, dir));
    let mut git_root = None;
    for dir in start.ancestors() {
        if dir.join(NAGGER_DIR_NAME).is_dir() || (dir.join(".claude").is_dir() && !is_home(dir)) {
            return dir.to_path_buf();
        }
        if git_root.is_none() && dir.join(".git").exists() {
            git_root = Some(dir.to_path_buf());
        }
    }
    git_root.unwrap_or_else(|| start.to_path_buf())
}

fn same_dir(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

/// Name of nagger's folder in a project.
pub const NAGGER_DIR_NAME: &str = ".claude-nagger";

pub fn state_dir(project_root: &Path) -> PathBuf {
    project_root.join(NAGGER_DIR_NAME)
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
    fn a_project_named_with_dots_is_the_folder_itself() {
        let env = Env::from_process(None, Some("/p/./q/.".into()));
        assert_eq!(env.project_dir, Some(PathBuf::from("/p/q")));
        let env = Env::from_process(None, Some(".".into()));
        assert_eq!(env.project_dir, Some(std::env::current_dir().unwrap()));
    }

    #[test]
    fn discovery_walks_up_to_the_nearest_marked_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let repo = home.join("repo");
        let deep = repo.join("src/a/b");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        // Nothing marks the repo: not home, whose .claude is the user's settings.
        assert_eq!(discover_project(&deep, Some(&home)), deep);
        std::fs::create_dir(repo.join(".git")).unwrap();
        assert_eq!(discover_project(&deep, Some(&home)), repo);
        std::fs::create_dir(repo.join("src/.claude")).unwrap();
        assert_eq!(discover_project(&deep, Some(&home)), repo.join("src"));
        std::fs::create_dir(repo.join("src/a/.claude-nagger")).unwrap();
        assert_eq!(discover_project(&deep, Some(&home)), repo.join("src/a"));
        // Without HOME known, home's .claude marks it like any folder.
        let elsewhere = home.join("x");
        std::fs::create_dir(&elsewhere).unwrap();
        assert_eq!(discover_project(&elsewhere, None), home);
        assert_eq!(discover_project(&elsewhere, Some(&home)), elsewhere);
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
