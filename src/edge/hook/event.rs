//! Domain events: the wire input reduced to what nagger acts on, every protocol value
//! typed once here. Events nagger has no use for become `Event::Other`, not errors.

use super::wire::HookInput;
use crate::base::event::HookEvent;
use crate::base::mode::PermissionMode;
use serde_json::Value;

/// An event name on the wire: one nagger handles, or any other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventName {
    Handled(HookEvent),
    Other(String),
}

impl EventName {
    /// The event `name` names; spelled another way (`pretooluse`, `Pre_Tool_Use`, with
    /// white space or characters of no width), the event it can only mean.
    pub fn parse(name: &str) -> EventName {
        HookEvent::parse(name)
            .or_else(|| {
                let bare: String = name.chars().filter(char::is_ascii_alphanumeric).collect();
                HookEvent::ALL
                    .into_iter()
                    .find(|e| e.as_str().eq_ignore_ascii_case(&bare))
            })
            .map_or_else(|| EventName::Other(name.to_string()), EventName::Handled)
    }

    pub fn as_str(&self) -> &str {
        match self {
            EventName::Handled(e) => e.as_str(),
            EventName::Other(name) => name,
        }
    }
}

/// Why a session started (SessionStart `source`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionSource {
    Startup,
    Resume,
    Clear,
    /// After a compaction: what the agent was told is gone from its context.
    Compact,
    Other(String),
}

impl SessionSource {
    pub fn parse(source: &str) -> SessionSource {
        match source {
            "startup" => SessionSource::Startup,
            "resume" => SessionSource::Resume,
            "clear" => SessionSource::Clear,
            "compact" => SessionSource::Compact,
            other => SessionSource::Other(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            SessionSource::Startup => "startup",
            SessionSource::Resume => "resume",
            SessionSource::Clear => "clear",
            SessionSource::Compact => "compact",
            SessionSource::Other(other) => other,
        }
    }
}

/// Fields every event may carry.
#[derive(Debug, Clone)]
pub struct Common {
    pub session_id: String,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    /// Claude Code's permission mode; `default` when the input names none.
    pub permission_mode: PermissionMode,
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

impl ToolCall {
    /// The call as identification reads it.
    pub fn parts(&self) -> crate::domain::identify::Call<'_> {
        crate::domain::identify::Call {
            tool_name: &self.tool_name,
            tool_input: &self.tool_input,
            tool_use_id: self.tool_use_id.as_deref(),
            tool_response: self.tool_response.as_ref(),
        }
    }
}

/// SubagentStop.
#[derive(Debug, Clone)]
pub struct SubagentStop {
    pub agent_id: String,
    /// None for Claude Code's own helpers (2.1.328's compaction stops without one).
    pub agent_type: Option<String>,
    pub agent_transcript_path: Option<String>,
    pub stop_hook_active: bool,
    pub last_assistant_message: Option<String>,
}

/// PostToolUseFailure: a tool call that failed.
#[derive(Debug, Clone)]
pub struct ToolFailure {
    pub call: ToolCall,
    pub error: String,
    pub is_interrupt: bool,
}

/// UserPromptExpansion: a typed slash command or MCP prompt before it expands.
#[derive(Debug, Clone)]
pub struct Expansion {
    /// `slash_command` or `mcp_prompt`.
    pub expansion_type: Option<String>,
    pub command_name: String,
    pub command_args: Option<String>,
    pub command_source: Option<String>,
}

/// PreSkillShellCommand: one shell line of a skill or command, before it runs.
#[derive(Debug, Clone)]
pub struct SkillShell {
    /// `tool_name` (Bash or PowerShell) and `tool_input.command`, arguments filled in.
    pub call: ToolCall,
    pub command_name: Option<String>,
    pub command_source: Option<String>,
    /// user, claude or other.
    pub invoked_by: Option<String>,
}

#[derive(Debug, Clone)]
pub enum Event {
    SessionStart {
        /// None when the input names no source.
        source: Option<SessionSource>,
    },
    SessionEnd {
        reason: Option<String>,
    },
    SubagentStart {
        agent_id: String,
        agent_type: String,
    },
    SubagentStop(SubagentStop),
    PreToolUse(ToolCall),
    PostToolUse(ToolCall),
    PostToolUseFailure(ToolFailure),
    PreCompact {
        trigger: Option<String>,
    },
    UserPromptSubmit {
        prompt: String,
    },
    UserPromptExpansion(Expansion),
    PreSkillShellCommand(SkillShell),
    /// Any other event, by name: a no-op that is still logged.
    Other(String),
}

impl Event {
    /// The event, when nagger handles it.
    pub fn kind(&self) -> Option<HookEvent> {
        Some(match self {
            Event::SessionStart { .. } => HookEvent::SessionStart,
            Event::SessionEnd { .. } => HookEvent::SessionEnd,
            Event::SubagentStart { .. } => HookEvent::SubagentStart,
            Event::SubagentStop(_) => HookEvent::SubagentStop,
            Event::PreToolUse(_) => HookEvent::PreToolUse,
            Event::PostToolUse(_) => HookEvent::PostToolUse,
            Event::PostToolUseFailure(_) => HookEvent::PostToolUseFailure,
            Event::PreCompact { .. } => HookEvent::PreCompact,
            Event::UserPromptSubmit { .. } => HookEvent::UserPromptSubmit,
            Event::UserPromptExpansion(_) => HookEvent::UserPromptExpansion,
            Event::PreSkillShellCommand(_) => HookEvent::PreSkillShellCommand,
            Event::Other(_) => return None,
        })
    }

    /// The hook_event_name as Claude Code spells it.
    pub fn name(&self) -> &str {
        match self {
            Event::Other(name) => name,
            known => known.kind().map_or("", HookEvent::as_str),
        }
    }

    /// The hook_log hook_name: which part of nagger handled the event.
    pub fn handler(&self) -> &'static str {
        self.kind().map_or("other", HookEvent::handler)
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

fn non_empty_ref(s: &mut Option<String>) -> Option<String> {
    non_empty(s.take())
}

/// The event of an input. Its session is read apart ([`common`]): a tool call without
/// one is still checked by the guard. What the event holds is moved out of the input,
/// never copied (a tool input can be megabytes).
pub fn event(input: &mut HookInput) -> Result<Event, InputError> {
    let name = non_empty_ref(&mut input.hook_event_name).ok_or(InputError::NoEventName)?;
    let kind = match EventName::parse(&name) {
        EventName::Handled(kind) => kind,
        EventName::Other(name) => return Ok(Event::Other(name)),
    };
    let missing = |field| InputError::Missing {
        event: kind.as_str(),
        field,
    };
    // The ids stay in the input for `common`; only a handful of bytes are copied.
    let agent_id = || non_empty(input.agent_id.clone()).ok_or(missing("agent_id"));
    let agent_type = non_empty(input.agent_type.clone());
    Ok(match kind {
        HookEvent::SessionStart => Event::SessionStart {
            source: non_empty_ref(&mut input.source).map(|s| SessionSource::parse(&s)),
        },
        HookEvent::SessionEnd => Event::SessionEnd {
            reason: non_empty_ref(&mut input.reason),
        },
        HookEvent::SubagentStart => Event::SubagentStart {
            agent_id: agent_id()?,
            agent_type: agent_type.ok_or(missing("agent_type"))?,
        },
        HookEvent::SubagentStop => Event::SubagentStop(SubagentStop {
            agent_id: agent_id()?,
            agent_type,
            agent_transcript_path: non_empty_ref(&mut input.agent_transcript_path),
            stop_hook_active: input.stop_hook_active.unwrap_or(false),
            last_assistant_message: input.last_assistant_message.take(),
        }),
        HookEvent::PreToolUse => Event::PreToolUse(tool_call(input, missing)?),
        HookEvent::PostToolUse => Event::PostToolUse(tool_call(input, missing)?),
        HookEvent::PostToolUseFailure => Event::PostToolUseFailure(ToolFailure {
            call: tool_call(input, missing)?,
            error: input.error.take().unwrap_or_default(),
            is_interrupt: input.is_interrupt.unwrap_or(false),
        }),
        HookEvent::PreCompact => Event::PreCompact {
            trigger: non_empty_ref(&mut input.trigger),
        },
        HookEvent::UserPromptSubmit => Event::UserPromptSubmit {
            prompt: input.prompt.take().unwrap_or_default(),
        },
        HookEvent::UserPromptExpansion => Event::UserPromptExpansion(Expansion {
            expansion_type: non_empty_ref(&mut input.expansion_type),
            command_name: non_empty_ref(&mut input.command_name)
                .ok_or_else(|| missing("command_name"))?,
            command_args: input.command_args.take(),
            command_source: non_empty_ref(&mut input.command_source),
        }),
        HookEvent::PreSkillShellCommand => Event::PreSkillShellCommand(SkillShell {
            // A line is a shell command whatever the input says of its tool.
            call: ToolCall {
                tool_name: non_empty_ref(&mut input.tool_name).unwrap_or_else(|| "Bash".into()),
                tool_input: input.tool_input.take().unwrap_or(Value::Null),
                tool_use_id: input.tool_use_id.take(),
                tool_response: None,
            },
            command_name: non_empty_ref(&mut input.command_name),
            command_source: non_empty_ref(&mut input.command_source),
            invoked_by: non_empty_ref(&mut input.invoked_by),
        }),
    })
}

fn tool_call(
    input: &mut HookInput,
    missing: impl Fn(&'static str) -> InputError,
) -> Result<ToolCall, InputError> {
    Ok(ToolCall {
        tool_name: non_empty_ref(&mut input.tool_name).ok_or_else(|| missing("tool_name"))?,
        tool_input: input.tool_input.take().unwrap_or(Value::Null),
        tool_use_id: input.tool_use_id.take(),
        tool_response: input.tool_response.take(),
    })
}

/// The fields every event carries, with the permission mode already read
/// ([`permission_mode`]); an input without a session cannot be recorded.
pub fn common(
    input: HookInput,
    event: &Event,
    permission_mode: PermissionMode,
) -> Result<Common, InputError> {
    let session_id = non_empty(input.session_id).ok_or(InputError::Missing {
        event: event.kind().map_or("hook", HookEvent::as_str),
        field: "session_id",
    })?;
    Ok(Common {
        session_id,
        transcript_path: non_empty(input.transcript_path),
        cwd: non_empty(input.cwd),
        permission_mode,
        agent_id: non_empty(input.agent_id),
        agent_type: non_empty(input.agent_type),
    })
}

/// The permission mode an input names; `default` when it names none.
pub fn permission_mode(input: &HookInput) -> PermissionMode {
    input
        .permission_mode
        .as_deref()
        .filter(|m| !m.trim().is_empty())
        .map_or(PermissionMode::Default, PermissionMode::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handled_events_are_one_list() {
        for event in HookEvent::ALL {
            assert_eq!(HookEvent::parse(event.as_str()), Some(event));
            assert_eq!(EventName::parse(event.as_str()), EventName::Handled(event));
        }
        assert_eq!(HookEvent::NAMES.len(), HookEvent::ALL.len());
        assert_eq!(HookEvent::NAMES[4], "PreToolUse");
        assert_eq!(
            EventName::parse("TeammateIdle"),
            EventName::Other("TeammateIdle".into())
        );
    }

    fn input(json: &str) -> HookInput {
        super::super::input::parse(json).unwrap().input
    }

    #[test]
    fn missing_fields_are_named_not_filled_in() {
        let mut start =
            input(r#"{"hook_event_name":"SubagentStart","session_id":"s","agent_id":"a"}"#);
        assert_eq!(
            event(&mut start).unwrap_err(),
            InputError::Missing {
                event: "SubagentStart",
                field: "agent_type"
            }
        );
        let mut call = input(r#"{"hook_event_name":"PreToolUse","tool_name":"Bash"}"#);
        let parsed = event(&mut call).unwrap();
        assert!(matches!(parsed, Event::PreToolUse(_)));
        assert_eq!(
            common(call, &parsed, PermissionMode::Default).unwrap_err(),
            InputError::Missing {
                event: "PreToolUse",
                field: "session_id"
            }
        );
    }

    #[test]
    fn protocol_values_are_typed_once() {
        let mut start = input(
            r#"{"hook_event_name":"SessionStart","session_id":"s","source":"compact","permission_mode":"dontAsk"}"#,
        );
        let parsed = event(&mut start).unwrap();
        assert!(matches!(
            parsed,
            Event::SessionStart {
                source: Some(SessionSource::Compact)
            }
        ));
        assert_eq!(
            {
                let mode = permission_mode(&start);
                common(start, &parsed, mode)
            }
            .unwrap()
            .permission_mode,
            PermissionMode::DontAsk
        );
        assert_eq!(SessionSource::parse("later").as_str(), "later");
        let mut other = input(r#"{"hook_event_name":"Notification","session_id":"s"}"#);
        let parsed = event(&mut other).unwrap();
        assert_eq!(parsed.name(), "Notification");
        assert_eq!(parsed.handler(), "other");
    }
}
