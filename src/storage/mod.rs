//! Storage: the project's SQLite database ([`store`]) and Claude Code's own files
//! ([`transcript`], [`agent_files`]), read bounded and opened without blocking.

pub mod agent_files;
pub mod store;
pub mod transcript;
