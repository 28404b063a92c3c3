//! Support for the tests that run the real Claude Code: the Messages API stand-in
//! and the client runner.

pub mod client;
pub mod standin;

/// One `#[test]` per scenario and pinned Claude Code version: `name => fn(&version)`.
/// 2.1.68 (no `agent_id` on a subagent's calls), 2.1.328 (`agent_id`, background
/// subagents, UserPromptExpansion) and 2.1.332 (PreSkillShellCommand).
macro_rules! on_every_version {
    ($($name:ident => $body:expr;)*) => {
        mod v2_1_68 {
            use super::*;
            $( #[test] fn $name() { let f: fn(&str) = $body; f("2.1.68") } )*
        }
        mod v2_1_328 {
            use super::*;
            $( #[test] fn $name() { let f: fn(&str) = $body; f("2.1.328") } )*
        }
        mod v2_1_332 {
            use super::*;
            $( #[test] fn $name() { let f: fn(&str) = $body; f("2.1.332") } )*
        }
    };
}

/// The suites written before 2.1.332 was pinned run on every version too.
macro_rules! on_both_versions {
    ($($tt:tt)*) => { on_every_version! { $($tt)* } };
}
