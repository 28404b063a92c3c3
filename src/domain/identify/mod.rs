//! Identification: which agent made a tool call, the exact links from a spawn (the
//! Agent call) to the agent it started, and the spawn registry kept in step with the
//! parent transcript. Reads Claude Code's files bounded; writes only the database.

mod caller;
mod context;
pub mod spawns;

pub use caller::{Caller, Effort, Via, identify, make_exact, note_modern_payload};
pub use context::{Call, IdentifyCtx};
