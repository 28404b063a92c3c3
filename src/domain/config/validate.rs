//! What serde cannot check: values in range, one name per rule, patterns that
//! compile. Each problem is repaired or reported, never fatal.

use super::error::{ConfigError, Problem};
use super::sift::{Sift, find_name_line};
use super::types::{CompressConfig, Config, ContextConfig};
use crate::domain::rules::{EditSeverity, Severity};

impl Sift<'_> {
    /// What serde cannot check: values in range. A bad one goes back to its default.
    pub(super) fn check_values(&mut self, config: &mut Config) {
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
            may_weaken: false,
        });
    }

    /// A rule is known by its name (once-per-session bookkeeping), so each needs one of
    /// its own. A rule without a name, or with one taken, is kept under its position:
    /// a mistake in a name never switches a rule off.
    pub(super) fn repair_rule_names(&mut self, config: &mut Config) {
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
                may_weaken: false,
            });
        }
    }

    /// Every glob and regex, compiled: a bad one never matches (the rest of its rule does).
    /// And every rule that can never fire, because what it matches on is empty (a
    /// misspelt `patterns`, say).
    pub(super) fn check_patterns(&mut self, config: &Config) {
        self.check_rules_can_fire(config);
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
            if let Err(e) = crate::domain::compress::type_glob(pattern) {
                found.push((
                    key.to_string(),
                    format!("`{pattern}` is not a valid glob ({e}); it never matches"),
                    false,
                ));
            }
        }
        for e in config
            .rules
            .validate()
            .into_iter()
            .chain(config.guard.validate())
        {
            use crate::domain::rules::RuleError;
            if matches!(
                e,
                RuleError::EmptyName { .. } | RuleError::DuplicateName { .. }
            ) {
                continue; // repaired in repair_rule_names
            }
            let refuses = match &e {
                RuleError::BadGlob { table, rule, .. }
                | RuleError::BadRegex { table, rule, .. } => rule_refuses(config, table, rule),
                _ => true,
            };
            found.push((
                rule_error_key(&e),
                format!("{e}; it never matches"),
                refuses,
            ));
        }
        for (key, message, may_weaken) in found {
            self.errors.push(ConfigError {
                file: self.file.to_path_buf(),
                line: find_key_line(self.text, &key),
                key: Some(key),
                message,
                problem: Problem::BadPattern,
                may_weaken,
            });
        }
    }

    /// A file or command rule without `patterns`, or an after-edit rule without `added`,
    /// matches nothing: it is in force and never fires.
    fn check_rules_can_fire(&mut self, config: &Config) {
        let rules = &config.rules;
        let pattern_rules = [
            ("rules.file", &rules.file),
            ("rules.command", &rules.command),
        ];
        let mut empty: Vec<(String, &str, &str, bool)> = Vec::new();
        for (table, list) in pattern_rules {
            for (i, rule) in list.iter().enumerate() {
                if rule.patterns.is_empty() {
                    let refuses = rule.severity != Severity::Warn;
                    empty.push((
                        format!("{table}[{}]", i + 1),
                        &rule.name,
                        "patterns",
                        refuses,
                    ));
                }
            }
        }
        for (i, rule) in rules.after_edit.iter().enumerate() {
            if rule.added.is_empty() {
                let refuses = rule.severity != EditSeverity::Warn;
                empty.push((
                    format!("rules.after_edit[{}]", i + 1),
                    &rule.name,
                    "added",
                    refuses,
                ));
            }
        }
        for (at, name, key, may_weaken) in empty {
            self.errors.push(ConfigError {
                file: self.file.to_path_buf(),
                line: find_name_line(self.text, name, 1),
                key: Some(format!("{at}.{key}")),
                message: format!(
                    "rule \"{name}\" has no `{key}`, so it never fires; give it `{key} = [...]`"
                ),
                problem: Problem::BadValue,
                may_weaken,
            });
        }
    }
}

/// Whether the rule `rule` of `table` (or the guard's settings) refuses or asks when it
/// fires: what a bad pattern in it takes away.
fn rule_refuses(config: &Config, table: &str, rule: &str) -> bool {
    let rules = &config.rules;
    let pattern = |list: &[crate::domain::rules::PatternRule]| {
        list.iter()
            .find(|r| r.name == rule)
            .is_none_or(|r| r.severity != Severity::Warn)
    };
    match table {
        "rules.file" => pattern(&rules.file),
        "rules.command" => pattern(&rules.command),
        "rules.tool" => rules
            .tool
            .iter()
            .find(|r| r.name == rule)
            .is_none_or(|r| r.severity != Severity::Warn),
        "rules.after_edit" => rules
            .after_edit
            .iter()
            .find(|r| r.name == rule)
            .is_none_or(|r| r.severity != EditSeverity::Warn),
        "rules.recovery" => false,
        // The guard's own settings.
        _ => true,
    }
}

/// The dotted key a rule problem is about, e.g. `rules.file[views].patterns`.
fn rule_error_key(e: &crate::domain::rules::RuleError) -> String {
    use crate::domain::rules::RuleError;
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
