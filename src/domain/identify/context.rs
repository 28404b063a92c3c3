//! What identification works with: [`IdentifyCtx`], the run's database, role table,
//! session and the input's agent fields, with a place for warnings; and [`Call`], the
//! parts of a tool call it reads.

use crate::domain::config::RoleResolution;
use crate::storage::store::NaggerStateDB;
use serde_json::Value;
use std::cell::RefCell;

/// The run identification takes part in.
pub struct IdentifyCtx<'a> {
    pub db: &'a NaggerStateDB,
    /// How agent types and tags map to roles.
    pub role_resolution: &'a RoleResolution,
    pub session_id: &'a str,
    /// The main agent's transcript.
    pub transcript_path: Option<&'a str>,
    /// The caller, when the input names it (Claude Code 2.1.69 and later).
    pub agent_id: Option<&'a str>,
    pub agent_type: Option<&'a str>,
    /// Problems worth one stderr line that do not stop the run.
    pub warnings: &'a RefCell<Vec<String>>,
}

impl IdentifyCtx<'_> {
    /// A problem worth one stderr line that does not stop the run.
    pub fn warn(&self, message: impl Into<String>) {
        self.warnings.borrow_mut().push(message.into());
    }
}

/// The parts of a tool call identification reads.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub tool_name: &'a str,
    pub tool_input: &'a Value,
    pub tool_use_id: Option<&'a str>,
    pub tool_response: Option<&'a Value>,
}
