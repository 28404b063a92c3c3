//! The guard: built-in checks for tool calls that destroy work or systems, read secrets or
//! change nagger's own files. Shell commands are checked on their tokenised simple commands
//! (never on raw text), so `echo 'rm -rf /'` is harmless and `sudo bash -c 'rm -fr ~'` is
//! not; file tools on the paths they name. Extended by `[guard] deny`, exempted by `allow`.
//! What it cannot analyse it asks about.
//!
//! A library of its own: it reads one call and its settings and answers with a
//! [`Verdict`], knowing nothing of user rules, config files, the database or the hook, so
//! nothing that happens to those can switch it off.

mod aliases;
mod checks;
mod code;
mod component;
mod component_shell;
mod finding;
mod foreign;
mod git;
mod git_alias;
mod git_later;
mod important;
mod line;
mod outside;
mod paths;
mod problem;
mod programs;
mod project;
mod protect;
mod rcfiles;
mod review;
mod scripts;
mod secrets;
mod sed_script;
mod settings;
mod shape;
pub mod shell;
mod sql;
mod targets;
mod unknown;
mod verdict;

pub use important::runs_a_file;
pub use paths::{normalize, relative_path};
pub use problem::PatternProblem;
pub use review::{Guard, ToolCall};
pub use secrets::DEFAULT_SECRETS;
pub use settings::GuardConfig;
pub use shell::{Commands, command_line};
pub use verdict::{Objection, Severity, Verdict};

#[cfg(test)]
mod tests;
