//! Kinds of rule (file, command and tool rules, the guard, recovery hints, after-edit
//! checks) behind one trait, and one PreToolUse call as they see it.
//!
//! A new kind of rule is one file implementing [`Kind`] plus its entry in `KINDS` (and its
//! name in [`RuleKind`], the string the database records for each hit). A kind that checks
//! PreToolUse calls returns its rules from [`Kind::pre_tool_use`] as a [`PreToolUse`]; the
//! rule set holds one such box per kind, built once per hook run, and nothing per call.

use std::cell::OnceCell;
use std::path::Path;

use serde_json::Value;

use super::error::RuleError;
use super::guard::{Commands, GuardConfig, relative_path};
use super::matching::{GuardReview, MatchContext, RuleMatch, ToolCall};
use super::spec::{RulesConfig, Severity};
use crate::base::rule_kind::RuleKind;

/// `tool_input` fields that name a file or directory: Edit/Write/MultiEdit/Read,
/// NotebookEdit, Glob/Grep.
const PATH_FIELDS: [&str; 3] = ["file_path", "notebook_path", "path"];

/// What every kind of rule does.
pub(super) trait Kind: Sync {
    /// Its name for the database, `stats` and the hook log.
    fn kind(&self) -> RuleKind;

    /// Empty and duplicate names among its configured rules: checked by every
    /// [`RuleSet::compile`](super::set::RuleSet::compile), so cheap.
    fn check_names(&self, _rules: &RulesConfig, _problems: &mut Vec<RuleError>) {}

    /// Every problem in its configured rules, names included. Builds every glob and
    /// regex: for loading the config and `doctor`, never for one hook run.
    fn validate(&self, rules: &RulesConfig, problems: &mut Vec<RuleError>);

    /// Its rules, ready to check PreToolUse calls, with nothing compiled yet; `None` for a
    /// kind that answers another hook event.
    fn pre_tool_use<'a>(
        &self,
        _rules: &'a RulesConfig,
        _guard: &'a GuardConfig,
        _selection: Selection,
    ) -> Option<Box<dyn PreToolUse + 'a>> {
        None
    }
}

/// Which of the configured rules a rule set holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Selection {
    All,
    /// Only the `deny` rules that apply to everyone: the decisions that need no state.
    UnscopedDeny,
    /// Every rule that applies to everyone, whatever its severity: what a call is held
    /// to when the state that makes `block` and `ask` rules fire once cannot be used.
    Unscoped,
}

impl Selection {
    /// One matcher, built by `new`, for each of `rules` kept; `rule` tells a rule's
    /// severity and scope. Every rule is the common case: one allocation, no filter.
    pub(super) fn matchers<'a, R, M>(
        self,
        rules: &'a [R],
        rule: impl Fn(&R) -> (Severity, &[String]),
        new: impl FnMut(&'a R) -> M,
    ) -> Vec<M> {
        match self {
            Selection::All => rules.iter().map(new).collect(),
            Selection::UnscopedDeny => rules
                .iter()
                .filter(|r| {
                    let (severity, scope) = rule(r);
                    severity == Severity::Deny && scope.is_empty()
                })
                .map(new)
                .collect(),
            Selection::Unscoped => rules
                .iter()
                .filter(|r| rule(r).1.is_empty())
                .map(new)
                .collect(),
        }
    }
}

/// One kind's rules, checking PreToolUse calls.
pub(super) trait PreToolUse {
    /// The rules that fire for `call`, in config order, appended to `matches`.
    fn check(&self, call: &Call, matches: &mut Vec<RuleMatch>);

    /// Bad globs and regexes met so far while checking (they never match).
    fn problems(&self, problems: &mut Vec<RuleError>);

    /// What a reader of `nagger check` should know about `call` beyond the matches.
    fn notes(&self, _call: &Call, _notes: &mut Vec<String>) {}
}

/// One PreToolUse call as the kinds see it. What several kinds need (the paths the call
/// names, the simple commands of its command line) is worked out once, when first asked.
pub(super) struct Call<'c> {
    pub(super) tool_name: &'c str,
    pub(super) input: &'c Value,
    pub(super) ctx: MatchContext<'c>,
    /// Tools whose `command` input is a shell command line (`[guard] shell_tools`).
    shell_tools: &'c [String],
    paths: OnceCell<Vec<String>>,
    commands: OnceCell<Option<Commands>>,
    /// The guard's answer, when it is shared with another rule set checking this call.
    pub(super) reviewed: Option<&'c GuardReview>,
}

impl<'c> Call<'c> {
    pub(super) fn new(
        call: &ToolCall<'c>,
        ctx: MatchContext<'c>,
        shell_tools: &'c [String],
    ) -> Call<'c> {
        Call {
            tool_name: call.tool_name,
            input: call.tool_input,
            ctx,
            shell_tools,
            paths: OnceCell::new(),
            commands: OnceCell::new(),
            reviewed: None,
        }
    }

    /// The paths named in the call's input, as file rules see them.
    pub(super) fn paths(&self) -> &[String] {
        self.paths
            .get_or_init(|| call_paths(self.input, self.ctx.project_root))
    }

    /// The simple commands of the call's command line, when the tool is one whose
    /// `command` is a shell command line; tokenised on first use.
    pub(super) fn commands(&self) -> Option<&Commands> {
        self.commands
            .get_or_init(|| Commands::of_call(self.shell_tools, self.tool_name, self.input))
            .as_ref()
    }
}

/// The paths named in a call's input, as rule globs see them.
fn call_paths(input: &Value, project_root: &Path) -> Vec<String> {
    PATH_FIELDS
        .iter()
        .filter_map(|field| input.get(field)?.as_str())
        .filter(|p| !p.is_empty())
        .map(|p| relative_path(p, project_root))
        .collect()
}
