//! Support for the tests that run the real Claude Code: the Messages API stand-in
//! and the client runner.

pub mod client;
pub mod standin;
