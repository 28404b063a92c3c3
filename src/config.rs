//! `.claude-nagger/config.toml`: every key optional, defaults built in. Errors are
//! reported with file, line and key; a hook then runs on the defaults.

use crate::rules::{GuardConfig, RulesConfig};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The template `nagger install` writes; every key present and commented.
pub const TEMPLATE: &str = include_str!("../.claude-nagger/config.toml");

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub session: SessionConfig,
    pub roles: BTreeMap<String, RoleConfig>,
    pub role_resolution: RoleResolution,
    pub rules: RulesConfig,
    pub guard: GuardConfig,
    pub context: ContextConfig,
    pub compress: CompressConfig,
    pub log: LogConfig,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Delivery {
    /// Refuse the first tool call with the conventions as the reason.
    #[default]
    Deny,
    /// Add the conventions as additionalContext without refusing the call.
    Context,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Message {
    pub title: String,
    pub text: String,
}

impl Message {
    pub fn is_empty(&self) -> bool {
        self.text.trim().is_empty()
    }

    /// "## title\n\ntext", or the text alone.
    pub fn render(&self) -> String {
        let text = self.text.trim_end();
        if self.title.trim().is_empty() {
            text.to_string()
        } else {
            format!("## {}\n{}", self.title.trim(), text)
        }
    }
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct SessionConfig {
    pub enabled: bool,
    pub delivery: Delivery,
    pub token_threshold: u64,
    pub first_time: Message,
    pub repeated: Message,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            enabled: true,
            delivery: Delivery::Deny,
            token_threshold: 50_000,
            first_time: Message::default(),
            repeated: Message::default(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct RoleConfig {
    pub enabled: bool,
    pub title: String,
    pub text: String,
    /// Overrides `[session].delivery` for this role.
    pub delivery: Option<Delivery>,
}

impl Default for RoleConfig {
    fn default() -> Self {
        RoleConfig {
            enabled: true,
            title: String::new(),
            text: String::new(),
            delivery: None,
        }
    }
}

impl RoleConfig {
    pub fn message(&self) -> Message {
        Message {
            title: self.title.clone(),
            text: self.text.clone(),
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct RoleResolution {
    /// agent_type (or tag) prefix -> role; the longest matching prefix wins.
    pub prefixes: BTreeMap<String, String>,
    /// exact name -> role, checked before prefixes.
    pub aliases: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContextConfig {
    pub enabled: bool,
    pub max_summary_chars: usize,
    pub max_entry_chars: usize,
    pub max_transcript_lines: usize,
    pub ttl_hours: u64,
    /// Categories each agent type (or role) receives; a type not listed gets all.
    pub filters: BTreeMap<String, Vec<String>>,
    /// agent type (or role) -> category of the results it stores.
    pub categories: BTreeMap<String, String>,
}

impl Default for ContextConfig {
    fn default() -> Self {
        ContextConfig {
            enabled: true,
            max_summary_chars: 4000,
            max_entry_chars: 1200,
            max_transcript_lines: 500,
            ttl_hours: 24,
            filters: BTreeMap::new(),
            categories: BTreeMap::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompressConfig {
    pub enabled: bool,
    pub marker: String,
    /// Agent types (globs) whose stop is checked; "*" = all.
    pub types: Vec<String>,
    pub reviewer_types: Vec<String>,
    pub max_lines: usize,
    pub reviewer_max_lines: usize,
}

impl Default for CompressConfig {
    fn default() -> Self {
        CompressConfig {
            enabled: true,
            marker: "[COMPRESSED]".into(),
            types: vec!["*".into()],
            reviewer_types: vec!["reviewer".into()],
            max_lines: 10,
            reviewer_max_lines: 20,
        }
    }
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    pub retention_days: u64,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig { retention_days: 30 }
    }
}

/// How much of the config a problem costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Problem {
    /// A key nagger does not know: ignored, everything else applies.
    UnknownKey,
    /// A value nagger cannot use: that setting keeps its default, or that list item or
    /// rule is left out. Everything else applies.
    BadValue,
    /// A glob or regex that does not compile: that pattern never matches.
    BadPattern,
    /// The file cannot be read or is not TOML past some point.
    Unreadable,
}

/// A problem in the config file, located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub file: PathBuf,
    pub line: Option<usize>,
    pub key: Option<String>,
    pub message: String,
    pub problem: Problem,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(key) = &self.key {
            write!(f, ": `{key}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The config in force, and what was wrong with the file if anything. A problem never
/// switches off more than the entry it is in: the rest of the file applies.
#[derive(Debug, Clone, Default)]
pub struct LoadedConfig {
    pub config: Config,
    pub path: PathBuf,
    pub present: bool,
    pub errors: Vec<ConfigError>,
}

/// How much of the config to check when loading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validation {
    /// Syntax, types and values; patterns are compiled only when first used (and
    /// reported then). What the hook path pays for.
    Quick,
    /// Also compiles every glob and regex: for `doctor` and `check`.
    Full,
}

impl LoadedConfig {
    /// Reads `path` with quick validation. A missing file gives the defaults; a file with
    /// mistakes everything in it that is right, plus its problems.
    pub fn load(path: &Path) -> LoadedConfig {
        LoadedConfig::load_with(path, Validation::Quick)
    }

    /// Reads `path` and checks every pattern in it too.
    pub fn load_full(path: &Path) -> LoadedConfig {
        LoadedConfig::load_with(path, Validation::Full)
    }

    fn load_with(path: &Path, validation: Validation) -> LoadedConfig {
        match read_bounded(path) {
            Ok(text) => {
                let (config, errors) = parse_lenient(&text, path, validation);
                LoadedConfig {
                    config,
                    path: path.to_path_buf(),
                    present: true,
                    errors,
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => LoadedConfig {
                config: Config::default(),
                path: path.to_path_buf(),
                present: false,
                errors: Vec::new(),
            },
            Err(e) => LoadedConfig {
                config: Config::default(),
                path: path.to_path_buf(),
                present: true,
                errors: vec![ConfigError {
                    file: path.to_path_buf(),
                    line: None,
                    key: None,
                    message: format!("cannot be read ({e}); running on the defaults"),
                    problem: Problem::Unreadable,
                }],
            },
        }
    }

    /// One line for a hook's stderr when the file has problems: the first, and how many
    /// more there are.
    pub fn warning(&self) -> Option<String> {
        let first = self.errors.first()?;
        let more = self.errors.len() - 1;
        Some(if more > 0 {
            format!("config: {first} (and {more} more; run `nagger doctor`)")
        } else {
            format!("config: {first}")
        })
    }
}

/// Largest config file nagger reads: a longer one is unreadable, and nagger runs on
/// its defaults.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The config text, opened without blocking (a FIFO or a device in its place is not
/// read) and at most [`MAX_CONFIG_BYTES`].
fn read_bounded(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let file = crate::agent_files::open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {} KiB", MAX_CONFIG_BYTES / 1024),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not valid UTF-8"))
}

/// Parses and fully validates config text; `file` only labels errors. Strict: any
/// problem is an error (the lenient reading is [`parse_lenient`]).
pub fn parse(text: &str, file: &Path) -> Result<Config, Vec<ConfigError>> {
    let (config, errors) = parse_lenient(text, file, Validation::Full);
    if errors.is_empty() {
        Ok(config)
    } else {
        Err(errors)
    }
}

/// Reads config text keeping everything that is right: an unknown key is ignored, a bad
/// value leaves its setting on the default (or its list item or rule out), a bad pattern
/// never matches. Returns the config in force and every problem, located.
///
/// A file without mistakes costs one TOML parse; only a file with some is parsed again,
/// with positions, and sifted entry by entry.
pub fn parse_lenient(
    text: &str,
    file: &Path,
    validation: Validation,
) -> (Config, Vec<ConfigError>) {
    let mut sift = Sift {
        text,
        file,
        errors: Vec::new(),
    };
    let mut config = match toml::from_str::<Config>(text) {
        Ok(config) => config,
        Err(_) => sift.whole_file(),
    };
    sift.check_values(&mut config);
    sift.repair_rule_names(&mut config);
    if validation == Validation::Full {
        sift.check_patterns(&config);
    }
    (config, sift.errors)
}

/// One step of a path into the config: a key, or an item of a list (a rule).
#[derive(Debug, Clone)]
enum Seg {
    Key(String),
    Index(usize),
}

fn dotted(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Seg::Index(i) => out.push_str(&format!("[{}]", i + 1)),
        }
    }
    out
}

/// Why a value was not kept.
enum Rejected {
    /// Unknown key: ignored, reported already.
    Unknown,
    /// Unusable value: reported already; inside a rule, the rule goes.
    Bad,
}

struct Sift<'a> {
    text: &'a str,
    file: &'a Path,
    errors: Vec<ConfigError>,
}

impl Sift<'_> {
    fn report(&mut self, path: &[Seg], line: Option<usize>, problem: Problem, message: String) {
        self.errors.push(ConfigError {
            file: self.file.to_path_buf(),
            line,
            key: (!path.is_empty()).then(|| dotted(path)),
            message,
            problem,
        });
    }

    /// The slow path: parse with positions, recovering past syntax errors, and keep
    /// every entry that deserializes on its own.
    fn whole_file(&mut self) -> Config {
        let (root, syntax) = toml::de::DeTable::parse_recoverable(self.text);
        for e in &syntax {
            let line = e.span().map(|s| line_of(self.text, s.start));
            self.errors.push(ConfigError {
                file: self.file.to_path_buf(),
                line,
                key: None,
                message: format!(
                    "not valid TOML: {}; what can be read around it still applies",
                    e.message().trim()
                ),
                problem: Problem::Unreadable,
            });
        }
        let spans = Spans::new(root.get_ref());
        let value = toml::Value::deserialize(toml::de::ValueDeserializer::from(
            toml::Spanned::new(root.span(), toml::de::DeValue::Table(root.into_inner())),
        ));
        let Ok(toml::Value::Table(table)) = value else {
            return Config::default();
        };
        let mut kept = toml::Table::new();
        for (key, value) in table {
            let path = vec![Seg::Key(key.clone())];
            if let Ok(v) = self.sift(&path, value, &spans, false) {
                kept.insert(key, v);
            }
        }
        match Config::deserialize(toml::Value::Table(kept)) {
            Ok(config) => config,
            Err(e) => {
                // Each part was accepted alone; together they should be too.
                self.report(
                    &[],
                    None,
                    Problem::Unreadable,
                    format!("{}; running on the defaults", e.message().trim()),
                );
                Config::default()
            }
        }
    }

    /// Keeps what of `value` (at `path`) the config accepts. `in_rule`: inside one item of
    /// a list of tables, where a bad value drops the whole item.
    fn sift(
        &mut self,
        path: &[Seg],
        value: toml::Value,
        spans: &Spans,
        in_rule: bool,
    ) -> Result<toml::Value, Rejected> {
        let Err(err) = accepts(path, value.clone()) else {
            return Ok(value);
        };
        let line = spans.line(self.text, path);
        if is_unknown_field(&err) && accepts(path, toml::Value::Table(Default::default())).is_err()
        {
            let key = match path.last() {
                Some(Seg::Key(k)) => k.as_str(),
                _ => "",
            };
            let message = match closest_known(&err, key) {
                Some(known) => format!("unknown key, ignored (did you mean `{known}`?)"),
                None => "unknown key, ignored".to_string(),
            };
            self.report(path, line, Problem::UnknownKey, message);
            return Err(Rejected::Unknown);
        }
        match value {
            toml::Value::Table(table)
                if accepts(path, toml::Value::Table(Default::default())).is_ok() =>
            {
                let mut kept = toml::Table::new();
                let mut bad = false;
                for (key, child) in table {
                    let mut child_path = path.to_vec();
                    child_path.push(Seg::Key(key.clone()));
                    match self.sift(&child_path, child, spans, in_rule) {
                        Ok(v) => {
                            kept.insert(key, v);
                        }
                        Err(Rejected::Bad) => bad = true,
                        Err(Rejected::Unknown) => {}
                    }
                }
                if bad && in_rule {
                    return Err(Rejected::Bad);
                }
                Ok(toml::Value::Table(kept))
            }
            toml::Value::Array(items)
                if accepts(path, toml::Value::Array(Vec::new())).is_ok()
                    && accepts(path, toml::Value::Table(Default::default())).is_err() =>
            {
                let of_tables = items.iter().all(toml::Value::is_table);
                let mut kept = Vec::new();
                for (i, item) in items.into_iter().enumerate() {
                    let mut item_path = path.to_vec();
                    item_path.push(Seg::Index(i));
                    if of_tables && !in_rule {
                        match self.sift(&item_path, item, spans, true) {
                            Ok(v) => kept.push(v),
                            Err(_) => {
                                let line = spans.line(self.text, &item_path);
                                let what = rule_label(&item_path, spans);
                                self.report(
                                    &item_path,
                                    line,
                                    Problem::BadValue,
                                    format!("{what} is left out because of the problem above; the other rules apply"),
                                );
                            }
                        }
                    } else if let Err(e) = accepts(&item_path, item.clone()) {
                        let line = spans.line(self.text, &item_path);
                        let kind = expected_kind(&item_path, &e);
                        self.report(
                            &item_path,
                            line,
                            Problem::BadValue,
                            format!(
                                "item {} must be {kind}, not {}; that item is ignored",
                                i + 1,
                                describe(&item)
                            ),
                        );
                    } else {
                        kept.push(item);
                    }
                }
                Ok(toml::Value::Array(kept))
            }
            other => {
                let kind = expected_kind(path, &err);
                let fallback = if in_rule { "" } else { "; the default applies" };
                self.report(
                    path,
                    line,
                    Problem::BadValue,
                    format!("must be {kind}, not {}{fallback}", describe(&other)),
                );
                Err(Rejected::Bad)
            }
        }
    }

    /// What serde cannot check: values in range. A bad one goes back to its default.
    fn check_values(&mut self, config: &mut Config) {
        let defaults = ContextConfig::default();
        if config.context.max_summary_chars == 0 {
            config.context.max_summary_chars = defaults.max_summary_chars;
            self.value_problem(
                "context.max_summary_chars",
                "must be greater than 0; the default applies",
            );
        }
        if config.context.max_entry_chars == 0 {
            config.context.max_entry_chars = defaults.max_entry_chars;
            self.value_problem(
                "context.max_entry_chars",
                "must be greater than 0; the default applies",
            );
        }
        if config.compress.enabled && config.compress.marker.trim().is_empty() {
            config.compress.marker = CompressConfig::default().marker;
            self.value_problem("compress.marker", "must not be empty; the default applies");
        }
    }

    fn value_problem(&mut self, key: &str, message: &str) {
        self.errors.push(ConfigError {
            file: self.file.to_path_buf(),
            line: find_key_line(self.text, key),
            key: Some(key.to_string()),
            message: message.to_string(),
            problem: Problem::BadValue,
        });
    }

    /// A rule is known by its name (once-per-session bookkeeping), so each needs one of
    /// its own. A rule without a name, or with one taken, is kept under its position:
    /// a mistake in a name never switches a rule off.
    fn repair_rule_names(&mut self, config: &mut Config) {
        let rules = &mut config.rules;
        let mut names: Vec<(&'static str, Vec<&mut String>)> = vec![
            (
                "rules.file",
                rules.file.iter_mut().map(|r| &mut r.name).collect(),
            ),
            (
                "rules.command",
                rules.command.iter_mut().map(|r| &mut r.name).collect(),
            ),
            (
                "rules.tool",
                rules.tool.iter_mut().map(|r| &mut r.name).collect(),
            ),
            (
                "rules.recovery",
                rules.recovery.iter_mut().map(|r| &mut r.name).collect(),
            ),
            (
                "rules.after_edit",
                rules.after_edit.iter_mut().map(|r| &mut r.name).collect(),
            ),
        ];
        let mut problems = Vec::new();
        for (table, list) in &mut names {
            let mut seen = std::collections::BTreeSet::new();
            for (i, name) in list.iter_mut().enumerate() {
                let given = name.trim().to_string();
                if !given.is_empty() && seen.insert(given.clone()) {
                    continue;
                }
                let renamed = if given.is_empty() {
                    format!("{table} #{}", i + 1)
                } else {
                    format!("{given} #{}", i + 1)
                };
                let message = if given.is_empty() {
                    format!("rule {} has no name; it applies as \"{renamed}\"", i + 1)
                } else {
                    format!(
                        "rule name \"{given}\" is used twice; rule {} applies as \"{renamed}\"",
                        i + 1
                    )
                };
                problems.push((format!("{table}[{}].name", i + 1), given.clone(), message));
                seen.insert(renamed.clone());
                **name = renamed;
            }
        }
        for (key, given, message) in problems {
            let line = if given.is_empty() {
                None
            } else {
                find_name_line(self.text, &given, 2)
            };
            self.errors.push(ConfigError {
                file: self.file.to_path_buf(),
                line,
                key: Some(key),
                message,
                problem: Problem::BadValue,
            });
        }
    }

    /// Every glob and regex, compiled: a bad one never matches (the rest of its rule does).
    fn check_patterns(&mut self, config: &Config) {
        let mut found = Vec::new();
        for (key, pattern) in config
            .compress
            .types
            .iter()
            .map(|p| ("compress.types", p))
            .chain(
                config
                    .compress
                    .reviewer_types
                    .iter()
                    .map(|p| ("compress.reviewer_types", p)),
            )
        {
            // Compiled exactly as SubagentStart and SubagentStop compile it.
            if let Err(e) = crate::compress::type_glob(pattern) {
                found.push((
                    key.to_string(),
                    format!("`{pattern}` is not a valid glob ({e}); it never matches"),
                ));
            }
        }
        for e in config
            .rules
            .validate()
            .into_iter()
            .chain(config.guard.validate())
        {
            use crate::rules::RuleError;
            if matches!(
                e,
                RuleError::EmptyName { .. } | RuleError::DuplicateName { .. }
            ) {
                continue; // repaired in repair_rule_names
            }
            found.push((rule_error_key(&e), format!("{e}; it never matches")));
        }
        for (key, message) in found {
            self.errors.push(ConfigError {
                file: self.file.to_path_buf(),
                line: find_key_line(self.text, &key),
                key: Some(key),
                message,
                problem: Problem::BadPattern,
            });
        }
    }
}

/// Whether the config accepts `value` at `path`, everything else left at its default.
fn accepts(path: &[Seg], value: toml::Value) -> Result<(), toml::de::Error> {
    let mut doc = value;
    for seg in path.iter().rev() {
        doc = match seg {
            Seg::Key(k) => {
                let mut t = toml::Table::new();
                t.insert(k.clone(), doc);
                toml::Value::Table(t)
            }
            Seg::Index(_) => toml::Value::Array(vec![doc]),
        };
    }
    Config::deserialize(doc).map(drop)
}

fn is_unknown_field(e: &toml::de::Error) -> bool {
    e.message().contains("unknown field")
}

/// The known key closest to a misspelt one, from serde's "expected one of" list.
fn closest_known(e: &toml::de::Error, key: &str) -> Option<String> {
    let message = e.message();
    let list = message.split_once("expected")?.1;
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(|k| (edit_distance(k, key), k))
        .filter(|(d, k)| *d <= 2.max(key.len() / 4) || k.starts_with(key) || key.starts_with(k))
        .min()
        .map(|(_, k)| k.to_string())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// What the config wants at `path`, in the user's words: found by offering it one
/// value of each kind.
fn expected_kind(path: &[Seg], err: &toml::de::Error) -> String {
    let message = err.message();
    if let Some((_, variants)) = message.split_once("unknown variant") {
        let names: Vec<&str> = variants
            .split_once("expected")
            .map_or("", |(_, l)| l)
            .split('`')
            .skip(1)
            .step_by(2)
            .collect();
        if !names.is_empty() {
            return format!(
                "one of {}",
                names
                    .iter()
                    .map(|n| format!("\"{n}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    use toml::Value as V;
    let ok = |v: V| accepts(path, v).is_ok();
    if ok(V::Boolean(false)) {
        "true or false".into()
    } else if ok(V::Integer(0)) {
        if ok(V::Integer(-1)) {
            "a whole number".into()
        } else {
            "a whole number, 0 or more".into()
        }
    } else if ok(V::String("deny".into())) || ok(V::String(String::new())) {
        "text (in quotes)".into()
    } else if ok(V::Table(Default::default())) {
        "a table".into()
    } else if ok(V::Array(vec![V::String(String::new())])) {
        "a list of strings, like [\"a\", \"b\"]".into()
    } else if ok(V::Array(Vec::new())) {
        "a list".into()
    } else {
        "something else".into()
    }
}

/// A value as the user wrote it, in words.
fn describe(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => format!("the text \"{s}\""),
        toml::Value::Integer(n) => format!("the number {n}"),
        toml::Value::Float(x) => format!("the number {x}"),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(d) => format!("the date {d}"),
        toml::Value::Array(_) => "a list".into(),
        toml::Value::Table(_) => "a table".into(),
    }
}

/// "rule 2 (\"push\")" for an item of a list of rules.
fn rule_label(path: &[Seg], spans: &Spans) -> String {
    let index = match path.last() {
        Some(Seg::Index(i)) => *i,
        _ => 0,
    };
    match spans.rule_name(path) {
        Some(name) => format!("rule {} (\"{name}\")", index + 1),
        None => format!("rule {}", index + 1),
    }
}

/// Where each key and list item of the file is, for line numbers.
struct Spans {
    root: toml::Value,
}

impl Spans {
    fn new(root: &toml::de::DeTable<'_>) -> Spans {
        Spans {
            root: spanned_tree(&toml::de::DeValue::Table(root.clone()), 0..0),
        }
    }

    /// Follows `path` in the tree of spans: a table maps each key to `[start, value]`.
    fn node(&self, path: &[Seg]) -> Option<(usize, &toml::Value)> {
        let mut node = &self.root;
        let mut start = None;
        for seg in path {
            let entry = match seg {
                Seg::Key(k) => node.get("table")?.get(k.as_str())?,
                Seg::Index(i) => node.get("array")?.get(*i)?,
            };
            start = entry.get("start")?.as_integer();
            node = entry;
        }
        Some((usize::try_from(start?).ok()?, node))
    }

    fn line(&self, text: &str, path: &[Seg]) -> Option<usize> {
        self.node(path).map(|(start, _)| line_of(text, start))
    }

    fn rule_name(&self, path: &[Seg]) -> Option<String> {
        let (_, node) = self.node(path)?;
        node.get("table")?
            .get("name")?
            .get("string")?
            .as_str()
            .map(str::to_string)
    }
}

/// The parsed document as a tree that keeps each key's position: every node is a table
/// with `start` and one of `table`, `array` or `string`.
fn spanned_tree(value: &toml::de::DeValue<'_>, span: std::ops::Range<usize>) -> toml::Value {
    use toml::de::DeValue;
    let mut node = toml::Table::new();
    node.insert("start".into(), toml::Value::Integer(span.start as i64));
    match value {
        DeValue::Table(t) => {
            let mut children = toml::Table::new();
            for (k, v) in t.iter() {
                children.insert(k.get_ref().to_string(), spanned_tree(v.get_ref(), k.span()));
            }
            node.insert("table".into(), toml::Value::Table(children));
        }
        DeValue::Array(items) => {
            let children = items
                .iter()
                .map(|v| spanned_tree(v.get_ref(), v.span()))
                .collect();
            node.insert("array".into(), toml::Value::Array(children));
        }
        DeValue::String(s) => {
            node.insert("string".into(), toml::Value::String(s.to_string()));
        }
        _ => {}
    }
    toml::Value::Table(node)
}

fn line_of(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text.as_bytes()[..offset]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// The line of the `n`th rule (1-based count of occurrences) named `name`.
fn find_name_line(text: &str, name: &str, n: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            l.split_once('=')
                .is_some_and(|(k, v)| k.trim() == "name" && v.trim().trim_matches('"') == name)
        })
        .nth(n - 1)
        .map(|(i, _)| i + 1)
}

impl Config {
    /// Every setting in force, defaults included, as JSON (`nagger doctor`).
    pub fn effective(&self) -> serde_json::Value {
        use serde_json::json;
        let pattern_rule = |r: &crate::rules::PatternRule| {
            json!({
                "name": r.name, "patterns": r.patterns, "exclude": r.exclude,
                "severity": r.severity.as_str(), "token_threshold": r.token_threshold,
                "scope": r.scope, "message": r.message,
            })
        };
        let tool_rule = |r: &crate::rules::ToolRule| {
            json!({
                "name": r.name, "tool": r.tool, "input": r.input,
                "severity": r.severity.as_str(), "token_threshold": r.token_threshold,
                "scope": r.scope, "message": r.message,
            })
        };
        json!({
            "session": self.session,
            "roles": self.roles,
            "role_resolution": self.role_resolution,
            "rules": {
                "file": self.rules.file.iter().map(pattern_rule).collect::<Vec<_>>(),
                "command": self.rules.command.iter().map(pattern_rule).collect::<Vec<_>>(),
                "tool": self.rules.tool.iter().map(tool_rule).collect::<Vec<_>>(),
                "recovery": self.rules.recovery.iter().map(|r| json!({
                    "name": r.name, "tool": r.tool, "error": r.error,
                    "token_threshold": r.token_threshold, "scope": r.scope, "message": r.message,
                })).collect::<Vec<_>>(),
                "after_edit": self.rules.after_edit.iter().map(|r| json!({
                    "name": r.name, "patterns": r.patterns, "exclude": r.exclude,
                    "added": r.added, "severity": r.severity,
                    "token_threshold": r.token_threshold, "scope": r.scope, "message": r.message,
                })).collect::<Vec<_>>(),
                "builtin_recovery": self.rules.builtin_recovery,
            },
            "guard": {
                "enabled": self.guard.enabled,
                "allow": self.guard.allow,
                "deny": self.guard.deny,
                "secrets": self.guard.secrets,
                "shell_tools": self.guard.shell_tools,
            },
            "context": self.context,
            "compress": self.compress,
            "log": self.log,
        })
    }

    /// The configured conventions of a subagent: `roles.<role>`, then
    /// `roles.<agent_type>`, then `roles.default`. None when disabled or empty.
    pub fn role_conventions(
        &self,
        role: Option<&str>,
        agent_type: &str,
    ) -> Option<(&str, &RoleConfig)> {
        let candidates = [role, Some(agent_type)];
        for name in candidates.into_iter().flatten() {
            if let Some((key, rc)) = self.roles.get_key_value(name) {
                return (rc.enabled && !rc.text.trim().is_empty()).then_some((key.as_str(), rc));
            }
        }
        self.roles
            .get("default")
            .filter(|rc| rc.enabled && !rc.text.trim().is_empty())
            .map(|rc| ("default", rc))
    }
}

/// The dotted key a rule problem is about, e.g. `rules.file[views].patterns`.
fn rule_error_key(e: &crate::rules::RuleError) -> String {
    use crate::rules::RuleError;
    match e {
        RuleError::EmptyName { table, index } => format!("{table}[{index}].name"),
        RuleError::DuplicateName { table, name } => format!("{table}[{name}].name"),
        RuleError::BadGlob {
            table, rule, key, ..
        }
        | RuleError::BadRegex {
            table, rule, key, ..
        } => {
            format!("{table}[{rule}].{key}")
        }
    }
}

/// Best-effort line of a dotted key such as `rules.file[views].patterns`: the line
/// of its last component, or of the rule's name.
fn find_key_line(text: &str, key: &str) -> Option<usize> {
    let needle = key
        .rsplit('.')
        .next()
        .unwrap_or(key)
        .split('[')
        .next()
        .unwrap_or(key);
    let rule_name = key
        .split_once('[')
        .and_then(|(_, r)| r.split_once(']'))
        .map(|(n, _)| n);
    let after = rule_name
        .and_then(|name| {
            text.lines().position(|l| {
                l.split_once('=')
                    .is_some_and(|(k, v)| k.trim() == "name" && v.trim().trim_matches('"') == name)
            })
        })
        .unwrap_or(0);
    text.lines()
        .enumerate()
        .skip(after)
        .find(|(_, l)| l.split_once('=').is_some_and(|(k, _)| k.trim() == needle))
        .map(|(i, _)| i + 1)
        .or(rule_name.map(|_| after + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = include_str!("../docs/example-config.toml");

    #[test]
    fn example_config_loads_as_is_with_its_meanings() {
        let c = parse(EXAMPLE, Path::new("config.toml")).expect("the example loads");
        assert_eq!(c.session.delivery, Delivery::Deny);
        assert_eq!(c.session.token_threshold, 50_000);
        assert_eq!(c.session.first_time.title, "Project conventions");
        assert!(!c.roles["Explore"].enabled);
        assert_eq!(c.roles["coder"].text, "Run the tests before you report.");
        assert_eq!(c.role_resolution.prefixes["qa"], "tester");
        assert_eq!(c.rules.file.len(), 1);
        assert_eq!(c.rules.command.len(), 1);
        assert_eq!(c.rules.tool.len(), 1);
        assert_eq!(c.guard.deny, vec!["terraform destroy*".to_string()]);
        assert_eq!(c.context.filters["navigator"], Vec::<String>::new());
        assert_eq!(c.compress.reviewer_max_lines, 20);
        assert_eq!(c.log.retention_days, 30);
    }

    #[test]
    fn template_loads_and_matches_defaults_where_it_says_so() {
        let c = parse(TEMPLATE, Path::new("config.toml")).expect("template loads");
        assert_eq!(
            c.context.max_summary_chars,
            ContextConfig::default().max_summary_chars
        );
    }

    /// The keys a config table accepts, read from serde's answer to one it does not.
    fn known_keys<T: serde::de::DeserializeOwned>() -> Vec<String> {
        let err = toml::from_str::<T>("not_a_key_of_this_table = 1")
            .err()
            .unwrap();
        let msg = err.message().to_string();
        let list = msg.split_once("expected").unwrap().1;
        list.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn effective_settings_show_every_key_of_every_table() {
        let c = Config::default();
        let e = c.effective();
        let keys = |v: &serde_json::Value| {
            let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
            k.sort();
            k
        };
        let sorted = |mut v: Vec<String>| {
            v.sort();
            v
        };
        assert_eq!(keys(&e), sorted(known_keys::<Config>()));
        assert_eq!(
            keys(&e["guard"]),
            sorted(known_keys::<crate::rules::GuardConfig>())
        );
        assert_eq!(keys(&e["context"]), sorted(known_keys::<ContextConfig>()));
        let text = "[[rules.command]]\nname = \"a\"\n[[rules.tool]]\nname = \"b\"\n";
        let e = parse(text, Path::new("c.toml")).unwrap().effective();
        assert_eq!(
            keys(&e["rules"]["command"][0]),
            sorted(known_keys::<crate::rules::PatternRule>())
        );
        assert_eq!(
            keys(&e["rules"]["tool"][0]),
            sorted(known_keys::<crate::rules::ToolRule>())
        );
        assert_eq!(
            keys(&e["rules"]),
            sorted(known_keys::<crate::rules::RulesConfig>())
        );
        let text = "[[rules.recovery]]\nname = \"a\"\n[[rules.after_edit]]\nname = \"b\"\n";
        let e = parse(text, Path::new("c.toml")).unwrap().effective();
        assert_eq!(
            keys(&e["rules"]["recovery"][0]),
            sorted(known_keys::<crate::rules::RecoveryRule>())
        );
        assert_eq!(
            keys(&e["rules"]["after_edit"][0]),
            sorted(known_keys::<crate::rules::AfterEditRule>())
        );
        assert_eq!(e["rules"]["builtin_recovery"], true);
    }

    #[test]
    fn a_bad_recovery_or_after_edit_rule_is_left_out_alone() {
        let text = r#"
[rules]
builtin_recovery = false

[[rules.recovery]]
name = "lock"
error = "file lock"
message = "wait"

[[rules.recovery]]
name = "broken"
error = 5

[[rules.after_edit]]
name = "what comments"
patterns = ["**/*.rs"]
added = ["// increment"]
severity = "ask"

[[rules.after_edit]]
name = "todo"
added = ["TODO", "("]
severity = "block"
"#;
        let (c, errs) = lenient(text);
        assert!(!c.rules.builtin_recovery);
        let names = |v: Vec<&str>| v.into_iter().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(
            c.rules
                .recovery
                .iter()
                .map(|r| r.name.clone())
                .collect::<Vec<_>>(),
            names(vec!["lock"])
        );
        assert_eq!(
            c.rules
                .after_edit
                .iter()
                .map(|r| r.name.clone())
                .collect::<Vec<_>>(),
            names(vec!["todo"])
        );
        let text_of = |key: &str| {
            errs.iter()
                .find(|e| e.key.as_deref() == Some(key))
                .map(|e| (e.line, e.to_string()))
                .unwrap_or_else(|| panic!("no error for {key}: {errs:#?}"))
        };
        assert_eq!(text_of("rules.recovery[2].error").0, Some(12));
        assert_eq!(text_of("rules.after_edit[1].severity").0, Some(18));
        let (_, bad_regex) = text_of("rules.after_edit[todo].added[1]");
        assert!(bad_regex.contains("added[1] `(`"), "{bad_regex}");
    }

    fn lenient(text: &str) -> (Config, Vec<ConfigError>) {
        parse_lenient(text, Path::new("c.toml"), Validation::Full)
    }

    #[test]
    fn unknown_key_is_a_warning_with_line_key_and_suggestion() {
        let text = "[session]\nenabled = true\ntoken_treshold = 5\n";
        let (config, errs) = lenient(text);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].line, Some(3));
        assert_eq!(errs[0].key.as_deref(), Some("session.token_treshold"));
        assert_eq!(errs[0].problem, Problem::UnknownKey);
        assert_eq!(
            errs[0].to_string(),
            "c.toml:3: `session.token_treshold`: unknown key, ignored (did you mean `token_threshold`?)"
        );
        assert!(config.session.enabled);
        assert!(
            parse(text, Path::new("c.toml")).is_err(),
            "strict parse refuses"
        );
    }

    #[test]
    fn a_typo_keeps_every_other_section_and_rule() {
        let text = r#"
[context]
ttl_hour = 1
max_entry_chars = 99

[[rules.command]]
name = "no push"
patterns = ["git push*"]
severity = "deny"

[guard]
deny = ["terraform destroy*"]
"#;
        let (c, errs) = lenient(text);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].line, Some(3));
        assert!(
            errs[0].message.contains("did you mean `ttl_hours`"),
            "{}",
            errs[0]
        );
        assert_eq!(c.context.max_entry_chars, 99);
        assert_eq!(c.context.ttl_hours, ContextConfig::default().ttl_hours);
        assert_eq!(c.rules.command.len(), 1);
        assert_eq!(c.rules.command[0].severity, crate::rules::Severity::Deny);
        assert_eq!(c.guard.deny, vec!["terraform destroy*".to_string()]);
    }

    #[test]
    fn wrong_type_keeps_the_default_and_says_so_in_words() {
        let text = "[context]\nmax_summary_chars = \"big\"\nmax_entry_chars = 7\n";
        let (c, errs) = lenient(text);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(errs[0].line, Some(2));
        assert_eq!(errs[0].key.as_deref(), Some("context.max_summary_chars"));
        assert_eq!(
            errs[0].message,
            "must be a whole number, 0 or more, not the text \"big\"; the default applies"
        );
        assert_eq!(c.context.max_entry_chars, 7);
        assert_eq!(c.context.max_summary_chars, 4000);
        for (text, words) in [
            ("[session]\nenabled = 1\n", "true or false"),
            (
                "[session]\ndelivery = \"Deny\"\n",
                "one of \"deny\", \"context\"",
            ),
            ("[guard]\ndeny = \"rm *\"\n", "a list of strings"),
            ("[compress]\nmarker = 3\n", "text (in quotes)"),
            ("session = 3\n", "a table"),
        ] {
            let (_, errs) = lenient(text);
            assert!(errs[0].message.contains(words), "{text:?}: {}", errs[0]);
            for rust in ["u64", "usize", "bool", "sequence", "struct", "variant"] {
                assert!(!errs[0].message.contains(rust), "{text:?}: {}", errs[0]);
            }
        }
    }

    #[test]
    fn a_bad_rule_is_left_out_alone() {
        let text = r#"
[[rules.command]]
name = "push"
patterns = ["git push*"]
severity = "nope"

[[rules.command]]
name = "rm"
patterns = ["rm *", 3]
severity = "deny"
colour = "red"

[guard]
deny = ["a*", 5, "b*"]
"#;
        let (c, errs) = lenient(text);
        assert_eq!(c.rules.command.len(), 1, "{errs:#?}");
        assert_eq!(c.rules.command[0].name, "rm");
        assert_eq!(c.rules.command[0].patterns, vec!["rm *".to_string()]);
        assert_eq!(c.guard.deny, vec!["a*".to_string(), "b*".to_string()]);
        let text_of = |key: &str| {
            errs.iter()
                .find(|e| e.key.as_deref() == Some(key))
                .map(|e| (e.line, e.message.clone()))
                .unwrap_or_else(|| panic!("{key}: {errs:#?}"))
        };
        assert_eq!(text_of("rules.command[1].severity").0, Some(5));
        assert!(
            text_of("rules.command[1]")
                .1
                .contains("rule 1 (\"push\") is left out")
        );
        assert_eq!(text_of("rules.command[2].patterns[2]").0, Some(9));
        assert_eq!(text_of("rules.command[2].colour").0, Some(11));
        assert_eq!(text_of("guard.deny[2]").0, Some(14));
    }

    #[test]
    fn nameless_and_duplicate_rules_stay_in_force_under_their_position() {
        let text = r#"
[[rules.command]]
patterns = ["a*"]
severity = "deny"
[[rules.command]]
name = "x"
patterns = ["b*"]
[[rules.command]]
name = "x"
patterns = ["c*"]
severity = "deny"
"#;
        let (c, errs) = lenient(text);
        let names: Vec<&str> = c.rules.command.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["rules.command #1", "x", "x #3"]);
        assert_eq!(errs.len(), 2, "{errs:#?}");
        assert_eq!(errs[1].line, Some(9));
        assert!(crate::rules::RuleSet::compile(&c.rules, &c.guard).is_ok());
    }

    #[test]
    fn bad_patterns_are_named_and_never_switch_the_rest_off() {
        let text = "[guard]\ndeny = [\"a[\", \"b*\"]\n";
        let (c, errs) = lenient(text);
        assert_eq!(c.guard.deny.len(), 2);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].problem, Problem::BadPattern);
        assert_eq!(errs[0].line, Some(2));
        let (_, quick) = parse_lenient(text, Path::new("c.toml"), Validation::Quick);
        assert!(
            quick.is_empty(),
            "the hook compiles patterns when first used"
        );
    }

    #[test]
    fn broken_toml_keeps_what_can_be_read() {
        let text = "[guard]\ndeny = [\"x*\"]\n\n[context]\nttl_hours = = 3\n";
        let (c, errs) = lenient(text);
        assert_eq!(c.guard.deny, vec!["x*".to_string()]);
        assert!(
            errs.iter()
                .any(|e| e.problem == Problem::Unreadable && e.line == Some(5)),
            "{errs:#?}"
        );
    }

    #[test]
    fn out_of_range_values_go_back_to_their_default() {
        let (c, errs) = lenient("[context]\nmax_summary_chars = 0\n");
        assert_eq!(c.context.max_summary_chars, 4000);
        assert_eq!(errs[0].line, Some(2));
    }

    #[test]
    fn missing_file_gives_defaults_and_says_absent() {
        let l = LoadedConfig::load(Path::new("/nonexistent/nagger/config.toml"));
        assert!(!l.present);
        assert!(l.errors.is_empty());
        assert!(l.config.guard.enabled);
    }

    #[test]
    fn role_conventions_resolve_role_then_type_then_default() {
        let c = parse(EXAMPLE, Path::new("c.toml")).unwrap();
        assert_eq!(
            c.role_conventions(Some("coder"), "general").unwrap().0,
            "coder"
        );
        assert_eq!(c.role_conventions(None, "coder").unwrap().0, "coder");
        assert_eq!(
            c.role_conventions(Some("tester"), "qa").unwrap().0,
            "default"
        );
        assert!(
            c.role_conventions(None, "Explore").is_none(),
            "disabled type is never nagged"
        );
    }
}
