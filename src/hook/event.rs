//! Domain events: the wire input reduced to what nagger acts on. Events nagger
//! has no use for become `Event::Other`, not errors.

use super::wire::HookInput;
use serde_json::Value;

/// Fields every event may carry.
#[derive(Debug, Clone, Default)]
pub struct Common {
    pub session_id: String,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    pub permission_mode: Option<String>,
    /// Present inside a subagent since Claude Code 2.1.69.
    pub agent_id: Option<String>,
    pub agent_type: Option<String>,
}

#[derive(Debug, Clone)]
pub struct ToolCall {
    pub tool_name: String,
    pub tool_input: Value,
    pub tool_use_id: Option<String>,
    pub tool_response: Option<Value>,
}

#[derive(Debug, Clone)]
pub enum Event {
    SessionStart {
        source: String,
    },
    SessionEnd {
        reason: Option<String>,
    },
    SubagentStart {
        agent_id: String,
        agent_type: String,
    },
    SubagentStop {
        agent_id: String,
        agent_type: String,
        agent_transcript_path: Option<String>,
        stop_hook_active: bool,
        last_assistant_message: Option<String>,
    },
    PreToolUse(ToolCall),
    PostToolUse(ToolCall),
    /// A tool call that failed (Claude Code 2.1.328 and later; 2.1.68 sends nothing).
    PostToolUseFailure {
        call: ToolCall,
        error: String,
        is_interrupt: bool,
    },
    PreCompact {
        trigger: Option<String>,
    },
    /// Any other event, by name: a no-op that is still logged.
    Other(String),
}

impl Event {
    /// The hook_event_name as Claude Code spells it.
    pub fn name(&self) -> &str {
        match self {
            Event::SessionStart { .. } => "SessionStart",
            Event::SessionEnd { .. } => "SessionEnd",
            Event::SubagentStart { .. } => "SubagentStart",
            Event::SubagentStop { .. } => "SubagentStop",
            Event::PreToolUse(_) => "PreToolUse",
            Event::PostToolUse(_) => "PostToolUse",
            Event::PostToolUseFailure { .. } => "PostToolUseFailure",
            Event::PreCompact { .. } => "PreCompact",
            Event::Other(name) => name,
        }
    }
}

/// Why an input cannot be acted on (beyond JSON errors).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    #[error("input has no hook_event_name")]
    NoEventName,
    #[error("{event} input has no {field}")]
    Missing {
        event: &'static str,
        field: &'static str,
    },
}

fn non_empty(s: Option<String>) -> Option<String> {
    s.filter(|s| !s.trim().is_empty())
}

pub fn from_wire(input: HookInput) -> Result<(Common, Event), InputError> {
    let name = non_empty(input.hook_event_name).ok_or(InputError::NoEventName)?;
    let common = Common {
        session_id: non_empty(input.session_id).unwrap_or_else(|| "unknown".to_string()),
        transcript_path: non_empty(input.transcript_path),
        cwd: non_empty(input.cwd),
        permission_mode: non_empty(input.permission_mode),
        agent_id: non_empty(input.agent_id),
        agent_type: non_empty(input.agent_type),
    };
    let tool = |event: &'static str, name: Option<String>| -> Result<ToolCall, InputError> {
        Ok(ToolCall {
            tool_name: non_empty(name).ok_or(InputError::Missing {
                event,
                field: "tool_name",
            })?,
            tool_input: input.tool_input.clone().unwrap_or(Value::Null),
            tool_use_id: input.tool_use_id.clone(),
            tool_response: input.tool_response.clone(),
        })
    };
    let agent_id = |event: &'static str| {
        common.agent_id.clone().ok_or(InputError::Missing {
            event,
            field: "agent_id",
        })
    };
    let agent_type = || {
        common
            .agent_type
            .clone()
            .unwrap_or_else(|| "unknown".to_string())
    };
    let event = match name.as_str() {
        "SessionStart" => Event::SessionStart {
            source: non_empty(input.source).unwrap_or_else(|| "startup".to_string()),
        },
        "SessionEnd" => Event::SessionEnd {
            reason: non_empty(input.reason),
        },
        "SubagentStart" => Event::SubagentStart {
            agent_id: agent_id("SubagentStart")?,
            agent_type: agent_type(),
        },
        "SubagentStop" => Event::SubagentStop {
            agent_id: agent_id("SubagentStop")?,
            agent_type: agent_type(),
            agent_transcript_path: non_empty(input.agent_transcript_path),
            stop_hook_active: input.stop_hook_active.unwrap_or(false),
            last_assistant_message: input.last_assistant_message,
        },
        "PreToolUse" => Event::PreToolUse(tool("PreToolUse", input.tool_name.clone())?),
        "PostToolUse" => Event::PostToolUse(tool("PostToolUse", input.tool_name.clone())?),
        "PostToolUseFailure" => Event::PostToolUseFailure {
            call: tool("PostToolUseFailure", input.tool_name.clone())?,
            error: input.error.clone().unwrap_or_default(),
            is_interrupt: input.is_interrupt.unwrap_or(false),
        },
        "PreCompact" => Event::PreCompact {
            trigger: non_empty(input.trigger),
        },
        _ => Event::Other(name),
    };
    Ok((common, event))
}
