//! Support for the tests that run the real Claude Code: the Messages API stand-in
//! and the client runner.

pub mod client;
pub mod standin;

/// One `#[test]` per scenario and pinned Claude Code version: `name => fn(&version)`.
macro_rules! on_both_versions {
    ($($name:ident => $body:expr;)*) => {
        mod v2_1_68 {
            use super::*;
            $( #[test] fn $name() { let f: fn(&str) = $body; f("2.1.68") } )*
        }
        mod v2_1_328 {
            use super::*;
            $( #[test] fn $name() { let f: fn(&str) = $body; f("2.1.328") } )*
        }
    };
}
