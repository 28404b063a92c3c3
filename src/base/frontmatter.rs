//! A component file's frontmatter (an agent, skill, command or output style in a
//! `.claude` folder) read as Claude Code reads it: the text between an opening `---` and
//! the next `---`, parsed as YAML, so that a key spelled quoted, escaped, tagged,
//! anchored, merged or in flow style is the key it names. What weakens nagger there is
//! `hooks` (commands Claude Code runs by itself, where no PreToolUse shows them), a
//! `permissionMode` under which nagger's questions are not put, and MCP servers the
//! component starts. Text that cannot be read as YAML but may say any of these is
//! reported as unreadable, for the caller to ask about.

use yaml_rust2::{Yaml, YamlLoader};

/// Most bytes of frontmatter parsed; beyond, the text is judged unreadable when it may
/// name a key that weakens nagger.
const MAX_FRONT: usize = 64 * 1024;
/// Most anchors, aliases and opening brackets of flow collections parsed: a parser
/// copies every alias, so a few nested ones grow without bound.
const MAX_STRUCTURE: usize = 64;
/// Most values walked in a parsed frontmatter.
const MAX_NODES: usize = 20_000;

/// Permission modes under which Claude Code still puts the questions hooks ask.
const ASKING_MODES: &[&str] = &["default", "plan", "acceptEdits"];

/// What a component file's frontmatter says that matters to nagger.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)] // what the file says, one flag per key
pub struct Frontmatter {
    /// It declares hooks (any value but null).
    pub hooks: bool,
    /// The commands of those hooks, as Claude Code would run them.
    pub hook_commands: Vec<String>,
    /// A hook whose command is not a string nagger can read (a list, a mapping).
    pub hook_unreadable: bool,
    /// The permission mode it sets, as written (`?` when it is not a string).
    pub permission_mode: Option<String>,
    /// It declares an MCP server by a command or an address, which Claude Code starts.
    pub servers: bool,
    /// The names it gives (`name:`).
    pub names: Vec<String>,
    /// Frontmatter that does not parse as YAML (or is too large or too tangled to parse)
    /// and may say one of the above.
    pub unreadable: bool,
}

impl Frontmatter {
    /// The permission mode it sets skips the questions nagger's hooks ask.
    pub fn skips_asking(&self) -> bool {
        self.permission_mode
            .as_deref()
            .is_some_and(|m| !ASKING_MODES.contains(&m.trim()))
    }

    /// What in it weakens nagger, in words, if anything does.
    pub fn weakening(&self) -> Option<&'static str> {
        if self.hooks {
            Some("adds hooks, commands Claude Code runs by itself past every check of nagger's")
        } else if self.skips_asking() {
            Some("sets a permission mode that skips asking, so nagger's questions are not put")
        } else if self.servers {
            Some("starts an MCP server, a program Claude Code runs by itself")
        } else if self.unreadable {
            Some(
                "cannot be read as YAML here and may add hooks or change the permission mode \
                 as Claude Code reads it",
            )
        } else {
            None
        }
    }
}

/// The frontmatter of `text`, the whole file. Every opening Claude Code versions accept is
/// tried, and a few more (a byte-order mark, blank lines or a comment before or after the
/// opening `---`); what any of them reads counts.
pub fn read(text: &str) -> Frontmatter {
    let mut out = Frontmatter::default();
    // Line ends as a client that normalizes them sees them: `\r\n` and a lone `\r` end
    // a line too.
    let normal;
    let text = if text.contains('\r') {
        normal = text.replace("\r\n", "\n").replace('\r', "\n");
        normal.as_str()
    } else {
        text
    };
    for body in candidates(text) {
        judge_body(body, &mut out);
    }
    out.hook_commands.dedup();
    out.names.dedup();
    out
}

/// The frontmatter texts `text` may have: as Claude Code's pattern cuts it (the opening
/// `---`, blanks to the last line end among them, then up to the next `---` wherever it
/// stands) and by lines (up to the next line that is `---`).
fn candidates(text: &str) -> Vec<&str> {
    let text = text.trim_start_matches('\u{feff}');
    // Blank lines before the opening fence: no frontmatter to Claude Code, read anyway.
    let text = text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    let Some(rest) = text.strip_prefix("---") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    // `---\s*\n`: blanks (line ends among them) up to the last line end of that run.
    let blank_end = rest
        .find(|c: char| !(c.is_whitespace() || c == '\u{feff}'))
        .unwrap_or(rest.len());
    if let Some(nl) = rest[..blank_end].rfind('\n') {
        let body = &rest[nl + 1..];
        let end = body.find("---").unwrap_or(body.len());
        out.push(&body[..end]);
    }
    // By lines: the opening line may carry a comment (`--- # x`) or trailing blanks.
    let (first, after) = rest.split_once('\n').unwrap_or((rest, ""));
    let first = first.trim();
    if first.is_empty() || first.starts_with('#') {
        let mut end = after.len();
        let mut at = 0;
        for line in after.split_inclusive('\n') {
            let t = line.trim_end();
            if t == "---" || t.starts_with("--- ") || t == "..." {
                end = at;
                break;
            }
            at += line.len();
        }
        let body = &after[..end];
        if !out.contains(&body) {
            out.push(body);
        }
    }
    out
}

/// Reads one candidate frontmatter into `out`.
fn judge_body(body: &str, out: &mut Frontmatter) {
    if body.trim().is_empty() {
        return;
    }
    let structure = body.matches(['&', '*', '[', '{']).count();
    let parsed = if body.len() > MAX_FRONT || structure > MAX_STRUCTURE {
        None
    } else {
        parse(body)
            .or_else(|| parse(&tabs_as_spaces(body)))
            .or_else(|| parse(&special_values_quoted(body)))
    };
    let Some(root) = parsed else {
        out.unreadable |= may_weaken(body);
        return;
    };
    let mut budget = MAX_NODES;
    let Yaml::Hash(map) = root else {
        return;
    };
    for (key, value) in merged(&map) {
        let Some(key) = key_text(key) else {
            // A key that is not a plain value (a list, a mapping): Claude Code reads it
            // as text nagger does not know.
            out.unreadable |= may_weaken(body);
            continue;
        };
        let key = key.trim().to_ascii_lowercase().replace(['-', '_'], "");
        match key.as_str() {
            "hooks" if !matches!(value, Yaml::Null) => {
                out.hooks = true;
                hook_commands(value, false, out, &mut budget);
            }
            "permissionmode" => {
                out.permission_mode = Some(match value {
                    Yaml::String(s) => s.clone(),
                    Yaml::Null => "default".to_owned(),
                    _ => "?".to_owned(),
                });
            }
            "mcpservers" => out.servers |= starts_servers(value, &mut budget),
            "name" => {
                if let Some(name) = key_text(value) {
                    out.names.push(name.trim().to_owned());
                }
            }
            _ => {}
        }
    }
}

/// The one document of `body`, when it parses.
fn parse(body: &str) -> Option<Yaml> {
    let docs = YamlLoader::load_from_str(body).ok()?;
    match docs.len() {
        0 => Some(Yaml::Null),
        _ => docs.into_iter().next(),
    }
}

/// A mapping's entries with those of its merge keys (`<<: *base`), which some readers
/// take in: the mapping's own first.
fn merged(map: &yaml_rust2::yaml::Hash) -> Vec<(&Yaml, &Yaml)> {
    let mut out: Vec<(&Yaml, &Yaml)> = Vec::new();
    let mut merges: Vec<&Yaml> = Vec::new();
    for (k, v) in map {
        if matches!(k, Yaml::String(s) if s == "<<") {
            merges.push(v);
        } else {
            out.push((k, v));
        }
    }
    for m in merges {
        let maps: Vec<&Yaml> = match m {
            Yaml::Array(items) => items.iter().collect(),
            other => vec![other],
        };
        for m in maps {
            if let Yaml::Hash(inner) = m {
                out.extend(inner.iter());
            }
        }
    }
    out
}

/// A key or value as the text a JavaScript reader makes of it: strings, numbers and
/// booleans.
fn key_text(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        Yaml::Null => Some("null".to_owned()),
        _ => None,
    }
}

/// Every `command` under a hooks value, wherever it stands (`{Event: [{matcher, hooks:
/// [{type, command}]}]}` and any other shape a client may accept).
fn hook_commands(value: &Yaml, under_command: bool, out: &mut Frontmatter, budget: &mut usize) {
    if *budget == 0 {
        out.hook_unreadable = true;
        return;
    }
    *budget -= 1;
    match value {
        Yaml::Hash(map) => {
            for (k, v) in merged(map) {
                let command = key_text(k).is_some_and(|k| k.trim().eq_ignore_ascii_case("command"));
                hook_commands(v, command, out, budget);
            }
        }
        Yaml::Array(items) => {
            for item in items {
                hook_commands(item, under_command, out, budget);
            }
        }
        Yaml::String(s) if under_command => {
            if !s.trim().is_empty() {
                out.hook_commands.push(s.clone());
            }
        }
        Yaml::Null | Yaml::String(_) | Yaml::Integer(_) | Yaml::Real(_) | Yaml::Boolean(_) => {}
        Yaml::Alias(_) | Yaml::BadValue => out.hook_unreadable = true,
    }
}

/// Whether an `mcpServers` value defines a server Claude Code starts (a mapping with a
/// `command` or an address), rather than naming one the user configured.
fn starts_servers(value: &Yaml, budget: &mut usize) -> bool {
    if *budget == 0 {
        return true;
    }
    *budget -= 1;
    match value {
        Yaml::Hash(map) => merged(map).into_iter().any(|(k, v)| {
            key_text(k).is_some_and(|k| {
                matches!(
                    k.trim().to_ascii_lowercase().as_str(),
                    "command" | "url" | "args"
                )
            }) || starts_servers(v, budget)
        }),
        Yaml::Array(items) => items.iter().any(|i| starts_servers(i, budget)),
        Yaml::Alias(_) | Yaml::BadValue => true,
        _ => false,
    }
}

/// Whether text that could not be read as a whole frontmatter (frontmatter that does not
/// parse, or part of a file) may say something that weakens nagger: a word of those keys,
/// an escape or a character outside ASCII that could spell one, a merge key.
pub fn may_weaken(body: &str) -> bool {
    let lower = body.to_ascii_lowercase();
    ["hook", "permission", "mcp", "\\", "<<"]
        .iter()
        .any(|w| lower.contains(w))
        || !body.is_ascii()
}

/// Tabs that open a line taken as two spaces each, as one client does before it tries a
/// second time.
fn tabs_as_spaces(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    for line in body.split_inclusive('\n') {
        let tabs = line.len() - line.trim_start_matches('\t').len();
        out.push_str(&"  ".repeat(tabs));
        out.push_str(&line[tabs..]);
    }
    out
}

/// Plain values holding a character YAML gives meaning to (`{`, `*`, `#`, …) put in
/// double quotes, as one client does before it tries a second time.
fn special_values_quoted(body: &str) -> String {
    let mut out = String::with_capacity(body.len() + 16);
    for line in body.split_inclusive('\n') {
        let (content, end) = match line.strip_suffix('\n') {
            Some(c) => (c, "\n"),
            None => (line, ""),
        };
        let quoted = content.split_once(": ").and_then(|(key, value)| {
            let v = value.trim();
            let special = v.contains(|c: char| "{}[]*&#!|>%@`".contains(c));
            (special && !v.starts_with(['"', '\'']) && !key.trim_start().starts_with('-')).then(
                || {
                    let v = v.replace('\\', "\\\\").replace('"', "\\\"");
                    [key, ": \"", &v, "\""].concat()
                },
            )
        });
        out.push_str(quoted.as_deref().unwrap_or(content));
        out.push_str(end);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weakens(text: &str) -> bool {
        read(text).weakening().is_some()
    }

    #[test]
    fn everyday_agents_and_skills_do_not_weaken() {
        for text in [
            "---\nname: reviewer\ndescription: Reviews code for style\ntools: Read, Grep\n---\nBody\n",
            "---\nname: s\ndescription: \"Use when: the user asks\"\nallowed-tools: Bash(git:*)\n---\n!`git status`\n",
            "---\nname: x\npermissionMode: acceptEdits\nmodel: sonnet\n---\nThe hooks: section is fine here.\n",
            "---\ndescription: c\nargument-hint: [file]\n---\nDo $ARGUMENTS\n",
            "No frontmatter at all, hooks: x\n",
            "---\nname: y\nmcpServers:\n  - github\n  - slack\n---\nx\n",
            "---\nname: z\ndescription: Handles C++ & Rust *carefully* #1\n---\nx\n",
        ] {
            assert!(!weakens(text), "{text:?}: {:?}", read(text));
        }
    }

    #[test]
    fn hooks_are_found_however_the_key_is_spelled() {
        for text in [
            "---\nname: e\nhooks:\n  Stop: []\n---\n",
            "---\nname: e\n\"hooks\":\n  Stop: []\n---\n",
            "---\nname: e\n'hooks' :\n  Stop: []\n---\n",
            "---\nname: e\n\"\\x68ooks\":\n  Stop: []\n---\n",
            "---\nname: e\n\"\\u0068ooks\": {Stop: []}\n---\n",
            "---\nname: e\n!!str hooks: {Stop: []}\n---\n",
            "---\nname: e\n&k hooks: {Stop: []}\n---\n",
            "---\nname: e\n? hooks\n: {Stop: []}\n---\n",
            "---\n  name: e\n  hooks: {Stop: []}\n---\n",
            "---\n{name: e, hooks: {Stop: []}}\n---\n",
            "---\r\nname: e\r\n\"hooks\":\r\n  Stop: []\r\n---\r\n",
            "\u{feff}---\nname: e\nhooks: {Stop: []}\n---\n",
            "\n---\nname: e\nhooks: {Stop: []}\n---\n",
            "---\rname: e\rhooks:\r  Stop: []\r---\r",
            "--- # x\nname: e\nhooks: {Stop: []}\n---\n",
            "---  \nname: e\nhooks: {Stop: []}\n---\n",
            "---\nbase: &b {hooks: {Stop: []}}\n<<: *b\nname: e\n---\n",
            "---\nname: e\nHooks: {Stop: []}\n---\n",
        ] {
            assert!(read(text).hooks, "{text:?}: {:?}", read(text));
        }
    }

    #[test]
    fn permission_modes_that_skip_asking_are_found() {
        for text in [
            "---\npermissionMode: bypassPermissions # default\n---\n",
            "---\npermissionMode: \"bypassPermissions\" # x\n---\n",
            "---\npermissionMode: !!str bypassPermissions\n---\n",
            "---\npermissionMode: &a bypassPermissions\n---\n",
            "---\npermissionMode: \"bypass\\u0050ermissions\"\n---\n",
            "---\npermissionMode: >-\n  bypassPermissions\n---\n",
            "---\npermissionMode:\n  bypassPermissions\n---\n",
            "---\n\"permissionMode\": dontAsk\n---\n",
            "---\n{permissionMode: dontAsk}\n---\n",
            "---\npermissionMode: \"bypass\n  Permissions\"\n---\n",
            "---\npermissionMode: auto\n---\n",
            "---\npermissionMode: [bypassPermissions]\n---\n",
        ] {
            assert!(read(text).skips_asking(), "{text:?}: {:?}", read(text));
        }
    }

    #[test]
    fn hook_commands_are_read_as_yaml_gives_them() {
        let text = "---\nname: e\nhooks:\n  PreToolUse:\n    - matcher: \"*\"\n      hooks:\n        - type: command\n          'command': \"echo \\x3e x\"\n        - type: command\n          command:\n            rm -rf /\n---\n";
        let front = read(text);
        assert_eq!(front.hook_commands, vec!["echo > x", "rm -rf /"]);
        assert_eq!(front.names, vec!["e"]);
    }

    #[test]
    fn servers_started_by_the_component_are_found() {
        assert!(read("---\nmcpServers:\n  x:\n    command: node\n    args: [s.js]\n---\n").servers);
        assert!(read("---\nmcpServers: [{x: {url: \"http://h\"}}]\n---\n").servers);
    }

    #[test]
    fn text_that_does_not_parse_is_unreadable_only_when_it_may_weaken() {
        assert!(read("---\nname: e\nhooks: [\n---\n").weakening().is_some());
        assert!(
            read("---\nname: e\nx: [\n\"hooks\": 1\n---\n")
                .weakening()
                .is_some()
        );
        assert!(read("---\nname: e\nname: f\nhooks: {}\n---\n").unreadable);
        assert!(!read("---\nname: e\ndescription: a: b: c\n---\n").unreadable);
    }

    #[test]
    fn tangled_frontmatter_is_not_parsed() {
        let mut body = String::from("---\na: &a [x]\n");
        for k in 0..40 {
            body.push_str(
                &[
                    "b",
                    &k.to_string(),
                    ": &b",
                    &k.to_string(),
                    " [*a, *a, *a, *a]\n",
                ]
                .concat(),
            );
        }
        body.push_str("hooks: {}\n---\n");
        let front = read(&body);
        assert!(front.unreadable && !front.hooks);
    }
}
