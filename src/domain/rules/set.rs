//! The rule set: every kind's PreToolUse rules and the guard, compiled from the config
//! and checked against one call.

use std::path::Path;

use super::error::RuleError;
use super::guard::GuardConfig;
use super::kind::{Call, Kind, PreToolUse, Selection};
use super::kinds::KINDS;
use super::matching::{GuardReview, MatchContext, RuleMatch, ToolCall};
use super::spec::RulesConfig;

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
        self.evaluate_sharing(call, ctx, None)
    }

    /// [`RuleSet::evaluate`], taking the guard's answer from `reviewed` when another set
    /// of the same config already worked it out for this call (else working it out there).
    pub fn evaluate_sharing(
        &self,
        call: &ToolCall,
        ctx: &MatchContext,
        reviewed: Option<&GuardReview>,
    ) -> Vec<RuleMatch> {
        let mut call = Call::new(call, *ctx, self.shell_tools);
        call.reviewed = reviewed;
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
            cwd: None,
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
    decide_without_state_sharing(rules, guard, call, (project_root, None), None)
}

/// [`decide_without_state`] for a call made from the folder `cwd` (the project root when
/// None), keeping the guard's answer in `reviewed` for the full check of the same call
/// ([`RuleSet::evaluate_sharing`]).
pub fn decide_without_state_sharing(
    rules: &RulesConfig,
    guard: &GuardConfig,
    call: &ToolCall,
    (project_root, cwd): (&Path, Option<&Path>),
    reviewed: Option<&GuardReview>,
) -> Vec<RuleMatch> {
    evaluate_anonymous(
        Selection::UnscopedDeny,
        (rules, guard),
        call,
        (project_root, cwd),
        reviewed,
    )
}

/// The decisions for a call when the state cannot be used (the database locked, damaged
/// or unreadable, an input whose session cannot be recorded): the guard and every rule
/// that applies to everyone. A `block` or `ask` rule, which fires once per session when
/// the state can count it, fires every time: without the count, the stricter answer.
/// Rules scoped to roles need the caller's identity and are left out.
pub fn decide_without_state_strictly(
    rules: &RulesConfig,
    guard: &GuardConfig,
    call: &ToolCall,
    (project_root, cwd): (&Path, Option<&Path>),
    reviewed: Option<&GuardReview>,
) -> Vec<RuleMatch> {
    evaluate_anonymous(
        Selection::Unscoped,
        (rules, guard),
        call,
        (project_root, cwd),
        reviewed,
    )
}

/// The matches of the rules `selection` keeps for a call whose caller is not known.
fn evaluate_anonymous(
    selection: Selection,
    (rules, guard): (&RulesConfig, &GuardConfig),
    call: &ToolCall,
    (project_root, cwd): (&Path, Option<&Path>),
    reviewed: Option<&GuardReview>,
) -> Vec<RuleMatch> {
    let set = RuleSet::select(rules, guard, selection, |_| {});
    let ctx = MatchContext {
        project_root,
        cwd,
        is_leader: false,
        role: None,
        agent_type: None,
    };
    set.evaluate_sharing(call, &ctx, reviewed)
}
