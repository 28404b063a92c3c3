//! Shell tokeniser for command rules and the guard: turns a Bash command line into the
//! simple commands it would run, with wrappers (`sudo`, `env`, `xargs`, `bash -c`, `eval` …)
//! peeled off. Nothing is expanded or executed. Any input terminates without panicking,
//! with nesting depth, command count and bytes scanned bounded; the guard refuses what
//! went past a bound rather than trusting the part it saw.

mod braces;
mod command;
mod commands;
mod fd;
mod lexer;
mod limits;
mod longopts;
mod params;
mod parser;
mod remote;
mod token;
mod words;
mod wrappers;

pub use command::{Assignment, Parsed, SimpleCommand, Via, is_decoder};
pub use commands::{Commands, code_of_tool, command_line};
pub use limits::{MAX_COMMANDS, MAX_DEPTH, MAX_SCANNED_BYTES};
pub use params::{Outcome, Var, Vars, array_items, evaluate};
pub use parser::parse;
pub use words::*;
pub use wrappers::{
    follows, git_config_commands, git_config_runs, shell_c_script, trace_target, with_positional,
    with_script_name, wrapper_folders,
};

#[cfg(test)]
mod tests;
