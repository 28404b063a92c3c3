//! The lenient reading of a config with mistakes: parsed again with positions, every
//! entry kept that deserializes on its own, unknown keys and bad values reported and
//! left out.

use super::error::{ConfigError, Problem};
use super::types::Config;
use serde::Deserialize;
use std::fmt::Write as _;
use std::path::Path;

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
            Seg::Index(i) => {
                let _ = write!(out, "[{}]", i + 1);
            }
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

pub(super) struct Sift<'a> {
    pub(super) text: &'a str,
    pub(super) file: &'a Path,
    pub(super) errors: Vec<ConfigError>,
}

impl Sift<'_> {
    fn report(&mut self, path: &[Seg], spans: &Spans, problem: Problem, message: String) {
        self.errors.push(ConfigError {
            file: self.file.to_path_buf(),
            line: spans.line(self.text, path),
            key: (!path.is_empty()).then(|| dotted(path)),
            message,
            problem,
            may_weaken: may_weaken(path, spans),
        });
    }

    /// The slow path: parse with positions, recovering past syntax errors, and keep
    /// every entry that deserializes on its own.
    pub(super) fn whole_file(&mut self) -> Config {
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
                may_weaken: true,
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
                    &spans,
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
        if let Some(probe) = unknown_here(path) {
            let key = match path.last() {
                Some(Seg::Key(k)) => k.as_str(),
                _ => "",
            };
            let message = match closest_known(&probe, key) {
                Some(known) => format!("unknown key, ignored (did you mean `{known}`?)"),
                None => "unknown key, ignored".to_string(),
            };
            self.report(path, spans, Problem::UnknownKey, message);
            return Err(Rejected::Unknown);
        }
        match value {
            toml::Value::Table(table)
                if accepts(path, toml::Value::Table(toml::Table::new())).is_ok() =>
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
                    && accepts(path, toml::Value::Table(toml::Table::new())).is_err() =>
            {
                let of_tables = items.iter().all(toml::Value::is_table);
                let mut kept = Vec::new();
                for (i, item) in items.into_iter().enumerate() {
                    let mut item_path = path.to_vec();
                    item_path.push(Seg::Index(i));
                    if of_tables && !in_rule {
                        if let Ok(v) = self.sift(&item_path, item, spans, true) {
                            kept.push(v);
                        } else {
                            let what = rule_label(&item_path, spans);
                            self.report(
                                &item_path,
                                spans,
                                Problem::BadValue,
                                format!("{what} is left out because of the problem above; the other rules apply"),
                            );
                        }
                    } else if let Err(e) = accepts(&item_path, item.clone()) {
                        let kind = expected_kind(&item_path, &e);
                        self.report(
                            &item_path,
                            spans,
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
                    spans,
                    Problem::BadValue,
                    format!("must be {kind}, not {}{fallback}", describe(&other)),
                );
                Err(Rejected::Bad)
            }
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

/// The error that says the last key of `path` is not one the config knows, if it is not:
/// probed with a value no known key could take for a table, so that the answer is about
/// this key and never about one inside its value (`[[rules.command]]` with a misspelt key
/// is a known list holding an unknown key, not an unknown list).
fn unknown_here(path: &[Seg]) -> Option<toml::de::Error> {
    let Some(Seg::Key(key)) = path.last() else {
        return None;
    };
    let err = accepts(path, toml::Value::Boolean(false)).err()?;
    (unknown_field(&err) == Some(key.as_str())).then_some(err)
}

/// The key serde's "unknown field `x`, expected …" names.
fn unknown_field(e: &toml::de::Error) -> Option<&str> {
    let rest = e.message().split_once("unknown field `")?.1;
    rest.split_once('`').map(|(key, _)| key)
}

/// Whether a problem at `path` may take away something that refuses or asks (see
/// [`ConfigError::may_weaken`]): anything in `[guard]`; in `[rules]`, anything but the
/// recovery hints and `builtin_recovery`, and in a rule, only when the rule as written is
/// not a warning (its `severity`, else the default of its table).
fn may_weaken(path: &[Seg], spans: &Spans) -> bool {
    let key = |i: usize| match path.get(i) {
        Some(Seg::Key(k)) => Some(k.as_str()),
        _ => None,
    };
    match (key(0), key(1)) {
        (Some("guard"), _) | (Some("rules"), None) => true,
        (Some("rules"), Some("recovery" | "builtin_recovery")) => false,
        (Some("rules"), Some(table)) => match path.get(2) {
            Some(Seg::Index(_)) => {
                let default = if table == "after_edit" {
                    "warn"
                } else {
                    "block"
                };
                spans.rule_string(&path[..3], "severity").as_deref() != Some("warn")
                    && (spans.rule_has(&path[..3], "severity") || default != "warn")
            }
            _ => true,
        },
        _ => false,
    }
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
    } else if ok(V::Table(toml::Table::new())) {
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
        self.rule_string(path, "name")
    }

    /// The text the table at `path` holds under `key`, as written.
    fn rule_string(&self, path: &[Seg], key: &str) -> Option<String> {
        let (_, node) = self.node(path)?;
        node.get("table")?
            .get(key)?
            .get("string")?
            .as_str()
            .map(str::to_string)
    }

    /// Whether the table at `path` has `key`, whatever its value.
    fn rule_has(&self, path: &[Seg], key: &str) -> bool {
        self.node(path)
            .and_then(|(_, node)| node.get("table")?.get(key))
            .is_some()
    }
}

/// The parsed document as a tree that keeps each key's position: every node is a table
/// with `start` and one of `table`, `array` or `string`.
fn spanned_tree(value: &toml::de::DeValue<'_>, span: std::ops::Range<usize>) -> toml::Value {
    use toml::de::DeValue;
    let mut node = toml::Table::new();
    node.insert(
        "start".into(),
        toml::Value::Integer(crate::base::num::to_i64(span.start)),
    );
    match value {
        DeValue::Table(t) => {
            let mut children = toml::Table::new();
            for (k, v) in t {
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
    memchr::memchr_iter(b'\n', &text.as_bytes()[..offset]).count() + 1
}

/// The line of the `n`th rule (1-based count of occurrences) named `name`.
pub(super) fn find_name_line(text: &str, name: &str, n: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            l.split_once('=')
                .is_some_and(|(k, v)| k.trim() == "name" && v.trim().trim_matches('"') == name)
        })
        .nth(n - 1)
        .map(|(i, _)| i + 1)
}
