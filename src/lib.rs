//! nagger: the hook handler Claude Code runs on every hook event, and the
//! project's multi-agent state in one SQLite database.

pub mod agent_files;
pub mod cli;
pub mod cmd;
pub mod compress;
pub mod config;
pub mod context;
pub mod demo;
pub mod hook;
pub mod install;
pub mod paths;
pub mod roles;
pub mod rules;
pub mod store;
pub mod text;
pub mod transcript;
pub mod ui;
