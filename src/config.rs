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

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Delivery {
    /// Refuse the first tool call with the conventions as the reason.
    #[default]
    Deny,
    /// Add the conventions as additionalContext without refusing the call.
    Context,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
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

#[derive(Debug, Clone, Deserialize)]
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

#[derive(Debug, Clone, Deserialize)]
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

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RoleResolution {
    /// agent_type (or tag) prefix -> role; the longest matching prefix wins.
    pub prefixes: BTreeMap<String, String>,
    /// exact name -> role, checked before prefixes.
    pub aliases: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize)]
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

#[derive(Debug, Clone, Deserialize)]
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

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    pub retention_days: u64,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig { retention_days: 30 }
    }
}

/// A problem in the config file, located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub file: PathBuf,
    pub line: Option<usize>,
    pub key: Option<String>,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(key) = &self.key {
            write!(f, ": key `{key}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The config in force, and what was wrong with the file if anything.
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
    /// Reads `path` with quick validation. A missing file gives the defaults; an
    /// invalid one the defaults plus its errors.
    pub fn load(path: &Path) -> LoadedConfig {
        LoadedConfig::load_with(path, Validation::Quick)
    }

    /// Reads `path` and checks every pattern in it too.
    pub fn load_full(path: &Path) -> LoadedConfig {
        LoadedConfig::load_with(path, Validation::Full)
    }

    fn load_with(path: &Path, validation: Validation) -> LoadedConfig {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let (config, errors) = match parse_with(&text, path, validation) {
                    Ok(c) => (c, Vec::new()),
                    Err(errors) => (Config::default(), errors),
                };
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
                    message: format!("cannot read: {e}"),
                }],
            },
        }
    }
}

/// Parses and fully validates config text; `file` only labels errors.
pub fn parse(text: &str, file: &Path) -> Result<Config, Vec<ConfigError>> {
    parse_with(text, file, Validation::Full)
}

fn parse_with(text: &str, file: &Path, validation: Validation) -> Result<Config, Vec<ConfigError>> {
    let config: Config = toml::from_str(text).map_err(|e| {
        let (line, key) = match e.span() {
            Some(span) => locate(text, span.start),
            None => (None, None),
        };
        vec![ConfigError {
            file: file.to_path_buf(),
            line,
            key,
            message: e.message().trim().to_string(),
        }]
    })?;
    let errors: Vec<ConfigError> = config
        .validate(validation)
        .into_iter()
        .map(|(key, message)| ConfigError {
            file: file.to_path_buf(),
            line: find_key_line(text, &key),
            key: Some(key),
            message,
        })
        .collect();
    if errors.is_empty() {
        Ok(config)
    } else {
        Err(errors)
    }
}

impl Config {
    /// Checks what serde cannot: values in range, and with `Validation::Full` every
    /// glob and regex. Returns (key, problem).
    pub fn validate(&self, validation: Validation) -> Vec<(String, String)> {
        let mut problems = Vec::new();
        if self.context.max_summary_chars == 0 {
            problems.push((
                "context.max_summary_chars".into(),
                "must be greater than 0".into(),
            ));
        }
        if self.context.max_entry_chars == 0 {
            problems.push((
                "context.max_entry_chars".into(),
                "must be greater than 0".into(),
            ));
        }
        if self.compress.enabled && self.compress.marker.trim().is_empty() {
            problems.push(("compress.marker".into(), "must not be empty".into()));
        }
        if validation == Validation::Full {
            for (key, pattern) in self
                .compress
                .types
                .iter()
                .map(|p| ("compress.types", p))
                .chain(
                    self.compress
                        .reviewer_types
                        .iter()
                        .map(|p| ("compress.reviewer_types", p)),
                )
            {
                if let Err(e) = globset::Glob::new(pattern) {
                    problems.push((key.into(), format!("bad glob {pattern:?}: {e}")));
                }
            }
            problems.extend(
                self.rules
                    .validate()
                    .into_iter()
                    .chain(self.guard.validate())
                    .map(|e| (rule_error_key(&e), e.to_string())),
            );
        }
        problems
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

/// Line (1-based) of a byte offset and the key written on that line, if any.
fn locate(text: &str, offset: usize) -> (Option<usize>, Option<String>) {
    let offset = offset.min(text.len());
    let line_no = text[..offset].bytes().filter(|b| *b == b'\n').count() + 1;
    let line = text.lines().nth(line_no - 1).unwrap_or("");
    let key = line
        .split_once('=')
        .map(|(k, _)| k.trim().trim_matches('"').to_string())
        .filter(|k| !k.is_empty() && !k.starts_with('['))
        .or_else(|| {
            let t = line.trim();
            t.starts_with('[')
                .then(|| t.trim_matches(|c| c == '[' || c == ']').to_string())
        });
    (Some(line_no), key)
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

    const SPEC_EXAMPLE: &str = include_str!("../tests/fixtures/spec_config.toml");

    #[test]
    fn spec_example_loads_as_is_with_its_meanings() {
        let c = parse(SPEC_EXAMPLE, Path::new("config.toml")).expect("spec example loads");
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

    #[test]
    fn unknown_key_is_reported_with_line_and_key() {
        let text = "[session]\nenabled = true\ntoken_treshold = 5\n";
        let errs = parse(text, Path::new("c.toml")).unwrap_err();
        assert_eq!(errs[0].line, Some(3));
        assert_eq!(errs[0].key.as_deref(), Some("token_treshold"));
        assert!(
            errs[0]
                .to_string()
                .starts_with("c.toml:3: key `token_treshold`"),
            "{}",
            errs[0]
        );
    }

    #[test]
    fn wrong_type_is_reported_with_line_and_key() {
        let text = "[context]\nmax_summary_chars = \"big\"\n";
        let errs = parse(text, Path::new("c.toml")).unwrap_err();
        assert_eq!(errs[0].line, Some(2));
        assert_eq!(errs[0].key.as_deref(), Some("max_summary_chars"));
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
        let c = parse(SPEC_EXAMPLE, Path::new("c.toml")).unwrap();
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
