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

use std::borrow::Cow;
use std::path::Path;
use std::sync::OnceLock;

use globset::{Glob, GlobBuilder, GlobMatcher};
use serde::Serialize;

pub use file::relative_path;
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

/// Why a glob cannot be used.
#[derive(Debug, Clone, thiserror::Error)]
pub enum GlobError {
    #[error(transparent)]
    Syntax(#[from] globset::Error),
    /// Braces nested so deep that compiling the glob would fail inside the glob
    /// library (a panic) or overflow the stack: refused as a config error instead.
    #[error("{0}")]
    TooDeep(String),
}

/// Every glob nagger compiles, the hook's and `doctor`'s alike, goes through here.
pub(crate) fn build_glob(pattern: &str, literal_separator: bool) -> Result<Glob, GlobError> {
    if let Some(problem) = crate::compress::glob_nesting_problem(pattern) {
        return Err(GlobError::TooDeep(problem));
    }
    Ok(GlobBuilder::new(pattern)
        .literal_separator(literal_separator)
        .backslash_escape(true)
        .build()?)
}

/// A glob compiled on demand, or why it could not be.
type GlobCell = OnceLock<Result<GlobMatcher, GlobError>>;

/// A rule's list of globs, each compiled the first time a candidate passes its literal
/// prefilter. Nothing is allocated until then.
struct LazyGlobs<'a> {
    patterns: Cow<'a, [String]>,
    literal_separator: bool,
    built: OnceLock<Box<[GlobCell]>>,
}

impl<'a> LazyGlobs<'a> {
    fn new(patterns: impl Into<Cow<'a, [String]>>, literal_separator: bool) -> LazyGlobs<'a> {
        LazyGlobs {
            patterns: patterns.into(),
            literal_separator,
            built: OnceLock::new(),
        }
    }

    /// Whether any glob could match some line of `haystack` (every candidate joined by
    /// newlines): a cheap test that rules a whole list out.
    fn could_match(&self, haystack: &str) -> bool {
        self.patterns.iter().any(|p| literals_present(p, haystack))
    }

    /// The first glob matching any of `candidates`.
    fn first_match(&self, candidates: &[String]) -> Option<&str> {
        self.first_index(candidates)
            .map(|i| self.patterns[i].as_str())
    }

    /// The index of the first glob matching any of `candidates`.
    fn first_index(&self, candidates: &[String]) -> Option<usize> {
        (0..self.patterns.len()).find(|&i| candidates.iter().any(|c| self.is_match(i, c)))
    }

    fn any_match(&self, candidates: &[String]) -> bool {
        self.first_match(candidates).is_some()
    }

    fn is_match(&self, index: usize, candidate: &str) -> bool {
        let pattern = &self.patterns[index];
        if !literals_present(pattern, candidate) {
            return false;
        }
        let cells = self
            .built
            .get_or_init(|| self.patterns.iter().map(|_| OnceLock::new()).collect());
        cells[index]
            .get_or_init(|| {
                build_glob(pattern, self.literal_separator).map(|g| g.compile_matcher())
            })
            .as_ref()
            .is_ok_and(|m| m.is_match(candidate))
    }

    /// Bad globs met so far, as config errors.
    fn problems(&self, table: &'static str, rule: &str, key: &str, problems: &mut Vec<RuleError>) {
        let Some(cells) = self.built.get() else {
            return;
        };
        for (i, cell) in cells.iter().enumerate() {
            if let Some(Err(source)) = cell.get() {
                problems.push(RuleError::BadGlob {
                    table,
                    rule: rule.to_owned(),
                    key: format!("{key}[{i}]"),
                    pattern: self.patterns[i].clone(),
                    source: Box::new(source.clone()),
                });
            }
        }
    }
}

/// Whether every literal run of a glob occurs in `candidate`. A glob only matches text
/// that contains its literal characters, so `false` means "cannot match" and spares
/// building it. Runs end at `/` (`**/` may match nothing); alternations are skipped;
/// after a character class nothing more is checked.
fn literals_present(pattern: &str, candidate: &str) -> bool {
    let bytes = pattern.as_bytes();
    let present = |from: usize, to: usize| from >= to || candidate.contains(&pattern[from..to]);
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        let next = match bytes[i] {
            b'*' | b'?' | b'/' => i + 1,
            b'\\' => i + 1 + pattern[i + 1..].chars().next().map_or(0, char::len_utf8),
            b'[' => return present(run, i),
            b'{' => match alternation_end(bytes, i) {
                Some(end) => end,
                None => return present(run, i),
            },
            _ => {
                i += 1;
                continue;
            }
        };
        if !present(run, i) {
            return false;
        }
        i = next;
        run = i;
    }
    present(run, bytes.len())
}

/// Index after the `}` closing the `{` at `open`; `None` when unclosed or when a class
/// inside makes it uncertain.
fn alternation_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'[' => return None,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(kind: RuleKind, name: &str, severity: Severity, message: &str) -> RuleMatch {
        RuleMatch {
            kind,
            name: name.into(),
            severity,
            message: message.into(),
            why: format!("{name} fired"),
            token_threshold: None,
        }
    }

    #[test]
    fn combine_most_severe_wins_and_messages_join() {
        let matches = [
            hit(
                RuleKind::File,
                "views",
                Severity::Warn,
                "Views follow docs/views.md.",
            ),
            hit(
                RuleKind::Command,
                "push",
                Severity::Ask,
                "Pushing needs a green CI.",
            ),
        ];
        let verdict = combine(&matches, PermissionMode::Default).expect("a verdict");
        assert_eq!(verdict.decision, Decision::Ask);
        assert_eq!(
            verdict.reason,
            "[nagger] Pushing needs a green CI.\n[nagger] Views follow docs/views.md."
        );
        let block = [hit(RuleKind::Tool, "t", Severity::Block, "b")];
        assert_eq!(
            combine(&block, PermissionMode::Plan).map(|v| v.decision),
            Some(Decision::Deny)
        );
        let warn = [hit(RuleKind::Tool, "t", Severity::Warn, "w")];
        assert_eq!(
            combine(&warn, PermissionMode::AcceptEdits).map(|v| v.decision),
            Some(Decision::Context)
        );
        assert_eq!(combine(&[], PermissionMode::Default), None);
    }

    #[test]
    fn combine_dont_ask_turns_block_and_ask_into_context_but_keeps_deny() {
        let soft = [
            hit(RuleKind::File, "f", Severity::Block, "b"),
            hit(RuleKind::Command, "c", Severity::Ask, "a"),
        ];
        let verdict = combine(&soft, PermissionMode::DontAsk).expect("a verdict");
        assert_eq!(verdict.decision, Decision::Context);
        assert_eq!(verdict.reason, "[nagger] b\n[nagger] a");
        let hard = [
            hit(RuleKind::File, "f", Severity::Block, "b"),
            hit(RuleKind::Guard, "guard:rm-rf", Severity::Deny, "no"),
        ];
        let verdict = combine(&hard, PermissionMode::DontAsk).expect("a verdict");
        assert_eq!(verdict.decision, Decision::Deny);
        assert_eq!(verdict.reason, "[nagger] no\n[nagger] b");
    }

    #[test]
    fn combine_bypass_permissions_counts_only_deny_rules_and_guard() {
        let nagging = [
            hit(RuleKind::File, "f", Severity::Block, "b"),
            hit(RuleKind::Command, "c", Severity::Ask, "a"),
            hit(RuleKind::Tool, "t", Severity::Warn, "w"),
        ];
        assert_eq!(combine(&nagging, PermissionMode::BypassPermissions), None);
        let mut with_deny = nagging.to_vec();
        with_deny.push(hit(
            RuleKind::Guard,
            "guard:git-reset-hard",
            Severity::Deny,
            "g",
        ));
        with_deny.push(hit(RuleKind::File, "secrets", Severity::Deny, "s"));
        let verdict = combine(&with_deny, PermissionMode::BypassPermissions).expect("a verdict");
        assert_eq!(verdict.decision, Decision::Deny);
        assert_eq!(verdict.reason, "[nagger] g\n[nagger] s");
    }

    #[test]
    fn combine_explains_a_rule_without_message() {
        let verdict = combine(
            &[hit(RuleKind::File, "v", Severity::Warn, " ")],
            PermissionMode::Other("yolo".into()),
        )
        .expect("a verdict");
        assert_eq!(verdict.reason, "[nagger] file rule \"v\": v fired");
    }

    #[test]
    fn compile_refuses_empty_and_duplicate_names() {
        let dup = RulesConfig {
            command: vec![
                CommandRule {
                    name: "a".into(),
                    ..Default::default()
                },
                CommandRule {
                    name: "a".into(),
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let err = RuleSet::compile(&dup, &GuardConfig::default())
            .err()
            .expect("duplicate");
        assert_eq!(err.to_string(), "rules.command \"a\": duplicate rule name");
        let empty = RulesConfig {
            tool: vec![ToolRule::default()],
            ..Default::default()
        };
        assert!(RuleSet::compile(&empty, &GuardConfig::default()).is_err());
    }

    #[test]
    fn bad_patterns_never_match_and_are_reported_once_met() {
        let rules = RulesConfig {
            file: vec![FileRule {
                name: "broken".into(),
                patterns: vec!["src/{a,b".into()],
                ..Default::default()
            }],
            ..Default::default()
        };
        let guard = GuardConfig::default();
        let set = RuleSet::compile(&rules, &guard).expect("names are fine");
        let input = serde_json::json!({"file_path": "src/a"});
        let call = ToolCall {
            tool_name: "Edit",
            tool_input: &input,
        };
        let ctx = MatchContext {
            project_root: Path::new("/p"),
            is_leader: true,
            role: None,
            agent_type: None,
        };
        assert!(set.evaluate(&call, &ctx).is_empty());
        let problems = set.problems();
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0]
                .to_string()
                .starts_with("rules.file \"broken\": patterns[0] `src/{a,b`")
        );
    }

    #[test]
    fn literal_prefilter_examples() {
        assert!(literals_present("**/app/views/**/*.erb", "app/views/a.erb"));
        assert!(!literals_present(
            "**/app/views/**/*.erb",
            "app/models/a.rb"
        ));
        assert!(literals_present("git push*", "git push -f"));
        assert!(!literals_present("git push*", "git status"));
        assert!(literals_present("{git,hg} push", "hg push"));
        assert!(
            literals_present("x[a]y", "x"),
            "after a class: let the glob decide"
        );
        assert!(!literals_present("x[a]y", "y"));
        assert!(literals_present("\\é*x", "x"));
    }

    /// The rules of the documented example config.
    fn spec_example() -> (RulesConfig, GuardConfig) {
        let rules = RulesConfig {
            file: vec![FileRule {
                name: "views".into(),
                patterns: vec!["**/app/views/**/*.erb".into()],
                exclude: vec!["**/vendor/**".into()],
                severity: Severity::Block,
                token_threshold: Some(35000),
                scope: vec![],
                message: "Views follow docs/views.md.".into(),
            }],
            command: vec![CommandRule {
                name: "push".into(),
                patterns: vec!["git push*".into()],
                severity: Severity::Ask,
                message: "Pushing needs a green CI.".into(),
                ..Default::default()
            }],
            tool: vec![ToolRule {
                name: "ticket writes".into(),
                tool: "mcp__redmine__.*".into(),
                input: [("status".to_owned(), "^closed$".to_owned())].into(),
                severity: Severity::Block,
                message: "Close tickets only after review.".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let guard = GuardConfig {
            enabled: true,
            allow: vec!["rm -rf ./target".into()],
            deny: vec!["terraform destroy*".into()],
            ..GuardConfig::default()
        };
        (rules, guard)
    }

    fn leader() -> MatchContext<'static> {
        MatchContext {
            project_root: Path::new("/work/proj"),
            is_leader: true,
            role: None,
            agent_type: None,
        }
    }

    #[test]
    fn spec_example_rules_fire_as_documented() {
        let (rules, guard) = spec_example();
        let set = RuleSet::compile(&rules, &guard).expect("valid");
        let run = |tool: &str, input: serde_json::Value| {
            let call = ToolCall {
                tool_name: tool,
                tool_input: &input,
            };
            set.evaluate(&call, &leader())
        };
        let edit = run(
            "Edit",
            serde_json::json!({"file_path": "/work/proj/app/views/a.erb"}),
        );
        assert_eq!(edit.len(), 1);
        assert_eq!(
            (edit[0].kind, edit[0].name.as_str()),
            (RuleKind::File, "views")
        );
        assert_eq!(edit[0].token_threshold, Some(35000));

        let push = run(
            "Bash",
            serde_json::json!({"command": "cargo test && git push --force"}),
        );
        let names: Vec<(RuleKind, &str)> = push.iter().map(|m| (m.kind, m.name.as_str())).collect();
        assert_eq!(
            names,
            [
                (RuleKind::Command, "push"),
                (RuleKind::Guard, "guard:git-push-force")
            ]
        );
        let verdict = combine(&push, PermissionMode::Default).expect("a verdict");
        assert_eq!(verdict.decision, Decision::Deny);
        assert!(verdict.reason.lines().all(|l| l.starts_with("[nagger] ")));
        assert!(
            verdict
                .reason
                .ends_with("[nagger] Pushing needs a green CI.")
        );
        let bypass = combine(&push, PermissionMode::BypassPermissions).expect("guard still denies");
        assert_eq!(bypass.decision, Decision::Deny);
        assert!(!bypass.reason.contains("green CI"));

        let close = run(
            "mcp__redmine__update_issue",
            serde_json::json!({"id": 7, "status": "closed"}),
        );
        assert_eq!(close.len(), 1);
        assert_eq!(close[0].kind, RuleKind::Tool);
        assert!(
            run(
                "mcp__redmine__update_issue",
                serde_json::json!({"status": "open"})
            )
            .is_empty()
        );
        assert!(run("Read", serde_json::json!({"file_path": "README.md"})).is_empty());
    }

    use proptest::prelude::*;

    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            "\\PC{0,40}".prop_map(serde_json::Value::from),
            "[ a-z/.*$()|;&'\"-]{0,40}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(3, 32, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
                proptest::collection::btree_map(
                    prop_oneof![
                        Just("command".to_owned()),
                        Just("file_path".to_owned()),
                        Just("path".to_owned()),
                        Just("status".to_owned()),
                        "[a-z_.]{1,8}",
                    ],
                    inner,
                    0..5,
                )
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        // evaluate and combine never panic, whatever the call carries.
        #[test]
        fn evaluate_never_panics(
            tool in prop_oneof![
                Just("Bash".to_owned()),
                Just("Edit".to_owned()),
                Just("mcp__redmine__x".to_owned()),
                "\\PC{0,20}",
            ],
            command in "\\PC{0,120}",
            input in json_value(),
            leader_call in any::<bool>(),
        ) {
            let (rules, guard) = spec_example();
            let set = RuleSet::compile(&rules, &guard).expect("valid");
            let ctx = MatchContext { is_leader: leader_call, ..leader() };
            let with_command = serde_json::json!({ "command": command, "file_path": command });
            for input in [&input, &with_command] {
                let call = ToolCall { tool_name: &tool, tool_input: input };
                let matches = set.evaluate(&call, &ctx);
                for mode in [
                    PermissionMode::Default,
                    PermissionMode::DontAsk,
                    PermissionMode::BypassPermissions,
                ] {
                    let _ = combine(&matches, mode);
                }
            }
        }


        // The prefilter never rejects a candidate that the glob matches.
        #[test]
        fn literal_prefilter_is_sound(
            pattern in "[ab/*?{},.\\[\\]!\\\\-]{0,12}",
            candidate in "[ab/.,!-]{0,12}",
            separator in any::<bool>(),
        ) {
            if let Ok(glob) = build_glob(&pattern, separator)
                && glob.compile_matcher().is_match(&candidate)
            {
                prop_assert!(literals_present(&pattern, &candidate));
            }
        }
    }
}
