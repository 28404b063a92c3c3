//! The guard's settings: the `[guard]` table of `.claude-nagger/config.toml` as it is
//! written. Every key is optional and unknown keys are refused.

use serde::Deserialize;

use super::problem::PatternProblem;
use super::secrets::DEFAULT_SECRETS;
use crate::base::glob::build_glob;

/// The `[guard]` table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GuardConfig {
    /// Off turns the whole guard off, built-in checks and `deny` alike.
    pub enabled: bool,
    /// Globs on normalised simple commands that the guard never denies.
    pub allow: Vec<String>,
    /// Extra globs on normalised simple commands that the guard denies.
    pub deny: Vec<String>,
    /// Globs on paths an agent must not read (Read, Grep, or a shell command such as
    /// `cat`); `~/` is any home, a glob not starting with `/` matches in any folder, `!`
    /// exempts.
    /// Empty turns the secrets check off.
    pub secrets: Vec<String>,
    /// Tools whose `command` input is a shell command line to check.
    pub shell_tools: Vec<String>,
    /// The path of the nagger program running as the hook, protected like the nagger
    /// program on PATH. Not a config key: set by the program that runs the guard.
    #[serde(skip)]
    pub binary: Option<String>,
}

impl Default for GuardConfig {
    fn default() -> Self {
        GuardConfig {
            enabled: true,
            allow: Vec::new(),
            deny: Vec::new(),
            secrets: DEFAULT_SECRETS.iter().map(|s| (*s).to_owned()).collect(),
            shell_tools: vec!["Bash".to_owned()],
            binary: None,
        }
    }
}

impl GuardConfig {
    /// Every bad glob in `allow`, `deny` and `secrets`, each as the caller's error type.
    pub fn validate<E: From<PatternProblem>>(&self) -> Vec<E> {
        let mut problems = Vec::new();
        for (key, list) in [
            ("allow", &self.allow),
            ("deny", &self.deny),
            ("secrets", &self.secrets),
        ] {
            for (i, pattern) in list.iter().enumerate() {
                let pattern = if key == "secrets" {
                    pattern.strip_prefix('!').unwrap_or(pattern)
                } else {
                    pattern.as_str()
                };
                if let Err(source) = build_glob(pattern, key == "secrets") {
                    problems.push(E::from(PatternProblem {
                        key: format!("{key}[{i}]"),
                        pattern: pattern.to_owned(),
                        source,
                    }));
                }
            }
        }
        problems
    }
}
