//! The shell lines of a skill or command file, as Claude Code finds them when the file
//! loads: `` !`cmd` `` after the start of a line or a blank, and fenced blocks opened with
//! ```` ```! ````, after the file's arguments were filled in.

use crate::base::text::replace_dollar;
use std::sync::LazyLock;

/// A fenced block whose opening fence is ```` ```! ````: its text runs as one command.
static FENCED: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r"```!\s*\n?([\s\S]*?)\n?```").expect("a valid regex"));

/// One shell line of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellLine {
    /// The command as it would run (arguments filled in when known).
    pub command: String,
    /// The line uses the file's arguments and they are not known: what runs is not known.
    pub needs_arguments: bool,
}

/// Every shell line of `text` (the whole file, frontmatter included), with `arguments`
/// filled in as Claude Code does: `$ARGUMENTS`, `$ARGUMENTS[n]`, `$n` (counted from 0),
/// and the names the frontmatter's `arguments` gives. `None`: the arguments are not
/// known, and lines that use them say so.
pub fn shell_lines(text: &str, arguments: Option<&str>, fixed: &[(&str, &str)]) -> Vec<ShellLine> {
    let names = argument_names(text);
    let mut text = text.to_string();
    for (name, value) in fixed {
        text = text.replace(name, value);
    }
    match arguments {
        Some(args) => {
            let filled = fill_arguments(&text, args, &names);
            found_commands(&filled)
                .into_iter()
                .map(|command| ShellLine {
                    command,
                    needs_arguments: false,
                })
                .collect()
        }
        None => found_commands(&text)
            .into_iter()
            .map(|command| ShellLine {
                needs_arguments: uses_arguments(&command, &names),
                command,
            })
            .collect(),
    }
}

/// The commands of fenced ```` ```! ```` blocks, then of inline `` !`…` ``, trimmed,
/// empty ones left out (both patterns are searched in the whole text, as Claude Code does).
fn found_commands(text: &str) -> Vec<String> {
    let mut commands: Vec<String> = FENCED
        .captures_iter(text)
        .filter_map(|c| c.get(1))
        .map(|m| m.as_str().trim().to_string())
        .collect();
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(found) = text[at..].find("!`") {
        let start = at + found;
        let after_blank = start == 0 || bytes[start - 1].is_ascii_whitespace();
        let body = start + 2;
        match text[body..].find('`') {
            Some(len) if after_blank && len > 0 => {
                commands.push(text[body..body + len].trim().to_string());
                at = body + len + 1;
            }
            _ => at = start + 1,
        }
    }
    commands.retain(|c| !c.is_empty());
    commands
}

/// The names the frontmatter's `arguments` gives (`arguments: a b`, `[a, b]`, or a
/// list of `- a` lines); numbers are not names.
fn argument_names(text: &str) -> Vec<String> {
    let Some(front) = frontmatter(text) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    let mut in_list = false;
    for line in front.lines() {
        if let Some(value) = line.strip_prefix("arguments:") {
            let value = value.trim().trim_start_matches('[').trim_end_matches(']');
            names.extend(value.split([',', ' ']).map(str::to_string));
            in_list = value.is_empty();
        } else if in_list && let Some(item) = line.trim_start().strip_prefix("- ") {
            names.push(item.to_string());
        } else {
            in_list = false;
        }
    }
    names
        .into_iter()
        .map(|n| n.trim().trim_matches(['"', '\'']).to_string())
        .filter(|n| !n.is_empty() && !n.chars().all(|c| c.is_ascii_digit()))
        .collect()
}

/// The commands of the hooks a skill's or agent's frontmatter declares (`hooks:` …
/// `command: …`): Claude Code runs them as hooks while the skill or agent is active, where
/// no PreToolUse shows them. Read as YAML ([`crate::base::frontmatter`]).
pub fn hook_commands(text: &str) -> Vec<String> {
    crate::base::frontmatter::read(text).hook_commands
}

/// The frontmatter between the first two `---` lines, if the text opens with one.
fn frontmatter(text: &str) -> Option<&str> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let end = rest.find("\n---")?;
    Some(&rest[..end])
}

/// The arguments split as a shell splits words: blanks separate, quotes group.
fn split_arguments(args: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = args.chars();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// `text` with the arguments filled in, in Claude Code's order: named arguments,
/// `$ARGUMENTS[n]`, `$n`, then `$ARGUMENTS`.
fn fill_arguments(text: &str, args: &str, names: &[String]) -> String {
    let words = split_arguments(args);
    let word = |i: usize| words.get(i).map_or("", String::as_str);
    let mut text = text.to_string();
    for (i, name) in names.iter().enumerate() {
        text = replace_dollar(&text, |rest| {
            let after = rest.strip_prefix(name.as_str())?;
            let next = after.chars().next();
            (!next.is_some_and(|c| c == '[' || c.is_alphanumeric() || c == '_'))
                .then_some((name.len(), word(i).to_string()))
        });
    }
    text = replace_dollar(&text, |rest| {
        let inner = rest.strip_prefix("ARGUMENTS[")?;
        let digits: String = inner.chars().take_while(char::is_ascii_digit).collect();
        let close = inner[digits.len()..].starts_with(']');
        (!digits.is_empty() && close).then(|| {
            let n = digits.parse().unwrap_or(usize::MAX);
            ("ARGUMENTS[".len() + digits.len() + 1, word(n).to_string())
        })
    });
    text = replace_dollar(&text, |rest| {
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let next = rest[digits.len()..].chars().next();
        (!digits.is_empty() && !next.is_some_and(|c| c.is_alphanumeric() || c == '_')).then(|| {
            let n = digits.parse().unwrap_or(usize::MAX);
            (digits.len(), word(n).to_string())
        })
    });
    text.replace("$ARGUMENTS", args)
}

/// Whether a command uses the file's arguments: `$ARGUMENTS`, `$n`, or a named one.
fn uses_arguments(command: &str, names: &[String]) -> bool {
    let filled = fill_arguments(command, "\u{1}", names);
    // Filling in a marker changes the text exactly when an argument is used; an empty
    // argument list fills `$n` with nothing, which changes it too.
    filled != command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commands_of_frontmatter_hooks_are_found() {
        let text = "---\nname: x\nhooks:\n  PreToolUse:\n    - matcher: \"*\"\n      hooks:\n        \
                    - type: command\n          command: rm -rf .claude-nagger\n  Stop:\n    \
                    - hooks:\n        - {type: command, command: \"echo done\"}\n        \
                    - type: command\n          command: |\n            cd /tmp\n            make\n\
                    description: d\n---\nbody command: not this\n";
        assert_eq!(
            hook_commands(text),
            vec!["rm -rf .claude-nagger", "echo done", "cd /tmp\nmake\n"]
        );
        assert!(hook_commands("---\nname: x\n---\ncommand: rm -rf /\n").is_empty());
        assert!(hook_commands("no frontmatter").is_empty());
    }

    fn commands(text: &str, args: Option<&str>) -> Vec<String> {
        shell_lines(text, args, &[])
            .into_iter()
            .map(|l| l.command)
            .collect()
    }

    #[test]
    fn inline_lines_need_a_blank_or_line_start_before_them() {
        let text = "Context: !`git status`\n!`ls -la`\nnot!`this` and `!`nor this`\n";
        assert_eq!(commands(text, Some("")), ["git status", "ls -la"]);
        assert!(commands("a !`` b !`", Some("")).is_empty());
    }

    #[test]
    fn fenced_blocks_run_whole() {
        let text = "Before\n```!\ngit fetch\ngit log -1\n```\nafter !`date`";
        assert_eq!(commands(text, Some("")), ["git fetch\ngit log -1", "date"]);
    }

    #[test]
    fn arguments_are_filled_in_as_claude_code_does() {
        let text = "!`echo \"0=$0 1=$1 A=$ARGUMENTS A0=$ARGUMENTS[0] x=$1x\"`";
        assert_eq!(
            commands(text, Some("one 'two three'")),
            ["echo \"0=one 1=two three A=one 'two three' A0=one x=$1x\""]
        );
        let named = "---\nname: s\narguments: [target, mode]\n---\n!`rm -rf $target`";
        assert_eq!(commands(named, Some("/tmp/x fast")), ["rm -rf /tmp/x"]);
        let listed = "---\narguments:\n  - where\n---\n!`ls $where $whereabouts`";
        assert_eq!(commands(listed, Some("/srv")), ["ls /srv $whereabouts"]);
    }

    #[test]
    fn arguments_can_bring_lines_of_their_own() {
        let text = "Do this: $ARGUMENTS";
        assert_eq!(commands(text, Some("!`rm -rf ~`")), ["rm -rf ~"]);
    }

    #[test]
    fn unknown_arguments_are_named_where_they_are_used() {
        let text = "---\narguments: dir\n---\n!`ls $dir`\n!`git status`\n!`echo $ARGUMENTS`\n!`echo $2`\n!`echo $HOME`";
        let lines = shell_lines(text, None, &[]);
        let used: Vec<bool> = lines.iter().map(|l| l.needs_arguments).collect();
        assert_eq!(used, [true, false, true, true, false]);
    }

    #[test]
    fn fixed_values_are_filled_in_first() {
        let lines = shell_lines(
            "!`ls ${CLAUDE_SKILL_DIR}`",
            Some(""),
            &[("${CLAUDE_SKILL_DIR}", "/p/s")],
        );
        assert_eq!(lines[0].command, "ls /p/s");
    }
}
