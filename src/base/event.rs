//! The hook events nagger handles, named as Claude Code names them.

use std::fmt;

/// The hook events nagger handles, as Claude Code names them. The one list of them:
/// `install` registers these, `dispatch` routes them, hook_log names their handlers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookEvent {
    SessionStart,
    SessionEnd,
    SubagentStart,
    SubagentStop,
    PreToolUse,
    PostToolUse,
    PostToolUseFailure,
    PreCompact,
}

impl HookEvent {
    /// Every handled event, in the order `install` writes them.
    pub const ALL: [HookEvent; 8] = [
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::SubagentStart,
        HookEvent::SubagentStop,
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
        HookEvent::PreCompact,
    ];

    /// The names of [`HookEvent::ALL`], for settings files.
    pub const NAMES: [&'static str; 8] = {
        let mut names = [""; 8];
        let mut i = 0;
        while i < names.len() {
            names[i] = HookEvent::ALL[i].as_str();
            i += 1;
        }
        names
    };

    /// The hook_event_name as Claude Code spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::SubagentStart => "SubagentStart",
            HookEvent::SubagentStop => "SubagentStop",
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PostToolUseFailure => "PostToolUseFailure",
            HookEvent::PreCompact => "PreCompact",
        }
    }

    pub fn parse(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// The hook_log hook_name of an event: which part of nagger handles it.
    pub const fn handler(self) -> &'static str {
        match self {
            HookEvent::SessionStart | HookEvent::SessionEnd | HookEvent::PreCompact => "session",
            HookEvent::SubagentStart | HookEvent::SubagentStop => "subagent",
            HookEvent::PreToolUse => "pre_tool_use",
            HookEvent::PostToolUse => "post_tool_use",
            HookEvent::PostToolUseFailure => "post_tool_use_failure",
        }
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
