//! Hook input and output JSON exactly as Claude Code speaks it. Every field is
//! optional and unknown fields are ignored; only wrong types are errors.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The hook's stdin. One shape for every event.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct HookInput {
    pub session_id: Option<String>,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    pub hook_event_name: Option<String>,
    pub permission_mode: Option<String>,
    pub agent_id: Option<String>,
    pub agent_type: Option<String>,
    pub source: Option<String>,
    pub reason: Option<String>,
    pub trigger: Option<String>,
    pub compact_summary: Option<String>,
    pub tool_name: Option<String>,
    pub tool_input: Option<Value>,
    pub tool_use_id: Option<String>,
    pub tool_response: Option<Value>,
    pub agent_transcript_path: Option<String>,
    pub stop_hook_active: Option<bool>,
    pub last_assistant_message: Option<String>,
    pub prompt: Option<String>,
    /// PostToolUseFailure: the failure text.
    pub error: Option<String>,
    pub is_interrupt: Option<bool>,
}

/// PreToolUse permission decisions nagger makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PermissionDecision {
    Deny,
    Ask,
}

impl PermissionDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionDecision::Deny => "deny",
            PermissionDecision::Ask => "ask",
        }
    }
}

/// What a handler answers. Rendered to at most one JSON object on stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookOutput {
    /// Exit 0, no stdout: no opinion.
    Silent,
    PreToolUse {
        decision: Option<PermissionDecision>,
        reason: Option<String>,
        additional_context: Option<String>,
    },
    /// additionalContext for SessionStart, SubagentStart or UserPromptSubmit.
    Context { event: &'static str, text: String },
    /// SubagentStop/Stop: keep working, with the reason as feedback.
    Block { reason: String },
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SpecificOutput<'a> {
    hook_event_name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission_decision: Option<PermissionDecision>,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission_decision_reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    additional_context: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Envelope<'a> {
    hook_specific_output: SpecificOutput<'a>,
}

#[derive(Serialize)]
struct BlockOutput<'a> {
    decision: &'static str,
    reason: &'a str,
}

impl HookOutput {
    /// The stdout JSON, or None for no output.
    pub fn to_json(&self) -> Option<String> {
        let value = match self {
            HookOutput::Silent => return None,
            HookOutput::PreToolUse {
                decision,
                reason,
                additional_context,
            } => {
                if decision.is_none() && additional_context.is_none() {
                    return None;
                }
                serde_json::to_string(&Envelope {
                    hook_specific_output: SpecificOutput {
                        hook_event_name: "PreToolUse",
                        permission_decision: *decision,
                        permission_decision_reason: reason.as_deref(),
                        additional_context: additional_context.as_deref(),
                    },
                })
            }
            HookOutput::Context { event, text } => serde_json::to_string(&Envelope {
                hook_specific_output: SpecificOutput {
                    hook_event_name: event,
                    permission_decision: None,
                    permission_decision_reason: None,
                    additional_context: Some(text),
                },
            }),
            HookOutput::Block { reason } => serde_json::to_string(&BlockOutput {
                decision: "block",
                reason,
            }),
        };
        // Serialising these plain structs cannot fail; stay silent if it ever did.
        value.ok()
    }

    /// The outcome word recorded in hook_log.
    pub fn result(&self) -> &'static str {
        match self {
            HookOutput::Silent => "none",
            HookOutput::PreToolUse {
                decision: Some(d), ..
            } => d.as_str(),
            HookOutput::PreToolUse {
                additional_context: Some(_),
                ..
            } => "context",
            HookOutput::PreToolUse { .. } => "none",
            HookOutput::Context { .. } => "context",
            HookOutput::Block { .. } => "block",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deny_output_has_claude_code_shape() {
        let out = HookOutput::PreToolUse {
            decision: Some(PermissionDecision::Deny),
            reason: Some("[nagger] no".into()),
            additional_context: None,
        };
        let v: Value = serde_json::from_str(&out.to_json().unwrap()).unwrap();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(
            v["hookSpecificOutput"]["permissionDecisionReason"],
            "[nagger] no"
        );
        assert!(v["hookSpecificOutput"].get("additionalContext").is_none());
    }

    #[test]
    fn block_output_is_decision_block() {
        let out = HookOutput::Block { reason: "r".into() };
        assert_eq!(
            out.to_json().unwrap(),
            r#"{"decision":"block","reason":"r"}"#
        );
        assert_eq!(out.result(), "block");
    }

    #[test]
    fn empty_pre_tool_use_prints_nothing() {
        let out = HookOutput::PreToolUse {
            decision: None,
            reason: None,
            additional_context: None,
        };
        assert_eq!(out.to_json(), None);
    }

    #[test]
    fn unknown_fields_are_ignored_and_wrong_types_rejected() {
        let ok: HookInput =
            serde_json::from_str(r#"{"session_id":"s","new_field":[1,2]}"#).unwrap();
        assert_eq!(ok.session_id.as_deref(), Some("s"));
        assert!(serde_json::from_str::<HookInput>(r#"{"session_id":5}"#).is_err());
    }
}
