//! Rules: the config's file, command and tool rules plus the built-in shell guard, checked
//! against one PreToolUse call. Pure: no I/O and no session state. The caller drops the
//! matches already shown this session, then `combine`s the rest into one decision.
//!
//! Runs on every tool call, so nothing is built up front: a glob or regex is compiled the
//! first time a call could match it, after a literal prefilter has ruled most out.

pub mod after_edit;
mod checks;
mod code;
mod command;
mod file;
mod git;
mod glob;
mod guard;
mod mode;
mod programs;
mod protect;
pub mod recovery;
mod secrets;
pub mod shell;
mod spec;
mod targets;
mod tool;

use std::path::Path;

use serde::Serialize;

pub use file::relative_path;
pub use glob::GlobError;
use glob::LazyGlobs;
pub(crate) use glob::build_glob;
pub use mode::PermissionMode;
pub use secrets::DEFAULT_SECRETS;
pub use spec::{
    AfterEditRule, CommandRule, EditSeverity, FileRule, GuardConfig, PatternRule, RecoveryRule,
    RulesConfig, Severity, ToolRule,
};

/// A problem in the rules config, naming the table, rule and key it is in.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RuleError {
    #[error("{table}: rule #{index} has an empty name")]
    EmptyName { table: &'static str, index: usize },
    #[error("{table} \"{name}\": duplicate rule name")]
    DuplicateName { table: &'static str, name: String },
    #[error(
        "{}: {key} `{pattern}` is not a valid glob: {source}",
        location(table, rule)
    )]
    BadGlob {
        table: &'static str,
        rule: String,
        key: String,
        pattern: String,
        #[source]
        source: Box<GlobError>,
    },
    #[error(
        "{}: {key} `{pattern}` is not a valid regex: {source}",
        location(table, rule)
    )]
    BadRegex {
        table: &'static str,
        rule: String,
        key: String,
        pattern: String,
        #[source]
        source: Box<regex::Error>,
    },
}

fn location(table: &str, rule: &str) -> String {
    if rule.is_empty() {
        table.to_owned()
    } else {
        format!("{table} \"{rule}\"")
    }
}

/// The call under review: PreToolUse's `tool_name` and `tool_input`.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    pub tool_name: &'a str,
    pub tool_input: &'a serde_json::Value,
}

/// Who is calling and from where.
#[derive(Debug, Clone, Copy)]
pub struct MatchContext<'a> {
    pub project_root: &'a Path,
    /// The main agent rather than a subagent.
    pub is_leader: bool,
    pub role: Option<&'a str>,
    pub agent_type: Option<&'a str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleKind {
    File,
    Command,
    Tool,
    Guard,
    Recovery,
    #[serde(rename = "after_edit")]
    AfterEdit,
}

impl RuleKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::File => "file",
            RuleKind::Command => "command",
            RuleKind::Tool => "tool",
            RuleKind::Guard => "guard",
            RuleKind::Recovery => "recovery",
            RuleKind::AfterEdit => "after_edit",
        }
    }
}

/// One rule that fires for a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleMatch {
    pub kind: RuleKind,
    /// The rule's configured name; `guard:<check>` for the guard.
    pub name: String,
    pub severity: Severity,
    /// What the agent is told.
    pub message: String,
    /// Why it fired, for `nagger check` and logs.
    pub why: String,
    pub token_threshold: Option<u64>,
}

impl RuleMatch {
    /// Whether this match is answered on every call rather than once per session: deny
    /// rules and every guard check (a guard "ask" is about this very command, so it is
    /// asked again each time the command comes back).
    pub fn every_time(&self) -> bool {
        self.severity == Severity::Deny || self.kind == RuleKind::Guard
    }
}

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

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub decision: Decision,
    /// One `[nagger] `-prefixed line per counted match, most severe first.
    pub reason: String,
}

/// Fold matches into one verdict: the most severe decision wins, every message is kept.
/// `dontAsk` lets block/ask/warn through as context (deny stays deny);
/// `bypassPermissions` counts only deny rules and the guard.
pub fn combine(matches: &[RuleMatch], mode: PermissionMode) -> Option<Verdict> {
    let mut counted: Vec<(Decision, &RuleMatch)> = matches
        .iter()
        .filter_map(|m| {
            let decision = match (&mode, m.severity) {
                (_, Severity::Deny) => Decision::Deny,
                (PermissionMode::BypassPermissions, _) => return None,
                (PermissionMode::DontAsk, _) => Decision::Context,
                (_, Severity::Block) => Decision::Deny,
                (_, Severity::Ask) => Decision::Ask,
                (_, Severity::Warn) => Decision::Context,
            };
            Some((decision, m))
        })
        .collect();
    counted.sort_by_key(|(_, m)| std::cmp::Reverse(m.severity));
    let decision = counted.iter().map(|(d, _)| *d).max()?;
    let lines: Vec<String> = counted
        .iter()
        .map(|(_, m)| {
            if m.message.trim().is_empty() {
                format!(
                    "[nagger] {} rule \"{}\": {}",
                    m.kind.as_str(),
                    m.name,
                    m.why
                )
            } else {
                format!("[nagger] {}", m.message.trim())
            }
        })
        .collect();
    Some(Verdict {
        decision,
        reason: lines.join("\n"),
    })
}

/// Compiled rules and guard, ready to evaluate calls. Borrows the config it came from.
pub struct RuleSet<'a> {
    file: Vec<file::FileMatcher<'a>>,
    command: Vec<command::CommandMatcher<'a>>,
    tool: Vec<tool::ToolMatcher<'a>>,
    guard: guard::Guard<'a>,
}

impl<'a> RuleSet<'a> {
    /// Cheap: checks names, copies nothing. Globs and regexes are built when first
    /// needed; a bad one never matches and shows up in [`RuleSet::problems`]. Use
    /// [`RulesConfig::validate`] to check every pattern up front.
    pub fn compile(
        rules: &'a RulesConfig,
        guard: &'a GuardConfig,
    ) -> Result<RuleSet<'a>, RuleError> {
        let mut problems = Vec::new();
        spec::check_names(
            "rules.file",
            rules.file.iter().map(|r| r.name.as_str()),
            &mut problems,
        );
        spec::check_names(
            "rules.command",
            rules.command.iter().map(|r| r.name.as_str()),
            &mut problems,
        );
        spec::check_names(
            "rules.tool",
            rules.tool.iter().map(|r| r.name.as_str()),
            &mut problems,
        );
        if let Some(first) = problems.into_iter().next() {
            return Err(first);
        }
        Ok(RuleSet {
            file: rules.file.iter().map(file::FileMatcher::new).collect(),
            command: rules
                .command
                .iter()
                .map(command::CommandMatcher::new)
                .collect(),
            tool: rules.tool.iter().map(tool::ToolMatcher::new).collect(),
            guard: guard::Guard::new(guard),
        })
    }

    /// Every rule and guard check that fires for this call, in config order, guard last.
    pub fn evaluate(&self, call: &ToolCall, ctx: &MatchContext) -> Vec<RuleMatch> {
        let mut matches = Vec::new();
        let mut guard_matches = Vec::new();
        if !self.file.is_empty() {
            let paths = file::call_paths(call.tool_input, ctx.project_root);
            if !paths.is_empty() {
                for rule in &self.file {
                    if in_scope(&rule.rule.scope, ctx)
                        && let Some(m) = rule.check(&paths)
                    {
                        matches.push(m);
                    }
                }
            }
        }
        if let Some(line) = self.shell_line(call) {
            self.with_commands(line, |commands| {
                for rule in &self.command {
                    if in_scope(&rule.rule.scope, ctx)
                        && let Some(m) = rule.check(commands)
                    {
                        matches.push(m);
                    }
                }
                guard_matches = self.guard.check(commands);
            });
        } else {
            guard_matches =
                self.guard
                    .check_tool(call.tool_name, call.tool_input, ctx.project_root);
        }
        for rule in &self.tool {
            if in_scope(&rule.rule.scope, ctx)
                && let Some(m) = rule.check(call)
            {
                matches.push(m);
            }
        }
        matches.extend(guard_matches);
        matches
    }

    /// The command line of a call to one of the guard's shell tools.
    fn shell_line<'c>(&self, call: &ToolCall<'c>) -> Option<&'c str> {
        if !self.guard.is_shell_tool(call.tool_name)
            || (self.command.is_empty() && !self.guard.is_enabled())
        {
            return None;
        }
        call.tool_input.get("command").and_then(|c| c.as_str())
    }

    /// Tokenise a command line and hand its simple commands, with their spellings, to `f`.
    fn with_commands<R>(&self, line: &str, f: impl FnOnce(&command::Commands) -> R) -> R {
        let parsed = shell::parse(line);
        let variants: Vec<Vec<String>> = parsed.commands.iter().map(|c| c.variants()).collect();
        let haystack = variants
            .iter()
            .map(|spellings| spellings.join("\n"))
            .collect::<Vec<_>>()
            .join("\n");
        f(&command::Commands {
            parsed: &parsed,
            variants: &variants,
            haystack: &haystack,
        })
    }

    /// What a reader of `nagger check` should know beyond the matches: the guard is off,
    /// the tool is not one the guard reads commands of, an `allow` entry exempted a
    /// command or path.
    pub fn notes(&self, call: &ToolCall, project_root: &Path) -> Vec<String> {
        if !self.guard.is_enabled() {
            return vec![
                "the guard is off (`[guard] enabled = false`): no built-in check, secret, \
                 self-protection or `[guard] deny` pattern was applied"
                    .into(),
            ];
        }
        let mut notes = Vec::new();
        if let Some(line) = self.shell_line(call) {
            self.with_commands(line, |commands| {
                for (command, pattern) in commands
                    .parsed
                    .commands
                    .iter()
                    .zip(self.guard.exemptions(commands))
                {
                    if let Some(pattern) = pattern {
                        notes.push(format!(
                            "`{}` is exempted from the guard by `[guard] allow` `{pattern}`",
                            command.display()
                        ));
                    }
                }
            });
        } else {
            if call
                .tool_input
                .get("command")
                .is_some_and(|c| c.is_string())
            {
                notes.push(format!(
                    "`{}` is not in `[guard] shell_tools`: its command is not read as a shell \
                     command line",
                    call.tool_name
                ));
            }
            if let Some(pattern) = self.guard.tool_exemption(call.tool_input, project_root) {
                notes.push(format!(
                    "this call's path is exempted from the guard by `[guard] allow` `{pattern}`"
                ));
            }
        }
        notes
    }

    /// Bad globs and regexes met so far while evaluating (they never match).
    pub fn problems(&self) -> Vec<RuleError> {
        let mut problems = Vec::new();
        for rule in &self.file {
            rule.problems("rules.file", &mut problems);
        }
        for rule in &self.command {
            rule.problems("rules.command", &mut problems);
        }
        for rule in &self.tool {
            rule.problems(&mut problems);
        }
        self.guard.problems(&mut problems);
        problems
    }
}

/// The decisions that need no state: the built-in guard (its denials and its asks) and the
/// config's `deny` rules that apply to everyone, from the config alone. Call it before
/// any database is opened, so that nothing that happens to the database (locked,
/// read-only, corrupt, missing) can switch the guard off; pass `GuardConfig::default()`
/// and `RulesConfig::default()` when the config cannot be read. Deny rules scoped to a
/// role need the caller's identity and are left to [`RuleSet::evaluate`]. Names that
/// clash in the config do not stop it: every rule is still checked.
pub fn decide_without_state(
    rules: &RulesConfig,
    guard: &GuardConfig,
    call: &ToolCall,
    project_root: &Path,
) -> Vec<RuleMatch> {
    let unscoped_deny = |r: &&PatternRule| r.severity == Severity::Deny && r.scope.is_empty();
    let set = RuleSet {
        file: rules
            .file
            .iter()
            .filter(unscoped_deny)
            .map(file::FileMatcher::new)
            .collect(),
        command: rules
            .command
            .iter()
            .filter(unscoped_deny)
            .map(command::CommandMatcher::new)
            .collect(),
        tool: rules
            .tool
            .iter()
            .filter(|r| r.severity == Severity::Deny && r.scope.is_empty())
            .map(tool::ToolMatcher::new)
            .collect(),
        guard: guard::Guard::new(guard),
    };
    let ctx = MatchContext {
        project_root,
        is_leader: false,
        role: None,
        agent_type: None,
    };
    set.evaluate(call, &ctx)
}

/// `[]` is everyone; `"leader"` the main agent; anything else a role or agent type.
fn in_scope(scope: &[String], ctx: &MatchContext) -> bool {
    scope.is_empty()
        || scope.iter().any(|entry| {
            if entry == "leader" {
                ctx.is_leader
            } else {
                ctx.role == Some(entry.as_str()) || ctx.agent_type == Some(entry.as_str())
            }
        })
}

#[cfg(test)]
mod tests;
