//! For the tests of the file, command and tool rules: firing rules through a rule set.

use serde_json::Value;

use super::guard::GuardConfig;
use super::matching::{MatchContext, ToolCall};
use super::set::RuleSet;
use super::spec::RulesConfig;

/// The `why` of every rule of `rules` that fires for a call of `tool` with `input` made
/// by `ctx`, in order, with the guard off.
pub(super) fn fire(
    rules: &RulesConfig,
    tool: &str,
    input: &Value,
    ctx: &MatchContext,
) -> Vec<String> {
    let guard = GuardConfig {
        enabled: false,
        ..GuardConfig::default()
    };
    let set = RuleSet::compile(rules, &guard).expect("valid rules");
    let call = ToolCall {
        tool_name: tool,
        tool_input: input,
    };
    set.evaluate(&call, ctx)
        .into_iter()
        .map(|m| m.why)
        .collect()
}
