//! Rules: the config's file, command and tool rules plus the built-in guard, checked
//! against one PreToolUse call; recovery hints after a failed call and after-edit checks
//! after an edit. Pure: no I/O and no session state. The caller drops the matches already
//! shown this session, then `combine`s the rest into one decision.
//!
//! Each kind of rule lives in its own file behind the `Kind` trait of `kind.rs`, listed
//! once in `KINDS` (`kinds.rs`); [`RuleSet`] and [`RulesConfig::validate`] go through that
//! list. The file, command and tool rules share one shape (`user.rs`). The guard is a room
//! of its own, `crate::domain::guard`, seen from here through one adapter, `guard.rs`, the
//! only file here that imports it; `guard_kind.rs` makes it a kind of rule.
//!
//! Runs on every tool call, so nothing is built up front: a glob or regex is compiled the
//! first time a call could match it, after a literal prefilter has ruled most out.

pub mod after_edit;
mod command;
mod error;
mod file;
mod guard;
mod guard_kind;
mod kind;
mod kinds;
mod limits;
mod matching;
pub mod recovery;
mod set;
mod spec;
mod tool;
mod user;
mod verdict;

pub use error::RuleError;
pub use matching::{GuardReview, MatchContext, RuleMatch, ToolCall};
pub use set::{
    RuleSet, decide_without_state, decide_without_state_sharing, decide_without_state_strictly,
};
pub use spec::{
    AfterEditRule, CommandRule, EditSeverity, FileRule, PatternRule, RecoveryRule, RulesConfig,
    Severity, ToolRule,
};
pub use verdict::{Verdict, combine};

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
