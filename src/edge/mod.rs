//! The edge: where the world comes in and answers go out: the hook's wire and handlers,
//! the command line, the dashboard, installing and the demo.

pub mod cli;
pub mod cmd;
pub mod demo;
pub mod hook;
pub mod install;
pub mod ui;
