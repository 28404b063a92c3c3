//! Writing an import into config.toml without overwriting what the user set: a key that
//! is missing, or still holds the template's value, takes the imported value; one the
//! user changed to something else is a conflict, and then nothing is written. A rule of
//! the same name must be the same rule. Comments and layout of the file are kept.

use super::types::{Imported, Rule, STAMP_PREFIX, toml_key};
use toml_edit::{Array, ArrayOfTables, DocumentMut, Item, Table, TableLike, Value};

/// A key the user set to something else than the import would.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub key: String,
    pub existing: String,
    pub imported: String,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: config.toml has {}, the import would set {}",
            self.key, self.existing, self.imported
        )
    }
}

/// The new config.toml text and what changed in it.
#[derive(Debug, Clone)]
pub struct Merged {
    pub text: String,
    /// One line per key set or rule added.
    pub changes: Vec<String>,
}

/// Merges `imported` into `existing` (or, with no config.toml yet, into `template`).
pub fn merge(
    existing: Option<&str>,
    template: &str,
    imported: &Imported,
) -> Result<Merged, Vec<Conflict>> {
    let parse = |text: &str, what: &str| {
        text.parse::<DocumentMut>().map_err(|e| {
            vec![Conflict {
                key: what.to_string(),
                existing: format!("text that is not TOML ({})", e.to_string().trim()),
                imported: "anything: fix the file first".into(),
            }]
        })
    };
    let mut doc = parse(existing.unwrap_or(template), "config.toml")?;
    let template = parse(template, "the template")?;
    let mut m = Merger {
        template: template.as_table(),
        changes: Vec::new(),
        conflicts: Vec::new(),
    };
    let root = doc.as_table_mut();
    if let Some(enabled) = imported.session_enabled {
        m.set(root, &["session", "enabled"], Value::from(enabled));
    }
    if let Some(n) = imported.session_token_threshold {
        m.set(root, &["session", "token_threshold"], int(n));
    }
    for (which, message) in [
        ("first_time", &imported.first_time),
        ("repeated", &imported.repeated),
    ] {
        if let Some(message) = message {
            m.set(
                root,
                &["session", which, "title"],
                Value::from(message.title.as_str()),
            );
            m.set(root, &["session", which, "text"], text(&message.text));
        }
    }
    for (name, role) in &imported.roles {
        if !role.enabled {
            m.set(root, &["roles", name, "enabled"], Value::from(false));
        }
        if let Some(message) = &role.message {
            m.set(
                root,
                &["roles", name, "title"],
                Value::from(message.title.as_str()),
            );
            m.set(root, &["roles", name, "text"], text(&message.text));
        }
    }
    for (prefix, role) in &imported.prefixes {
        m.set(
            root,
            &["role_resolution", "prefixes", prefix],
            Value::from(role.as_str()),
        );
    }
    for rule in &imported.rules {
        m.add_rule(root, rule);
    }
    if !m.conflicts.is_empty() {
        return Err(m.conflicts);
    }
    let body = doc.to_string();
    let stamp = format!("{STAMP_PREFIX} {}", imported.stamp);
    let mut lines: Vec<&str> = body.lines().collect();
    let had = lines.iter().position(|l| l.starts_with(STAMP_PREFIX));
    let stamp_changed = had.is_none_or(|i| lines[i] != stamp);
    match had {
        Some(i) => lines[i] = &stamp,
        None => lines.insert(0, &stamp),
    }
    let mut text = lines.join("\n");
    text.push('\n');
    let mut changes = m.changes;
    if stamp_changed && !changes.is_empty() {
        changes.push("mark config.toml with the files imported (for `nagger doctor`)".into());
    }
    Ok(Merged {
        text: if changes.is_empty() && !stamp_changed {
            existing.unwrap_or(&text).to_string()
        } else {
            text
        },
        changes,
    })
}

fn int(n: u64) -> Value {
    Value::from(i64::try_from(n).unwrap_or(i64::MAX))
}

/// A text, as a multi-line string when it has lines.
fn text(s: &str) -> Value {
    Value::from(s)
}

struct Merger<'t> {
    template: &'t Table,
    changes: Vec<String>,
    conflicts: Vec<Conflict>,
}

impl Merger<'_> {
    /// Sets `path` to `value`, creating the tables on the way.
    fn set(&mut self, root: &mut Table, path: &[&str], value: Value) {
        let key = path_name(path);
        let (last, parents) = path.split_last().expect("a key");
        let mut table: &mut dyn TableLike = root;
        for part in parents {
            if table.get(part).is_none() {
                let mut t = Table::new();
                t.set_implicit(true);
                table.insert(part, Item::Table(t));
            }
            let Some(next) = table.get_mut(part).and_then(Item::as_table_like_mut) else {
                self.conflicts.push(Conflict {
                    key: key.clone(),
                    existing: format!("`{part}` as a value, not a table"),
                    imported: value.to_string().trim().to_string(),
                });
                return;
            };
            table = next;
        }
        let template = lookup(self.template, path);
        match table.get_mut(last) {
            None => {
                table.insert(last, Item::Value(value));
                self.changes.push(format!("set {key}"));
            }
            Some(Item::Value(current)) => {
                if same(current, &value) {
                    return;
                }
                if template.is_some_and(|t| same(current, t)) {
                    let decor = current.decor().clone();
                    *current = value;
                    *current.decor_mut() = decor;
                    self.changes.push(format!("set {key} (was the template's)"));
                } else {
                    self.conflicts.push(Conflict {
                        key,
                        existing: shown(current),
                        imported: shown(&value),
                    });
                }
            }
            Some(_) => self.conflicts.push(Conflict {
                key,
                existing: "a table".into(),
                imported: shown(&value),
            }),
        }
    }

    fn add_rule(&mut self, root: &mut Table, rule: &Rule) {
        let key = format!("[[rules.{}]] {:?}", rule.table, rule.name);
        let rules = root
            .entry("rules")
            .or_insert_with(|| {
                let mut t = Table::new();
                t.set_implicit(true);
                Item::Table(t)
            })
            .as_table_like_mut();
        let Some(rules) = rules else {
            self.conflicts.push(Conflict {
                key,
                existing: "`rules` that is not a table".into(),
                imported: "a rule".into(),
            });
            return;
        };
        let list = rules
            .entry(rule.table)
            .or_insert(Item::ArrayOfTables(ArrayOfTables::new()));
        let Some(list) = list.as_array_of_tables_mut() else {
            self.conflicts.push(Conflict {
                key,
                existing: format!("rules.{} written inline", rule.table),
                imported: "[[…]] tables (write the rules as [[rules.…]] to import into them)"
                    .into(),
            });
            return;
        };
        let mut table = rule_table(rule);
        // After everything already in the file, in the order imported.
        table.set_position(Some(
            isize::MAX / 2 + isize::try_from(self.changes.len()).unwrap_or(0),
        ));
        if let Some(existing) = list
            .iter()
            .find(|t| t.get("name").and_then(Item::as_str) == Some(rule.name.as_str()))
        {
            let differs: Vec<&str> = table
                .iter()
                .filter(|(k, v)| {
                    let theirs = existing.get(k).and_then(Item::as_value);
                    match (theirs, v.as_value()) {
                        (Some(a), Some(b)) => !same(a, b),
                        _ => true,
                    }
                })
                .map(|(k, _)| k)
                .collect();
            if !differs.is_empty() {
                self.conflicts.push(Conflict {
                    key,
                    existing: format!("a rule of that name with other {}", differs.join(", ")),
                    imported: "this one".into(),
                });
            }
            return;
        }
        list.push(table);
        self.changes.push(format!("add {key}"));
    }
}

fn rule_table(rule: &Rule) -> Table {
    let mut t = Table::new();
    t.insert("name", Item::Value(Value::from(rule.name.as_str())));
    let list = |items: &[String]| {
        let mut a = Array::new();
        for i in items {
            a.push(i.as_str());
        }
        Item::Value(Value::Array(a))
    };
    if let Some(tool) = &rule.tool {
        t.insert("tool", Item::Value(Value::from(tool.as_str())));
        if !rule.input.is_empty() {
            let mut input = toml_edit::InlineTable::new();
            for (k, v) in &rule.input {
                input.insert(k, Value::from(v.as_str()));
            }
            t.insert("input", Item::Value(Value::InlineTable(input)));
        }
    } else {
        t.insert("patterns", list(&rule.patterns));
        if !rule.exclude.is_empty() {
            t.insert("exclude", list(&rule.exclude));
        }
    }
    t.insert("severity", Item::Value(Value::from(rule.severity)));
    if let Some(n) = rule.token_threshold {
        t.insert("token_threshold", Item::Value(int(n)));
    }
    if !rule.scope.is_empty() {
        t.insert("scope", list(&rule.scope));
    }
    t.insert("message", Item::Value(text(&rule.message)));
    t
}

fn lookup<'a>(table: &'a Table, path: &[&str]) -> Option<&'a Value> {
    let (last, parents) = path.split_last()?;
    let mut t: &dyn TableLike = table;
    for part in parents {
        t = t.get(part)?.as_table_like()?;
    }
    t.get(last)?.as_value()
}

fn path_name(path: &[&str]) -> String {
    let (last, parents) = path.split_last().expect("a key");
    let parents: Vec<String> = parents.iter().map(|p| toml_key(p)).collect();
    format!("[{}] {}", parents.join("."), toml_key(last))
}

fn shown(v: &Value) -> String {
    let mut v = v.clone();
    v.decor_mut().clear();
    let s = v.to_string();
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

/// Whether two values mean the same, however they are written.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => x.value() == y.value(),
        (Value::Integer(x), Value::Integer(y)) => x.value() == y.value(),
        (Value::Boolean(x), Value::Boolean(y)) => x.value() == y.value(),
        (Value::Float(x), Value::Float(y)) => x.value().to_bits() == y.value().to_bits(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(a, b)| same(a, b))
        }
        (Value::InlineTable(x), Value::InlineTable(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => false,
    }
}
