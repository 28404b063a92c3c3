//! The skill-file route: where Claude Code sends no event for a skill's shell lines (the
//! Skill tool's PreToolUse, a typed `/name` prompt), nagger reads the skill's or
//! command's file and judges its `` !`…` `` lines itself, before the skill loads.
//!
//! A client that sends `PreSkillShellCommand` (Claude Code 2.1.332 and later) asks about
//! each line itself, with its arguments filled in; there this route only refuses what the
//! guard denies, and leaves what it would ask about to that event, so that the user is
//! not asked twice about one line (the event turns an ask into a refusal that names the
//! line, since a skill cannot wait for an answer).

use super::ctx::Ctx;
use super::event::ToolCall;
use super::wire::HookOutput;
use crate::base::event::{ClientVersion, HookEvent};
use crate::base::mode::PermissionMode;
use crate::domain::config::Config;
use crate::domain::rules::RuleMatch;
use crate::domain::skills::{self, Invocation, Roots, SkillCheck};
use crate::storage::store::NewRuleHit;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The tool Claude Code's model loads skills and commands with.
pub const SKILL_TOOL: &str = "Skill";
/// The tool older clients (2.0 and before) run a slash command with.
pub const SLASH_COMMAND_TOOL: &str = "SlashCommand";

/// Where one run looks for skills, and the session's id for `${CLAUDE_SESSION_ID}`.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    pub project_root: &'a Path,
    pub cwd: Option<&'a str>,
    pub session_id: Option<&'a str>,
}

impl Place<'_> {
    fn roots(&self) -> Roots {
        Roots {
            project_root: self.project_root.to_path_buf(),
            cwd: self.cwd.map(PathBuf::from),
            user_dir: Roots::user_dir_from_env(),
        }
    }
}

/// The version of the Claude Code running this hook, when it says (2.1.328 and later put
/// it in `AI_AGENT`, e.g. `claude-code_2-1-332_harness`; 2.1.68 does not).
pub fn client_version() -> Option<ClientVersion> {
    std::env::var("AI_AGENT")
        .ok()
        .and_then(|agent| ClientVersion::parse(&agent))
}

/// Whether the running client sends PreSkillShellCommand for each shell line.
pub fn client_checks_lines() -> bool {
    HookEvent::PreSkillShellCommand.known_by(client_version())
}

/// The name and arguments of a typed `/name args` prompt.
pub fn typed_command(prompt: &str) -> Option<(&str, &str)> {
    let rest = prompt.trim_start().strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let fine = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'));
    fine.then(|| (name, args.trim()))
}

/// What the file route says about one skill call.
#[derive(Debug, Default)]
pub struct FileAnswer {
    pub check: SkillCheck,
    /// Reasons to refuse.
    pub deny: Vec<String>,
    /// Reasons to ask (none on a client that asks at PreSkillShellCommand itself).
    pub ask: Vec<String>,
    /// Lines left to PreSkillShellCommand.
    pub left_to_client: usize,
    pub name: String,
}

impl FileAnswer {
    fn new(name: &str, check: SkillCheck, client_checks_lines: bool) -> FileAnswer {
        let deny = check.deny.clone();
        let (ask, left_to_client) = if client_checks_lines {
            (Vec::new(), check.ask.len())
        } else {
            (check.ask.clone(), 0)
        };
        FileAnswer {
            check,
            deny,
            ask,
            left_to_client,
            name: name.trim_start_matches('/').to_string(),
        }
    }

    /// What hook_log records of it.
    pub fn details(&self) -> Value {
        let shown: Vec<String> = self
            .check
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        let mut details = serde_json::json!({
            "name": self.name,
            "files": shown,
            "lines": self.check.lines,
            "refused": self.deny.len(),
            "asked": self.ask.len(),
        });
        if self.left_to_client > 0 {
            details["left_to_PreSkillShellCommand"] = self.left_to_client.into();
        }
        details
    }

    /// Records the guard checks and rules that fired, as a tool call's are.
    pub fn record(&self, ctx: &Ctx<'_>) -> anyhow::Result<()> {
        record_hits(ctx, &self.check.fired)
    }
}

/// Records fired checks in rule_hits for the session.
pub fn record_hits(ctx: &Ctx<'_>, fired: &[RuleMatch]) -> anyhow::Result<()> {
    let hits = ctx.db.rule_hits();
    for m in fired {
        hits.record(&NewRuleHit {
            session_id: &ctx.common.session_id,
            agent_id: ctx.common.agent_id.as_deref(),
            rule_name: &m.name,
            rule_kind: m.kind.as_str(),
            severity: m.severity.as_str(),
            tokens: 0,
            reason: Some(&m.why),
        })?;
    }
    Ok(())
}

/// The file route for a call of the Skill tool (`tool_input.skill`, `tool_input.args`);
/// None for any other tool, or a Skill call without a name.
pub fn for_tool(
    config: &Config,
    mode: &PermissionMode,
    call: &ToolCall,
    place: Place<'_>,
) -> Option<FileAnswer> {
    let (name, args) = match call.tool_name.as_str() {
        SKILL_TOOL => {
            let name = call.tool_input.get("skill")?.as_str()?;
            // No `args` is no arguments; arguments of another type are not known.
            let args = match call.tool_input.get("args") {
                None | Some(Value::Null) => Some(""),
                Some(Value::String(s)) => Some(s.as_str()),
                Some(_) => None,
            };
            (name, args)
        }
        // Older clients' tool for the same: `{"command": "/name args"}`.
        SLASH_COMMAND_TOOL => {
            let line = call.tool_input.get("command")?.as_str()?;
            let (name, args) = typed_command(line)?;
            (name, Some(args))
        }
        // A subagent started by the Task (Agent) tool runs the hooks its file declares.
        "Task" | "Agent" => {
            let name = call.tool_input.get("subagent_type")?.as_str()?;
            let check = skills::check_agent(name, &place.roots(), config, mode);
            return Some(FileAnswer::new(name, check, false));
        }
        _ => return None,
    };
    let check = skills::check(
        &Invocation {
            name,
            arguments: args,
            session_id: place.session_id,
        },
        &place.roots(),
        config,
        mode,
    );
    Some(FileAnswer::new(name, check, client_checks_lines()))
}

/// The file route for a typed command (`/name args`, from UserPromptSubmit or
/// UserPromptExpansion): the answer is a refusal of the prompt, or nothing.
pub fn for_prompt(
    config: &Config,
    mode: &PermissionMode,
    name: &str,
    args: &str,
    place: Place<'_>,
    event: HookEvent,
) -> (FileAnswer, HookOutput) {
    let check = skills::check(
        &Invocation {
            name,
            arguments: Some(args),
            session_id: place.session_id,
        },
        &place.roots(),
        config,
        mode,
    );
    let client = client_version();
    let answer = FileAnswer::new(
        name,
        check,
        HookEvent::PreSkillShellCommand.known_by(client),
    );
    if answer.deny.is_empty() && answer.ask.is_empty() {
        return (answer, HookOutput::Silent);
    }
    let mut reason = answer.deny.clone();
    if !answer.ask.is_empty() {
        reason.extend(answer.ask.iter().cloned());
        reason.push(
            "[nagger] this Claude Code asks nothing before a typed command's shell lines run, \
             so nagger refuses what it would ask about; run those lines yourself if you trust them"
                .to_string(),
        );
    }
    // Claude Code before 2.1.328 (no version in AI_AGENT) runs the lines first.
    if event == HookEvent::UserPromptSubmit && client.is_none() {
        reason.push(format!(
            "[nagger] this Claude Code runs a typed command's shell lines before any hook sees \
             the prompt: they may have run already. The prompt is stopped so that nothing acts \
             on /{} (Claude Code 2.1.332 and later let nagger refuse the lines themselves).",
            answer.name
        ));
    }
    let reason = reason.join("\n\n");
    (answer, HookOutput::Block { reason })
}
