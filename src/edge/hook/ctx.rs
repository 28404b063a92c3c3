//! What every handler works with: [`Ctx`] (the run's database, config, project and
//! input) and [`Outcome`] (its answer and what to record about it).

use super::event::Common;
use super::wire::HookOutput;
use crate::base::mode::PermissionMode;
use crate::domain::config::Config;
use crate::domain::rules::GuardReview;
use crate::storage::store::NaggerStateDB;
use serde_json::{Map, Value};
use std::path::Path;

/// Everything a handler may use.
pub struct Ctx<'a> {
    pub db: &'a NaggerStateDB,
    pub config: &'a Config,
    pub config_present: bool,
    pub project_root: &'a Path,
    pub common: &'a Common,
    /// The guard's answer to the run's tool call, once worked out (before the database).
    pub reviewed: &'a GuardReview,
    pub(super) warnings: std::cell::RefCell<Vec<String>>,
}

impl Ctx<'_> {
    /// A problem worth one stderr line that does not stop the hook.
    pub fn warn(&self, message: impl Into<String>) {
        self.warnings.borrow_mut().push(message.into());
    }

    pub fn permission_mode(&self) -> &PermissionMode {
        &self.common.permission_mode
    }

    /// What identification reads of this run; its warnings join the run's.
    pub fn identify(&self) -> crate::domain::identify::IdentifyCtx<'_> {
        crate::domain::identify::IdentifyCtx {
            db: self.db,
            role_resolution: &self.config.role_resolution,
            session_id: &self.common.session_id,
            transcript_path: self.common.transcript_path.as_deref(),
            agent_id: self.common.agent_id.as_deref(),
            agent_type: self.common.agent_type.as_deref(),
            warnings: &self.warnings,
        }
    }
}

/// A handler's answer, with what to record about it.
#[derive(Debug)]
pub struct Outcome {
    pub output: HookOutput,
    pub details: Map<String, Value>,
    /// The agent the event was attributed to, for hook_log.
    pub agent_id: Option<String>,
    /// The result hook_log records when it is not the output's own word: `block` for a
    /// call refused by block rules alone, which Claude Code is told as a deny.
    pub result: Option<&'static str>,
}

impl Outcome {
    pub fn silent() -> Outcome {
        Outcome {
            output: HookOutput::Silent,
            details: Map::new(),
            agent_id: None,
            result: None,
        }
    }

    pub fn with(output: HookOutput) -> Outcome {
        Outcome {
            output,
            ..Outcome::silent()
        }
    }

    #[must_use]
    pub fn detail(mut self, key: &str, value: impl Into<Value>) -> Outcome {
        self.details.insert(key.to_string(), value.into());
        self
    }
}
