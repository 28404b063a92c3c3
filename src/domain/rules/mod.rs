//! Rules: the config's file, command and tool rules plus the built-in shell guard, checked
//! against one PreToolUse call; recovery hints after a failed call and after-edit checks
//! after an edit. Pure: no I/O and no session state. The caller drops the matches already
//! shown this session, then `combine`s the rest into one decision.
//!
//! Each kind of rule lives in its own file behind the `Kind` trait of `kind.rs`, listed
//! once in `KINDS`; [`RuleSet`] and [`RulesConfig::validate`] go through that list.
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
mod kind;
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

pub use crate::base::decision::Decision;
pub use crate::base::mode::PermissionMode;
pub use crate::base::rule_kind::RuleKind;

pub use file::relative_path;
pub use glob::GlobError;
use glob::LazyGlobs;
pub(crate) use glob::build_glob;
use kind::{Call, KINDS, Kind, PreToolUse, Selection};
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

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub decision: Decision,
    /// One `[nagger] `-prefixed line per counted match, most severe first.
    pub reason: String,
}

/// Fold matches into one verdict: the most severe decision wins, every message is kept.
/// [`PermissionMode::DontAsk`] lets block/ask/warn through as context (deny stays deny);
/// [`PermissionMode::BypassPermissions`] counts only deny rules and the guard.
pub fn combine(matches: &[RuleMatch], mode: &PermissionMode) -> Option<Verdict> {
    let mut counted: Vec<(Decision, &RuleMatch)> = matches
        .iter()
        .filter_map(|m| {
            let decision = match (mode, m.severity) {
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
    /// The rules of each kind that checks PreToolUse calls, in [`KINDS`] order.
    kinds: Vec<Box<dyn PreToolUse + 'a>>,
    shell_tools: &'a [String],
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
        let set = RuleSet::select(rules, guard, Selection::All, |kind| {
            kind.check_names(rules, &mut problems);
        });
        match problems.into_iter().next() {
            Some(first) => Err(first),
            None => Ok(set),
        }
    }

    /// The PreToolUse rules of every kind that `selection` keeps, each kind handed to
    /// `each` first.
    fn select(
        rules: &'a RulesConfig,
        guard: &'a GuardConfig,
        selection: Selection,
        mut each: impl FnMut(&dyn Kind),
    ) -> RuleSet<'a> {
        let kinds = KINDS
            .iter()
            .filter_map(|kind| {
                let checks = kind.pre_tool_use(rules, guard, selection)?;
                each(*kind);
                Some(checks)
            })
            .collect();
        RuleSet {
            kinds,
            shell_tools: &guard.shell_tools,
        }
    }

    /// Every rule and guard check that fires for this call, in config order, guard last.
    pub fn evaluate(&self, call: &ToolCall, ctx: &MatchContext) -> Vec<RuleMatch> {
        let call = Call::new(call, *ctx, self.shell_tools);
        let mut matches = Vec::new();
        for kind in &self.kinds {
            kind.check(&call, &mut matches);
        }
        matches
    }

    /// What a reader of `nagger check` should know beyond the matches: the guard is off,
    /// the tool is not one the guard reads commands of, an `allow` entry exempted a
    /// command or path.
    pub fn notes(&self, call: &ToolCall, project_root: &Path) -> Vec<String> {
        let ctx = MatchContext {
            project_root,
            is_leader: false,
            role: None,
            agent_type: None,
        };
        let call = Call::new(call, ctx, self.shell_tools);
        let mut notes = Vec::new();
        for kind in &self.kinds {
            kind.notes(&call, &mut notes);
        }
        notes
    }

    /// Bad globs and regexes met so far while evaluating (they never match).
    pub fn problems(&self) -> Vec<RuleError> {
        let mut problems = Vec::new();
        for kind in &self.kinds {
            kind.problems(&mut problems);
        }
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
    let set = RuleSet::select(rules, guard, Selection::UnscopedDeny, |_| {});
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
