//! The hook events nagger handles, named as Claude Code names them, and the Claude Code
//! versions that send them.

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
    /// The user's prompt, before the model sees it (a typed `/name` command included).
    UserPromptSubmit,
    /// A typed slash command or MCP prompt, before it expands (Claude Code 2.1.328+).
    UserPromptExpansion,
    /// A skill's or command's `` !`…` `` shell line, before it runs (Claude Code 2.1.332+).
    PreSkillShellCommand,
}

/// A Claude Code version, `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClientVersion(pub u32, pub u32, pub u32);

impl ClientVersion {
    /// The version at the start of `text` (`2.1.332`, `2.1.332 (Claude Code)`), or in the
    /// dashed form Claude Code puts in its hooks' `AI_AGENT` variable
    /// (`claude-code_2-1-332_harness`).
    pub fn parse(text: &str) -> Option<ClientVersion> {
        let text = text.trim();
        let (digits, sep) = match text.strip_prefix("claude-code_") {
            Some(rest) => (rest.split('_').next()?, '-'),
            None => (text.split_whitespace().next()?, '.'),
        };
        let mut parts = digits.split(sep).map(|p| p.parse::<u32>().ok());
        let version = ClientVersion(parts.next()??, parts.next()??, parts.next()??);
        parts.next().is_none().then_some(version)
    }
}

impl fmt::Display for ClientVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

impl HookEvent {
    /// Every handled event, in the order `install` writes them.
    pub const ALL: [HookEvent; 11] = [
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::SubagentStart,
        HookEvent::SubagentStop,
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
        HookEvent::PreCompact,
        HookEvent::UserPromptSubmit,
        HookEvent::UserPromptExpansion,
        HookEvent::PreSkillShellCommand,
    ];

    /// The names of [`HookEvent::ALL`], for settings files.
    pub const NAMES: [&'static str; 11] = {
        let mut names = [""; 11];
        let mut i = 0;
        while i < names.len() {
            names[i] = HookEvent::ALL[i].as_str();
            i += 1;
        }
        names
    };

    /// How many events every Claude Code nagger runs with knows.
    pub const EVERY_CLIENT_COUNT: usize = {
        let mut n = 0;
        let mut i = 0;
        while i < HookEvent::ALL.len() {
            if HookEvent::ALL[i].since().is_none() {
                n += 1;
            }
            i += 1;
        }
        n
    };

    /// The names of the events every Claude Code nagger runs with knows, in the order of
    /// [`HookEvent::ALL`]: what a settings file shared by clients of any version may name.
    pub const EVERY_CLIENT: [&'static str; HookEvent::EVERY_CLIENT_COUNT] = {
        let mut names = [""; HookEvent::EVERY_CLIENT_COUNT];
        let (mut i, mut n) = (0, 0);
        while i < HookEvent::ALL.len() {
            if HookEvent::ALL[i].since().is_none() {
                names[n] = HookEvent::ALL[i].as_str();
                n += 1;
            }
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
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::UserPromptExpansion => "UserPromptExpansion",
            HookEvent::PreSkillShellCommand => "PreSkillShellCommand",
        }
    }

    pub fn parse(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// The oldest Claude Code that knows the event, when not every version nagger runs
    /// with does. Claude Code 2.1.68 ignores every hook of a settings file that names an
    /// event it does not know, so these are registered only for a client that knows them.
    pub const fn since(self) -> Option<ClientVersion> {
        match self {
            HookEvent::UserPromptExpansion => Some(ClientVersion(2, 1, 328)),
            HookEvent::PreSkillShellCommand => Some(ClientVersion(2, 1, 332)),
            _ => None,
        }
    }

    /// Whether a client of `version` knows the event (an unknown version knows only the
    /// events every version knows).
    pub fn known_by(self, version: Option<ClientVersion>) -> bool {
        match (self.since(), version) {
            (None, _) => true,
            (Some(since), Some(version)) => version >= since,
            (Some(_), None) => false,
        }
    }

    /// The hook_log hook_name of an event: which part of nagger handles it.
    pub const fn handler(self) -> &'static str {
        match self {
            HookEvent::SessionStart | HookEvent::SessionEnd | HookEvent::PreCompact => "session",
            HookEvent::SubagentStart | HookEvent::SubagentStop => "subagent",
            HookEvent::PreToolUse => "pre_tool_use",
            HookEvent::PostToolUse => "post_tool_use",
            HookEvent::PostToolUseFailure => "post_tool_use_failure",
            HookEvent::UserPromptSubmit | HookEvent::UserPromptExpansion => "prompt",
            HookEvent::PreSkillShellCommand => "skill_shell",
        }
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_read_from_the_cli_and_from_ai_agent() {
        assert_eq!(
            ClientVersion::parse("2.1.332 (Claude Code)"),
            Some(ClientVersion(2, 1, 332))
        );
        assert_eq!(
            ClientVersion::parse("claude-code_2-1-328_harness"),
            Some(ClientVersion(2, 1, 328))
        );
        assert_eq!(ClientVersion::parse("2.1"), None);
        assert_eq!(ClientVersion::parse("2.1.3.4"), None);
        assert_eq!(ClientVersion::parse("claude-code_x_harness"), None);
        assert!(ClientVersion(2, 1, 68) < ClientVersion(2, 1, 328));
    }

    #[test]
    fn newer_events_are_known_only_by_newer_clients() {
        let old = Some(ClientVersion(2, 1, 68));
        let mid = Some(ClientVersion(2, 1, 331));
        let new = Some(ClientVersion(2, 1, 332));
        assert!(HookEvent::UserPromptSubmit.known_by(None));
        assert!(!HookEvent::UserPromptExpansion.known_by(old));
        assert!(HookEvent::UserPromptExpansion.known_by(mid));
        assert!(!HookEvent::PreSkillShellCommand.known_by(mid));
        assert!(HookEvent::PreSkillShellCommand.known_by(new));
        assert!(!HookEvent::PreSkillShellCommand.known_by(None));
    }
}
