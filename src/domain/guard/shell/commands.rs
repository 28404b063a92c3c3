//! A command line read once for everything matched against it: its simple commands and,
//! for each, every spelling a glob may match.

use std::borrow::Cow;

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
        // Substitutions the text alone works out (`$(dirname a/b)`, `$(cd scripts/.. &&
        // pwd)`) are read as the words they print, wherever they stand.
        let worked_out = super::super::paths::pure_substitutions(line);
        let parsed = parse(worked_out.as_deref().unwrap_or(line));
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

    /// The command line of a call of one of `shell_tools`, read. A call its tool runs in
    /// the background (`"run_in_background": true`) is one job the line leaves running,
    /// as `( … ) &` is: its commands run on while later calls are checked.
    pub fn of_call(shell_tools: &[String], tool_name: &str, input: &Value) -> Option<Commands> {
        let mut commands = Commands::new(&command_line(shell_tools, tool_name, input)?);
        let background = match input.get("run_in_background") {
            Some(Value::Bool(b)) => *b,
            Some(Value::String(s)) => s.trim().eq_ignore_ascii_case("true"),
            _ => false,
        };
        let all = commands.parsed.commands.len();
        if background && all > 0 {
            commands.parsed.background.insert(0, 0..all);
        }
        Some(commands)
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
) -> Option<Cow<'v, str>> {
    if shell_tools.iter().any(|t| t == tool_name) {
        return input.get("command")?.as_str().map(Cow::Borrowed);
    }
    // Claude Code's PowerShell tool: its command is PowerShell code, read as `pwsh` is
    // handed it on a command line (code in a language the guard does not read is asked
    // about).
    if tool_name.trim().eq_ignore_ascii_case("powershell") {
        let code = input.get("command")?.as_str()?;
        return Some(Cow::Owned(format!(
            "pwsh -Command {}",
            super::words::shell_quote(code)
        )));
    }
    // Another tool (an MCP server's) whose name says it runs commands: its command line
    // is what it runs (`mcp__shell__execute_command`, `mcp__tmux__send_keys`).
    // The tool's own name, or its server's (`mcp__terminal__write`, `mcp__shell__send`).
    let short = tool_name.strip_prefix("mcp__")?;
    let runs = short
        .split(|c: char| !c.is_ascii_alphanumeric())
        .flat_map(split_camel)
        .any(|w| RUNNING_WORDS.contains(&w.as_str()));
    if !runs {
        return None;
    }
    let line = top_level_line(input);
    // Lines in other places of its input (`{"params": {"cmd": …}}`, `{"commands": […]}`,
    // `{"Command": …}`, `{"text": "…\n"}`, one nested under another): any may be what
    // it runs, so every one is read with the rest.
    let mut nested = Vec::new();
    nested_lines(input, 0, &mut nested);
    let mut all: Vec<Cow<'v, str>> = line.into_iter().collect();
    for text in nested {
        if !all.contains(&text) {
            all.push(text);
        }
    }
    match all.len() {
        0 => None,
        1 => all.pop(),
        _ => Some(Cow::Owned(
            all.iter()
                .map(AsRef::as_ref)
                .collect::<Vec<&str>>()
                .join("\n"),
        )),
    }
}

/// Keys of a tool's input, at any depth, whose text may be a command line it runs
/// (compared in lower case without `_` and `-`).
const LINE_KEYS: &[&str] = &[
    "command",
    "commands",
    "cmd",
    "cmds",
    "commandline",
    "commandlines",
    "script",
    "scripts",
    "shell",
    "shellcommand",
    "shellcmd",
    "keys",
    "input",
    "text",
    "line",
    "lines",
    "exec",
    "run",
    "bash",
    "sh",
    "data",
];

/// The strings under [`LINE_KEYS`] anywhere in `value`, at most 64, four levels deep: an
/// array under a plural key (`commands`, `lines`) holds lines, under another a program
/// and its arguments.
fn nested_lines<'v>(value: &'v Value, depth: usize, out: &mut Vec<Cow<'v, str>>) {
    if depth > 4 || out.len() >= 64 {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter().take(256) {
                let key: String = key
                    .chars()
                    .filter(|c| *c != '_' && *c != '-')
                    .map(|c| c.to_ascii_lowercase())
                    .collect();
                if LINE_KEYS.contains(&key.as_str()) {
                    match v {
                        Value::String(text) => out.push(Cow::Borrowed(text)),
                        Value::Array(items) if key.ends_with('s') => {
                            out.extend(
                                items
                                    .iter()
                                    .take(64)
                                    .filter_map(Value::as_str)
                                    .map(Cow::Borrowed),
                            );
                        }
                        Value::Array(items) => {
                            let words: Vec<String> = items
                                .iter()
                                .take(1024)
                                .filter_map(Value::as_str)
                                .map(super::words::shell_quote)
                                .collect();
                            if !words.is_empty() {
                                out.push(Cow::Owned(words.join(" ")));
                            }
                        }
                        _ => {}
                    }
                }
                nested_lines(v, depth + 1, out);
            }
        }
        Value::Array(items) => {
            for v in items.iter().take(64) {
                nested_lines(v, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// The command line at the top of a running tool's input: a line, or a program and its
/// arguments; with the text it is given on its standard input (`{"command": "python3",
/// "stdin": "…"}`) as a here-document.
fn top_level_line(input: &Value) -> Option<Cow<'_, str>> {
    let line = program_line(input)?;
    let Some(stdin) = ["stdin", "input_text", "standard_input"]
        .iter()
        .find_map(|k| input.get(*k)?.as_str())
        .filter(|s| !s.is_empty())
    else {
        return Some(line);
    };
    let delimiter = (0..64)
        .map(|n| format!("NAGGER_STDIN_{n}"))
        .find(|d| !stdin.contains(d.as_str()))?;
    Some(Cow::Owned(format!(
        "{line} <<'{delimiter}'\n{stdin}\n{delimiter}"
    )))
}

/// [`top_level_line`] without its standard input.
fn program_line(input: &Value) -> Option<Cow<'_, str>> {
    // `{"command": "rm", "args": ["-rf", "x"]}`, `{"command": ["rm", "-rf", "x"]}`,
    // `{"argv": […]}`: a program and its arguments, run as they are.
    let words = |value: &Value| -> Option<Vec<String>> {
        let items = value.as_array()?;
        items
            .iter()
            .take(1024)
            .map(|v| v.as_str().map(super::words::shell_quote))
            .collect()
    };
    let args = ["args", "arguments", "argv"]
        .iter()
        .find_map(|field| words(input.get(*field)?))
        .unwrap_or_default();
    let line = SHELL_FIELDS.iter().find_map(|field| {
        let value = input.get(*field)?;
        match value.as_str() {
            Some(text) if args.is_empty() => Some(Cow::Borrowed(text)),
            Some(text) => Some(Cow::Owned(format!("{text} {}", args.join(" ")))),
            None => Some(Cow::Owned(
                words(value)?
                    .into_iter()
                    .chain(args.clone())
                    .collect::<Vec<_>>()
                    .join(" "),
            )),
        }
    });
    line.or_else(|| (!args.is_empty()).then(|| Cow::Owned(args.join(" "))))
}

/// The code an MCP server's tool runs (`mcp__jupyter__execute {"code": …}`,
/// `mcp__python__run {"code": …}`), and the interpreter of its language when its name or
/// its `language` field tells it (`None`: a language nagger cannot tell).
pub fn code_of_tool<'v>(
    tool_name: &str,
    input: &'v Value,
) -> Option<(&'v str, Option<&'static str>)> {
    let short = tool_name.strip_prefix("mcp__")?;
    let words: Vec<String> = short
        .split(|c: char| !c.is_ascii_alphanumeric())
        .flat_map(split_camel)
        .collect();
    let (server, tool) = short.rsplit_once("__").unwrap_or(("", short));
    let tool_words: Vec<String> = tool
        .split(|c: char| !c.is_ascii_alphanumeric())
        .flat_map(split_camel)
        .collect();
    let runs = |w: &String| RUNNING_WORDS.contains(&w.as_str()) || w == "eval" || w == "evaluate";
    // A browser's page runs what it is handed in the page, not on this machine.
    let browser = [
        "browser",
        "playwright",
        "puppeteer",
        "chrome",
        "page",
        "selenium",
    ];
    if !tool_words.iter().any(runs) || words.iter().any(|w| browser.contains(&w.as_str())) {
        return None;
    }
    let code = CODE_FIELDS
        .iter()
        .find_map(|field| input.get(*field)?.as_str())?;
    let named = ["language", "lang", "kernel", "kernel_name", "runtime"]
        .iter()
        .filter_map(|f| input.get(*f)?.as_str())
        .map(str::to_ascii_lowercase)
        .chain(words)
        .chain(std::iter::once(server.to_ascii_lowercase()));
    let mut language = None;
    for word in named {
        language = match word.as_str() {
            "python" | "python3" | "py" | "ipython" | "jupyter" | "notebook" | "pandas" => {
                Some("python3")
            }
            "javascript" | "js" | "node" | "nodejs" | "typescript" | "ts" | "deno" => Some("node"),
            "ruby" | "rb" => Some("ruby"),
            "perl" => Some("perl"),
            "php" => Some("php"),
            "lua" => Some("lua"),
            "bash" | "sh" | "shell" | "zsh" => Some("bash"),
            _ => continue,
        };
        break;
    }
    Some((code, language))
}

/// Fields of a tool's input that hold the code it runs.
const CODE_FIELDS: &[&str] = &["code", "program", "snippet"];

/// Words of a tool's name that say it runs a command line.
const RUNNING_WORDS: &[&str] = &[
    "exec",
    "execute",
    "run",
    "start",
    "process",
    "launch",
    "invoke",
    "repl",
    "console",
    "shell",
    "command",
    "cmd",
    "terminal",
    "bash",
    "sh",
    "zsh",
    "spawn",
    "keys",
    "powershell",
    "pwsh",
    "script",
];

/// Fields of a tool's input that hold the command line it runs.
const SHELL_FIELDS: &[&str] = &[
    "command",
    "program",
    "executable",
    "cmd",
    "commandLine",
    "command_line",
    "script",
    "shell",
    "keys",
];

/// `sendKeys` → `send`, `keys`: the words of a camel-case name, in lower case.
fn split_camel(word: &str) -> Vec<String> {
    let mut words = vec![String::new()];
    for c in word.chars() {
        if c.is_ascii_uppercase() && !words.last().is_some_and(String::is_empty) {
            words.push(String::new());
        }
        if let Some(last) = words.last_mut() {
            last.push(c.to_ascii_lowercase());
        }
    }
    words
}
