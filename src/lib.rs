//! nagger: the hook handler Claude Code runs on every hook event, and the
//! project's multi-agent state in one SQLite database.
//!
//! Four floors, each importing only from the floors below it (and never in a circle
//! within one): see `docs/ARCHITECTURE.md`.
//! - [`base`]: the shared vocabulary every other floor speaks (protocol enums, text,
//!   paths, terminal output).
//! - [`storage`]: the project's database and Claude Code's own files, read bounded.
//! - [`domain`]: what nagger knows how to do: the guard, the user's rules, conventions
//!   and shared context, compression, roles, identification, settings.
//! - [`edge`]: where the world comes in: the hook's wire, the command line, the
//!   dashboard, installing, the demo.

pub mod base;
pub mod domain;
pub mod edge;
pub mod storage;
