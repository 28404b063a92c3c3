//! After-edit rules: regexes on the text a Write, Edit, MultiEdit or NotebookEdit added
//! to a file whose path matches the rule's globs. The added text comes from the tool
//! input alone (a file is never read back): Write's `content`, the lines of Edit's and
//! MultiEdit's `new_string` that their `old_string` did not have, NotebookEdit's
//! `new_source`. At most `MAX_ERROR_BYTES` of it is searched.

use std::collections::HashSet;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use super::error::{RuleError, glob_problems};
use super::guard::relative_path;
use super::kind::Kind;
use super::limits::{MAX_ERROR_BYTES, MAX_MESSAGE_CHARS, bounded_regex, head, line_around};
use super::matching::{MatchContext, RuleMatch, in_scope};
use super::spec::{self, AfterEditRule, RulesConfig};
use crate::base::glob::LazyGlobs;
use crate::base::rule_kind::RuleKind;

/// `[[rules.after_edit]]`, checked after an edit by [`AfterEditSet`].
pub(super) struct AfterEditKind;

impl Kind for AfterEditKind {
    fn kind(&self) -> RuleKind {
        RuleKind::AfterEdit
    }

    fn check_names(&self, rules: &RulesConfig, problems: &mut Vec<RuleError>) {
        let names = rules.after_edit.iter().map(|r| r.name.as_str());
        spec::check_names(self.kind().table(), names, problems);
    }

    fn validate(&self, rules: &RulesConfig, problems: &mut Vec<RuleError>) {
        let table = self.kind().table();
        self.check_names(rules, problems);
        for rule in &rules.after_edit {
            for (key, list) in [("patterns", &rule.patterns), ("exclude", &rule.exclude)] {
                spec::check_globs(table, &rule.name, key, list, true, problems);
            }
            for (i, pattern) in rule.added.iter().enumerate() {
                if let Err(source) = bounded_regex(pattern) {
                    problems.push(RuleError::BadRegex {
                        table,
                        rule: rule.name.clone(),
                        key: format!("added[{i}]"),
                        pattern: pattern.clone(),
                        source: Box::new(source),
                    });
                }
            }
        }
    }
}

/// Longest added line quoted in a `why`.
const WHY_CHARS: usize = 80;

/// What one edit wrote: the path as given and the text it added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Added {
    pub path: String,
    pub text: String,
}

/// The file an editing tool wrote and the text it added, from its input; `None` for
/// other tools or an input without a path.
pub fn added(tool_name: &str, input: &Value) -> Option<Added> {
    let field = |v: &Value, name: &str| v.get(name).and_then(Value::as_str).map(str::to_owned);
    let (path, text) = match tool_name {
        "Write" => (field(input, "file_path")?, field(input, "content")),
        "Edit" => (field(input, "file_path")?, Some(new_lines(input))),
        "MultiEdit" => {
            let edits = input.get("edits").and_then(Value::as_array);
            let mut text = String::new();
            for edit in edits.into_iter().flatten() {
                if text.len() >= MAX_ERROR_BYTES {
                    break;
                }
                push_line(&mut text, &new_lines(edit));
            }
            (field(input, "file_path")?, Some(text))
        }
        "NotebookEdit" => (
            field(input, "notebook_path").or_else(|| field(input, "file_path"))?,
            field(input, "new_source"),
        ),
        _ => return None,
    };
    let text = text.unwrap_or_default();
    Some(Added {
        path,
        text: head(&text, MAX_ERROR_BYTES).to_owned(),
    })
}

fn push_line(text: &mut String, more: &str) {
    if more.is_empty() {
        return;
    }
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(more);
}

/// The lines of an edit's `new_string` that its `old_string` did not have (both cut to
/// `MAX_ERROR_BYTES`).
fn new_lines(edit: &Value) -> String {
    let text = |name: &str| {
        head(
            edit.get(name).and_then(Value::as_str).unwrap_or(""),
            MAX_ERROR_BYTES,
        )
    };
    let old: HashSet<&str> = text("old_string").lines().map(str::trim_end).collect();
    let mut added = String::new();
    for line in text("new_string").lines() {
        if !old.contains(line.trim_end()) {
            push_line(&mut added, line);
        }
    }
    added
}

struct Matcher<'a> {
    rule: &'a AfterEditRule,
    patterns: LazyGlobs<'a>,
    exclude: LazyGlobs<'a>,
    added: OnceLock<Box<[Result<Regex, regex::Error>]>>,
}

impl Matcher<'_> {
    fn check(&self, path: &str, text: &str) -> Option<RuleMatch> {
        let single = [path.to_owned()];
        let pattern = if self.rule.patterns.is_empty() {
            "any file"
        } else {
            self.patterns.first_match(&single)?
        };
        if self.exclude.any_match(&single) {
            return None;
        }
        let regexes = self
            .added
            .get_or_init(|| self.rule.added.iter().map(|p| bounded_regex(p)).collect());
        let (found, re) = regexes
            .iter()
            .zip(&self.rule.added)
            .find_map(|(re, source)| Some((re.as_ref().ok()?.find(text)?, source)))?;
        Some(RuleMatch {
            kind: RuleKind::AfterEdit,
            name: self.rule.name.clone(),
            severity: self.rule.severity.severity(),
            message: crate::base::text::cut(self.rule.message.trim(), MAX_MESSAGE_CHARS),
            why: format!(
                "{path} ({pattern}): added \"{}\" matches {re}",
                crate::base::text::cut(line_around(text, found.start(), found.end()), WHY_CHARS)
            ),
            token_threshold: self.rule.token_threshold,
        })
    }
}

/// The after-edit rules of a config, ready to check edits. Builds nothing up front.
pub struct AfterEditSet<'a> {
    rules: Vec<Matcher<'a>>,
}

impl<'a> AfterEditSet<'a> {
    pub fn new(rules: &'a [AfterEditRule]) -> AfterEditSet<'a> {
        AfterEditSet {
            rules: rules
                .iter()
                .map(|rule| Matcher {
                    rule,
                    patterns: LazyGlobs::new(&rule.patterns, true),
                    exclude: LazyGlobs::new(&rule.exclude, true),
                    added: OnceLock::new(),
                })
                .collect(),
        }
    }

    /// The rules that fire for an edit, in config order. `edit.path` is taken relative to
    /// the project root as file rules take it.
    pub fn evaluate(&self, edit: &Added, ctx: &MatchContext) -> Vec<RuleMatch> {
        if self.rules.is_empty() || edit.text.is_empty() {
            return Vec::new();
        }
        let path = relative_path(&edit.path, ctx.project_root);
        self.rules
            .iter()
            .filter(|m| in_scope(&m.rule.scope, ctx))
            .filter_map(|m| m.check(&path, &edit.text))
            .collect()
    }

    /// Bad globs and regexes met so far (they never match).
    pub fn problems(&self) -> Vec<RuleError> {
        let mut problems = Vec::new();
        for m in &self.rules {
            let table = RuleKind::AfterEdit.table();
            glob_problems(&m.patterns, table, &m.rule.name, "patterns", &mut problems);
            glob_problems(&m.exclude, table, &m.rule.name, "exclude", &mut problems);
            for (i, re) in m.added.get().into_iter().flatten().enumerate() {
                if let Err(source) = re {
                    problems.push(RuleError::BadRegex {
                        table,
                        rule: m.rule.name.clone(),
                        key: format!("added[{i}]"),
                        pattern: m.rule.added[i].clone(),
                        source: Box::new(source.clone()),
                    });
                }
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::domain::rules::spec::{EditSeverity, Severity};

    fn ctx() -> MatchContext<'static> {
        MatchContext {
            project_root: Path::new("/p"),
            cwd: None,
            is_leader: true,
            role: None,
            agent_type: None,
        }
    }

    fn restating() -> AfterEditRule {
        AfterEditRule {
            name: "restating comments".into(),
            patterns: vec!["**/*.rs".into()],
            exclude: vec!["vendor/**".into()],
            added: vec![r"(?m)^\s*// (increment|set|return) ".into()],
            message: "Comments say why, not what.".into(),
            ..Default::default()
        }
    }

    #[test]
    fn added_text_comes_from_each_editing_tool() {
        let write = added("Write", &json!({"file_path": "a.rs", "content": "x"})).unwrap();
        assert_eq!((write.path.as_str(), write.text.as_str()), ("a.rs", "x"));
        let edit = added(
            "Edit",
            &json!({"file_path": "a.rs", "old_string": "keep\nold", "new_string": "keep\nnew"}),
        )
        .unwrap();
        assert_eq!(edit.text, "new");
        let multi = added(
            "MultiEdit",
            &json!({"file_path": "a.rs", "edits": [
                {"old_string": "a", "new_string": "a\nb"},
                {"old_string": "c", "new_string": "d"}
            ]}),
        )
        .unwrap();
        assert_eq!(multi.text, "b\nd");
        let nb = added(
            "NotebookEdit",
            &json!({"notebook_path": "n.ipynb", "new_source": "y"}),
        )
        .unwrap();
        assert_eq!((nb.path.as_str(), nb.text.as_str()), ("n.ipynb", "y"));
        assert_eq!(added("Read", &json!({"file_path": "a.rs"})), None);
        assert_eq!(added("Write", &json!({"content": "x"})), None);
    }

    #[test]
    fn globs_excludes_and_regexes_all_count() {
        let rules = [restating()];
        let set = AfterEditSet::new(&rules);
        let fire = |path: &str, text: &str| {
            set.evaluate(
                &Added {
                    path: path.into(),
                    text: text.into(),
                },
                &ctx(),
            )
        };
        let hit = fire("/p/src/x.rs", "    // increment i\n    i += 1;");
        assert_eq!(hit.len(), 1);
        assert_eq!(hit[0].severity, Severity::Warn);
        assert!(hit[0].why.contains("src/x.rs"), "{}", hit[0].why);
        assert!(hit[0].why.contains("// increment i"), "{}", hit[0].why);
        assert!(
            fire("/p/src/x.py", "// increment i").is_empty(),
            "other files"
        );
        assert!(
            fire("/p/vendor/x.rs", "// increment i").is_empty(),
            "excluded"
        );
        assert!(fire("/p/src/x.rs", "// the cache must outlive the pool").is_empty());
        let block = [AfterEditRule {
            patterns: vec![],
            severity: EditSeverity::Block,
            ..restating()
        }];
        let any_file = AfterEditSet::new(&block);
        let hit = any_file.evaluate(
            &Added {
                path: "README.md".into(),
                text: "// set x".into(),
            },
            &ctx(),
        );
        assert_eq!(hit[0].severity, Severity::Block);
    }

    #[test]
    fn huge_added_text_is_cut_before_matching() {
        let mut content = "a\n".repeat(MAX_ERROR_BYTES);
        content.push_str("// increment i\n");
        let edit = added(
            "Write",
            &json!({"file_path": "/p/x.rs", "content": content}),
        )
        .unwrap();
        assert_eq!(edit.text.len(), MAX_ERROR_BYTES);
        let rules = [restating()];
        assert!(AfterEditSet::new(&rules).evaluate(&edit, &ctx()).is_empty());
    }

    #[test]
    fn bad_patterns_never_match_and_are_reported() {
        let rules = [AfterEditRule {
            added: vec!["(".into(), "x".into()],
            patterns: vec![],
            ..restating()
        }];
        let set = AfterEditSet::new(&rules);
        let hit = set.evaluate(
            &Added {
                path: "a".into(),
                text: "x".into(),
            },
            &ctx(),
        );
        assert_eq!(hit.len(), 1, "the good regex still counts");
        assert_eq!(set.problems().len(), 1);
    }
}
