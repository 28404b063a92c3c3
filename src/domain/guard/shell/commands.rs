//! A command line read once for everything matched against it: its simple commands and,
//! for each, every spelling a glob may match.

use serde_json::Value;

use super::command::{Parsed, SimpleCommand};
use super::parser::parse;

/// The simple commands of one command line, ready for glob matching.
pub struct Commands {
    pub parsed: Parsed,
    /// `variants[i]` are the spellings of `parsed.commands[i]`
    /// (see [`SimpleCommand::variants`]).
    pub variants: Vec<Vec<String>>,
    /// Every variant of every command, one per line: a glob whose literals are not in
    /// here cannot match any of them.
    pub haystack: String,
}

impl Commands {
    /// Tokenise a command line.
    pub fn new(line: &str) -> Commands {
        let parsed = parse(line);
        let variants: Vec<Vec<String>> = parsed
            .commands
            .iter()
            .map(SimpleCommand::variants)
            .collect();
        let haystack = variants
            .iter()
            .map(|spellings| spellings.join("\n"))
            .collect::<Vec<_>>()
            .join("\n");
        Commands {
            parsed,
            variants,
            haystack,
        }
    }

    /// Each simple command with its spellings.
    pub fn each(&self) -> impl Iterator<Item = (&SimpleCommand, &[String])> {
        self.parsed
            .commands
            .iter()
            .zip(self.variants.iter().map(Vec::as_slice))
    }
}

/// The shell command line of a call, when its tool is one of `shell_tools` (the tools
/// whose `command` input is a command line) and it has one.
pub fn command_line<'v>(
    shell_tools: &[String],
    tool_name: &str,
    input: &'v Value,
) -> Option<&'v str> {
    if !shell_tools.iter().any(|t| t == tool_name) {
        return None;
    }
    input.get("command")?.as_str()
}
