//! What nagger answers to a PreToolUse call.

use serde::Serialize;

/// What PreToolUse answers. There is deliberately no "allow": that would approve the
/// call past the user's own permission settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// Let the call run; show `reason` as additionalContext.
    Context,
    /// permissionDecision "ask".
    Ask,
    /// permissionDecision "deny".
    Deny,
}
