//! claude-nagger 3.3.3's YAML, read as it read it, in nagger's terms.
//!
//! What claude-nagger did with each entry, from its sources:
//! - `session_startup`: the main agent's first tool call is refused with `title` and
//!   `main_text` of `messages.first_time`; once the context grew by
//!   `behavior.token_threshold` (50000) tokens, or after a compaction, with
//!   `messages.repeated`. A missing title or text has a built-in default.
//! - subagents: `base → overrides.subagent_default → overrides.subagent_types.<type>`,
//!   deep-merged; a subagent whose role or type has no `subagent_types` entry is shown
//!   nothing; a subagent always gets `first_time`.
//! - rules: `deny` refuses every time; every other severity (`block`, `warn`, `info`)
//!   refuses once per session per rule, again after `token_threshold` tokens of growth.
//! - file patterns are wcmatch globs on the path relative to the project; command patterns
//!   `fnmatch` on the whole command line or its first word; tool patterns `re.match` on
//!   the tool name, `input_match` values `re.fullmatch` on the input field's text.

use super::globs;
use super::pyre;
use super::types::{Entry, ImportError, Imported, Message, Outcome, Role, Rule, Sources, toml_key};
use super::yaml::{self, Yaml};
use std::collections::BTreeSet;
use std::path::Path;

/// claude-nagger's message when a title or text is missing.
const DEFAULT_TITLE: &str = "セッション開始時の確認";
const DEFAULT_TEXT: &str = "設定ファイルを確認してください。";
/// claude-nagger's `behavior.token_threshold` default, and nagger's `[session]` one.
const SESSION_THRESHOLD: u64 = 50_000;
/// Tokens of growth after which a rule without `token_threshold` fires again, by kind.
const FILE_THRESHOLDS: [(&str, u64); 3] = [("block", 20_000), ("stop", 25_000), ("warn", 40_000)];
const FILE_THRESHOLD_OTHER: u64 = 30_000;
const COMMAND_THRESHOLD: u64 = 30_000;
const MCP_THRESHOLD: u64 = 30_000;
/// `role_resolution.trusted_prefixes` when config.yaml sets none.
const DEFAULT_PREFIXES: [(&str, &str); 7] = [
    ("auditor", "auditor"),
    ("coder", "coder"),
    ("pmo", "pmo"),
    ("researcher", "researcher"),
    ("team-lead", "leader"),
    ("tech-lead", "tech-lead"),
    ("tester", "tester"),
];

struct Converter {
    out: Imported,
}

impl Converter {
    fn note(&mut self, source: String, outcome: Outcome, target: &str, note: impl Into<String>) {
        self.out.report.push(Entry {
            source,
            outcome,
            target: target.to_string(),
            note: note.into(),
        });
    }
}

/// Converts claude-nagger's files. A file that is not YAML is an error (claude-nagger
/// could not read it either, and nothing is written).
pub fn convert(sources: &Sources, dir: &Path) -> Result<Imported, ImportError> {
    let parse = |name: &str| -> Result<Option<Yaml>, ImportError> {
        sources
            .get(name)
            .map(|text| {
                yaml::parse(text).map_err(|message| ImportError {
                    file: dir.join(name),
                    message,
                })
            })
            .transpose()
    };
    let config = parse("config.yaml")?;
    let mut c = Converter {
        out: Imported {
            stamp: sources.stamp(),
            ..Imported::default()
        },
    };
    let thresholds = config
        .as_ref()
        .and_then(|cfg| yaml::get(cfg, "convention_hooks"))
        .and_then(|h| yaml::get(h, "context_management"))
        .and_then(|m| yaml::get(m, "thresholds"))
        .cloned()
        .unwrap_or(Yaml::Null);
    if let Some(cfg) = &config {
        config_yaml(&mut c, cfg);
    }
    let defaults = Defaults::from(&thresholds);
    if let Some(file) = parse("file_conventions.yaml")? {
        pattern_rules(&mut c, &file, Kind::File, &defaults);
    }
    if let Some(file) = parse("command_conventions.yaml")? {
        pattern_rules(&mut c, &file, Kind::Command, &defaults);
    }
    if let Some(file) = parse("mcp_conventions.yaml")? {
        tool_rules(&mut c, &file, &defaults);
    }
    Ok(c.out)
}

/// The thresholds rules without their own fall back to.
struct Defaults {
    file: Vec<(String, u64)>,
    file_other: u64,
    command: u64,
    mcp: u64,
}

impl Defaults {
    fn from(thresholds: &Yaml) -> Defaults {
        let file = yaml::get(thresholds, "rule_thresholds").map_or_else(
            || {
                FILE_THRESHOLDS
                    .iter()
                    .map(|(s, n)| ((*s).to_string(), *n))
                    .collect()
            },
            |t| {
                yaml::entries(t)
                    .into_iter()
                    .filter_map(|(k, v)| yaml::unsigned(v).map(|n| (k, n)))
                    .collect()
            },
        );
        let num = |key: &str, default: u64| {
            yaml::get(thresholds, key)
                .and_then(yaml::unsigned)
                .unwrap_or(default)
        };
        Defaults {
            file,
            file_other: FILE_THRESHOLD_OTHER,
            command: num("command_threshold", COMMAND_THRESHOLD),
            mcp: num("mcp_threshold", MCP_THRESHOLD),
        }
    }

    fn file_threshold(&self, severity: &str) -> u64 {
        self.file
            .iter()
            .find(|(s, _)| s == severity)
            .map_or(self.file_other, |(_, n)| *n)
    }
}

fn config_yaml(c: &mut Converter, cfg: &Yaml) {
    let src = |key: &str| format!("config.yaml {key}");
    let startup = yaml::get(cfg, "session_startup")
        .cloned()
        .unwrap_or(Yaml::Null);
    let enabled = yaml::get(&startup, "enabled").is_none_or(yaml::truthy);
    if enabled {
        if yaml::get(&startup, "enabled").is_some() {
            c.note(
                src("session_startup.enabled"),
                Outcome::Carried,
                "[session] enabled",
                "on, as nagger's default",
            );
        }
    } else {
        c.out.session_enabled = Some(false);
        c.note(
            src("session_startup.enabled"),
            Outcome::Carried,
            "[session] enabled = false",
            "off; claude-nagger then showed subagents nothing either, so no role is imported",
        );
    }
    let messages = yaml::get(&startup, "messages")
        .cloned()
        .unwrap_or(Yaml::Null);
    for (which, slot) in [("first_time", 0), ("repeated", 1)] {
        let m = yaml::get(&messages, which).cloned().unwrap_or(Yaml::Null);
        let (message, defaulted) = message_of(&m);
        let target = format!("[session.{which}]");
        let source = src(&format!("session_startup.messages.{which}"));
        if defaulted.is_empty() {
            c.note(
                source.clone(),
                Outcome::Carried,
                &target,
                "title and main_text",
            );
        } else {
            c.note(
                source.clone(),
                Outcome::Changed,
                &target,
                format!(
                    "no {} set: claude-nagger's built-in default written out",
                    defaulted.join(" or ")
                ),
            );
        }
        if yaml::get(&m, "severity").is_some() {
            c.note(
                format!("{source}.severity"),
                Outcome::Dropped,
                "",
                "claude-nagger 3.3.3 never read it: its startup message always refuses the first call, as nagger's `delivery = \"deny\"` does",
            );
        }
        if enabled {
            if slot == 0 {
                c.out.first_time = Some(message);
            } else {
                c.out.repeated = Some(message);
            }
        }
    }
    let behavior = yaml::get(&startup, "behavior")
        .cloned()
        .unwrap_or(Yaml::Null);
    if let Some(once) = yaml::get(&behavior, "once_per_session")
        && !yaml::truthy(once)
    {
        c.note(
            src("session_startup.behavior.once_per_session"),
            Outcome::Dropped,
            "",
            "false refused every tool call of the main agent; nagger shows the session conventions once, and again after growth or a compaction",
        );
    }
    let threshold = yaml::get(&behavior, "token_threshold")
        .and_then(yaml::unsigned)
        .unwrap_or(SESSION_THRESHOLD);
    if threshold != SESSION_THRESHOLD {
        c.out.session_token_threshold = Some(threshold);
    }
    c.note(
        src("session_startup.behavior.token_threshold"),
        Outcome::Carried,
        "[session] token_threshold",
        format!(
            "{threshold} tokens of growth show `repeated` again (a compaction does too, in both)"
        ),
    );
    overrides(c, &startup, enabled);
    prefixes(c, cfg);
    for (key, value) in yaml::entries(cfg) {
        if matches!(key.as_str(), "session_startup" | "role_resolution") {
            continue;
        }
        let (outcome, note) = other_key(&key, value);
        c.note(src(&key), outcome, "", note);
    }
}

/// Title and text of a claude-nagger message, its defaults for what is missing, and which
/// were missing.
fn message_of(m: &Yaml) -> (Message, Vec<&'static str>) {
    let mut defaulted = Vec::new();
    let title = yaml::get(m, "title")
        .and_then(yaml::scalar_text)
        .unwrap_or_else(|| {
            defaulted.push("title");
            DEFAULT_TITLE.to_string()
        });
    let text = yaml::get(m, "main_text")
        .and_then(yaml::scalar_text)
        .unwrap_or_else(|| {
            defaulted.push("main_text");
            DEFAULT_TEXT.to_string()
        });
    (
        Message {
            title,
            text: text.trim_end().to_string(),
        },
        defaulted,
    )
}

fn overrides(c: &mut Converter, startup: &Yaml, enabled: bool) {
    let overrides = yaml::get(startup, "overrides")
        .cloned()
        .unwrap_or(Yaml::Null);
    let default = yaml::get(&overrides, "subagent_default")
        .cloned()
        .unwrap_or(Yaml::Null);
    let types = yaml::get(&overrides, "subagent_types")
        .map(yaml::entries)
        .unwrap_or_default();
    let mut names = Vec::new();
    for (name, over) in &types {
        let source = format!("config.yaml session_startup.overrides.subagent_types.{name}");
        if !enabled {
            c.note(
                source,
                Outcome::Dropped,
                "",
                "session_startup is off: claude-nagger showed it to no subagent",
            );
            continue;
        }
        if name == "default" {
            c.note(
                source,
                Outcome::Dropped,
                "",
                "a subagent type named `default` would be nagger's conventions for every subagent without a role of its own",
            );
            continue;
        }
        // base → subagent_default → subagent_types.<name>, as claude-nagger resolved it.
        let mut resolved = yaml::parse("{}").unwrap_or(Yaml::Null);
        let mut base = yaml::parse("{}").unwrap_or(Yaml::Null);
        for key in ["enabled", "messages"] {
            if let Some(v) = yaml::get(startup, key) {
                yaml::deep_merge(
                    &mut base,
                    &Yaml::Hash(
                        [(Yaml::String(key.into()), v.clone())]
                            .into_iter()
                            .collect(),
                    ),
                );
            }
        }
        yaml::deep_merge(&mut resolved, &base);
        yaml::deep_merge(&mut resolved, &default);
        yaml::deep_merge(&mut resolved, over);
        let target = format!("[roles.{}]", toml_key(name));
        let role_enabled = yaml::get(&resolved, "enabled").is_none_or(yaml::truthy);
        if !role_enabled {
            c.out.roles.push((
                name.clone(),
                Role {
                    enabled: false,
                    message: None,
                },
            ));
            c.note(
                source,
                Outcome::Carried,
                &target,
                "enabled = false: this type is shown nothing",
            );
            continue;
        }
        let first = yaml::get(&resolved, "messages")
            .and_then(|m| yaml::get(m, "first_time"))
            .cloned()
            .unwrap_or(Yaml::Null);
        let (message, defaulted) = message_of(&first);
        let from_default =
            yaml::get(over, "messages").is_none() && yaml::get(&default, "messages").is_some();
        let mut note =
            String::from("title and text of first_time (a subagent always got first_time)");
        if from_default {
            note =
                "the subagent_default message, merged under this type as claude-nagger did".into();
        }
        let outcome = if defaulted.is_empty() {
            Outcome::Carried
        } else {
            note = format!(
                "no {} set: claude-nagger's built-in default written out",
                defaulted.join(" or ")
            );
            Outcome::Changed
        };
        c.out.roles.push((
            name.clone(),
            Role {
                enabled: true,
                message: Some(message),
            },
        ));
        c.note(source, outcome, &target, note);
        names.push(name.clone());
    }
    if yaml::get(&overrides, "subagent_default").is_some() {
        let note = if names.is_empty() {
            "claude-nagger showed it only to subagent types listed under subagent_types, and none is: nothing to carry".to_string()
        } else {
            format!(
                "merged into {} as claude-nagger did; it showed nothing to a type without a subagent_types entry, so [roles.default] gets no text",
                names
                    .iter()
                    .map(|n| format!("[roles.{}]", toml_key(n)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let outcome = if names.is_empty() {
            Outcome::Dropped
        } else {
            Outcome::Changed
        };
        c.note(
            "config.yaml session_startup.overrides.subagent_default".into(),
            outcome,
            "",
            note,
        );
    }
}

fn prefixes(c: &mut Converter, cfg: &Yaml) {
    let set = yaml::get(cfg, "role_resolution")
        .and_then(|r| yaml::get(r, "trusted_prefixes"))
        .map(yaml::entries)
        .unwrap_or_default();
    let source = "config.yaml role_resolution.trusted_prefixes".to_string();
    if set.is_empty() {
        c.out.prefixes = DEFAULT_PREFIXES
            .iter()
            .map(|(p, r)| ((*p).to_string(), (*r).to_string()))
            .collect();
        c.note(
            source,
            Outcome::Changed,
            "[role_resolution] prefixes",
            "none set: claude-nagger's built-in prefixes (coder, pmo, team-lead → leader, tech-lead, tester, researcher, auditor) written out",
        );
    } else {
        c.out.prefixes = set
            .iter()
            .filter_map(|(p, r)| yaml::scalar_text(r).map(|r| (p.clone(), r)))
            .collect();
        c.note(
            source,
            Outcome::Carried,
            "[role_resolution] prefixes",
            "longest prefix of the agent type wins, in both",
        );
    }
}

/// What becomes of a config.yaml key nagger has no place for.
fn other_key(key: &str, value: &Yaml) -> (Outcome, String) {
    let note = match key {
        "sendmessage_guard" => {
            "nagger has no check of SendMessage's format (a [[rules.tool]] on SendMessage can refuse it with a message)"
        }
        "notifications" => "nagger sends no Discord notifications",
        "transcript_storage" => "nagger keeps no copy of transcripts",
        "context_management" => "nagger gives no reminders at context-size thresholds",
        "debug" => "nagger logs every hook run in its database (`nagger stats`, `nagger ui`)",
        "convention_hooks" => {
            "its thresholds are written into each imported rule's token_threshold; the rest has no equivalent"
        }
        "permission_mode_behaviors" => {
            let builtin = yaml::entries(value).into_iter().all(|(mode, b)| {
                let b = yaml::scalar_text(b).unwrap_or_default();
                matches!(
                    (mode.as_str(), b.as_str()),
                    ("bypassPermissions", "skip") | ("dontAsk", "warn_only") | (_, "normal")
                )
            });
            if builtin {
                return (
                    Outcome::Carried,
                    "built into nagger: bypassPermissions skips nagging, dontAsk turns it into warnings".into(),
                );
            }
            "nagger's behaviour per permission mode is fixed: bypassPermissions skips nagging, dontAsk turns it into warnings"
        }
        "system" | "document" | "hooks" => "claude-nagger's document tooling; nothing for nagger",
        _ => "not a key claude-nagger 3.3.3's hooks read",
    };
    (Outcome::Dropped, note.to_string())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Command,
}

/// The fields of one rule, as claude-nagger's loader required them.
struct RawRule<'a> {
    index: usize,
    name: Option<String>,
    severity: String,
    message: Option<String>,
    token_threshold: Option<u64>,
    scope: Vec<String>,
    value: &'a Yaml,
}

fn raw_rules(file: &Yaml) -> Vec<RawRule<'_>> {
    let items: &[Yaml] = match yaml::get(file, "rules") {
        Some(Yaml::Array(items)) => items,
        _ => &[],
    };
    items
        .iter()
        .enumerate()
        .map(|(index, value)| RawRule {
            index,
            name: yaml::get(value, "name").and_then(yaml::scalar_text),
            severity: yaml::get(value, "severity")
                .and_then(yaml::scalar_text)
                .unwrap_or_else(|| "warn".into()),
            message: yaml::get(value, "message").and_then(yaml::scalar_text),
            token_threshold: yaml::get(value, "token_threshold").and_then(yaml::unsigned),
            scope: yaml::get(value, "scope")
                .and_then(yaml::scalar_text)
                .into_iter()
                .collect(),
            value,
        })
        .collect()
}

/// nagger's severity for claude-nagger's, and what changed.
fn severity(s: &str) -> (&'static str, Option<String>) {
    match s {
        "deny" => ("deny", None),
        "block" => ("block", None),
        "warn" => (
            "block",
            Some("severity warn refused the call once per session in claude-nagger 3.3.3 (as block does); nagger's warn would never refuse, so it is block".into()),
        ),
        other => (
            "block",
            Some(format!(
                "severity {other} refused the call once per session in claude-nagger 3.3.3, as block does"
            )),
        ),
    }
}

/// Names are unique per table in nagger (they key the once-per-session bookkeeping).
fn unique_name(c: &Converter, table: &str, name: &str) -> String {
    let taken: BTreeSet<&str> = c
        .out
        .rules
        .iter()
        .filter(|r| r.table == table)
        .map(|r| r.name.as_str())
        .collect();
    if !taken.contains(name) {
        return name.to_string();
    }
    // One of taken.len() + 1 names is free.
    (2..=taken.len() + 2)
        .map(|n| format!("{name} ({n})"))
        .find(|n| !taken.contains(n.as_str()))
        .unwrap_or_default()
}

/// Which required key a rule lacks, as claude-nagger's loader required them.
/// Each rule of `file_name` with the name the report gives it and the first `required`
/// key it lacks; also the first rule that lacks one (its index and the key), which made
/// claude-nagger load none of the file's rules.
#[allow(clippy::type_complexity)]
fn labelled<'r, 'a>(
    file_name: &str,
    rules: &'r [RawRule<'a>],
    required: &[&str],
) -> (
    Vec<(&'r RawRule<'a>, String, Option<String>)>,
    Option<(usize, String)>,
) {
    let all: Vec<_> = rules
        .iter()
        .map(|rule| {
            let label = rule
                .name
                .clone()
                .unwrap_or_else(|| format!("#{}", rule.index));
            let source = format!("{file_name} rules[{}] {label:?}", rule.index);
            (rule, source, missing(rule, required))
        })
        .collect();
    let broken = all
        .iter()
        .find_map(|(rule, _, key)| Some((rule.index, key.clone()?)));
    (all, broken)
}

fn missing(rule: &RawRule, required: &[&str]) -> Option<String> {
    required
        .iter()
        .find(|k| yaml::get(rule.value, k).is_none())
        .map(|k| (*k).to_string())
}

fn pattern_rules(c: &mut Converter, file: &Yaml, kind: Kind, defaults: &Defaults) {
    let (file_name, table) = match kind {
        Kind::File => ("file_conventions.yaml", "file"),
        Kind::Command => ("command_conventions.yaml", "command"),
    };
    let rules = raw_rules(file);
    let (labelled, broken) = labelled(file_name, &rules, &["name", "patterns", "message"]);
    for (rule, source, lacking) in labelled {
        if let Some(key) = lacking {
            c.note(source, Outcome::Dropped, "", format!("no `{key}`"));
            continue;
        }
        let mut notes = Vec::new();
        if let Some((index, key)) = &broken {
            notes.push(format!(
                "claude-nagger 3.3.3 loaded no rule of this file, because rule #{index} has no `{key}`; nagger applies this one"
            ));
        }
        let (sev, sev_note) = severity(&rule.severity);
        let mut changed = broken.is_some() || sev_note.is_some();
        notes.extend(sev_note);
        let threshold = match (rule.token_threshold, sev) {
            (_, "deny") => None,
            (Some(n), _) => Some(n),
            (None, _) => {
                let n = match kind {
                    Kind::File => defaults.file_threshold(&rule.severity),
                    Kind::Command => defaults.command,
                };
                notes.push(format!(
                    "token_threshold {n}, claude-nagger's default for it, written out"
                ));
                Some(n)
            }
        };
        let raw_patterns = yaml::get(rule.value, "patterns")
            .map(yaml::strings)
            .unwrap_or_default();
        let exclude_raw = yaml::get(rule.value, "exclude_patterns")
            .map(yaml::strings)
            .unwrap_or_default();
        let (patterns, exclude) = match kind {
            Kind::File => {
                notes.push("nagger's `*` and `**` also match names starting with a dot, and file rules apply to Read too".into());
                (
                    raw_patterns.iter().map(|p| globs::file_glob(p)).collect(),
                    exclude_raw.iter().map(|p| globs::file_glob(p)).collect(),
                )
            }
            Kind::Command => {
                let mut patterns: Vec<String> = Vec::new();
                for p in &raw_patterns {
                    patterns.push(globs::command_glob(p));
                    if let Some(word) = globs::first_word_glob(p) {
                        changed = true;
                        notes.push(format!(
                            "`{word}` added: claude-nagger also matched `{p}` against the first word alone"
                        ));
                        patterns.push(word);
                    }
                }
                notes.push("nagger matches every simple command of the line (after `&&`, `|`, `sudo` …), claude-nagger the whole line or its first word; and it refused once per session per rule, not per distinct command line".into());
                (
                    patterns,
                    exclude_raw.iter().map(|p| globs::command_glob(p)).collect(),
                )
            }
        };
        let name = rule.name.clone().unwrap_or_default();
        let unique = unique_name(c, table, &name);
        if unique != name {
            changed = true;
            notes.push(format!(
                "renamed {unique:?}: rule names are unique in nagger"
            ));
        }
        let target = format!("[[rules.{table}]] {unique:?}");
        c.out.rules.push(Rule {
            table,
            name: unique,
            patterns,
            exclude,
            tool: None,
            input: Vec::new(),
            severity: sev,
            token_threshold: threshold,
            scope: rule.scope.clone(),
            message: rule
                .message
                .clone()
                .unwrap_or_default()
                .trim_end()
                .to_string(),
        });
        let outcome = if changed {
            Outcome::Changed
        } else {
            Outcome::Carried
        };
        c.note(source, outcome, &target, notes.join("; "));
    }
}

fn sev_note_changed(s: &str) -> bool {
    !matches!(s, "deny" | "block")
}

fn tool_rules(c: &mut Converter, file: &Yaml, defaults: &Defaults) {
    let file_name = "mcp_conventions.yaml";
    let rules = raw_rules(file);
    let (labelled, broken) = labelled(file_name, &rules, &["name", "tool_pattern", "message"]);
    for (rule, source, lacking) in labelled {
        if let Some(key) = lacking {
            c.note(source, Outcome::Dropped, "", format!("no `{key}`"));
            continue;
        }
        let python = yaml::get(rule.value, "tool_pattern")
            .and_then(yaml::scalar_text)
            .unwrap_or_default();
        let tool = match pyre::tool_pattern(&python) {
            Ok(tool) => tool,
            Err(why) => {
                c.note(
                    source,
                    Outcome::Dropped,
                    "",
                    format!("tool_pattern `{python}` cannot be carried: {why}"),
                );
                continue;
            }
        };
        let mut notes = vec![format!(
            "tool_pattern `{python}` (re.match, anchored at the start) as `{tool}` (whole name)"
        )];
        let mut input = Vec::new();
        let mut failed = None;
        for (field, pattern) in yaml::get(rule.value, "input_match")
            .map(yaml::entries)
            .unwrap_or_default()
        {
            let pattern = yaml::scalar_text(pattern).unwrap_or_default();
            match pyre::fullmatch_pattern(&pattern) {
                Ok(p) => input.push((field, p)),
                Err(why) => {
                    failed = Some(format!(
                        "input_match.{field} `{pattern}` cannot be carried: {why}"
                    ));
                    break;
                }
            }
        }
        if let Some(why) = failed {
            c.note(source, Outcome::Dropped, "", why);
            continue;
        }
        if !input.is_empty() {
            notes.push("input_match values must match whole (re.fullmatch); a value that is not a string is matched as JSON (true, null) where claude-nagger used Python's text (True, None)".into());
        }
        if let Some((index, key)) = &broken {
            notes.push(format!(
                "claude-nagger 3.3.3 loaded no rule of this file, because rule #{index} has no `{key}`; nagger applies this one"
            ));
        }
        let shell = ["Bash", "mcp__serena__execute_shell_command"];
        if let Ok(re) = regex::Regex::new(&format!("^(?:{tool})$"))
            && let Some(t) = shell.iter().find(|t| re.is_match(t))
        {
            notes.push(format!(
                "it matches {t}, which claude-nagger only checked against command rules; nagger applies it there too"
            ));
        }
        let (sev, sev_note) = severity(&rule.severity);
        notes.extend(sev_note);
        let threshold = match (rule.token_threshold, sev) {
            (_, "deny") => None,
            (Some(n), _) => Some(n),
            (None, _) => {
                notes.push(format!(
                    "token_threshold {}, claude-nagger's default for it, written out",
                    defaults.mcp
                ));
                Some(defaults.mcp)
            }
        };
        let name = rule.name.clone().unwrap_or_default();
        let unique = unique_name(c, "tool", &name);
        if unique != name {
            notes.push(format!(
                "renamed {unique:?}: rule names are unique in nagger"
            ));
        }
        let outcome = if sev_note_changed(&rule.severity)
            || broken.is_some()
            || unique != name
            || notes
                .iter()
                .any(|n| n.contains("claude-nagger only checked") || n.contains("as JSON"))
        {
            Outcome::Changed
        } else {
            Outcome::Carried
        };
        let target = format!("[[rules.tool]] {unique:?}");
        c.out.rules.push(Rule {
            table: "tool",
            name: unique,
            patterns: Vec::new(),
            exclude: Vec::new(),
            tool: Some(tool),
            input,
            severity: sev,
            token_threshold: threshold,
            scope: rule.scope.clone(),
            message: rule
                .message
                .clone()
                .unwrap_or_default()
                .trim_end()
                .to_string(),
        });
        c.note(source, outcome, &target, notes.join("; "));
    }
}
