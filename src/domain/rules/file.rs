//! File rules: globs on the paths a tool call touches, relative to the project root,
//! so `**/app/views/**` means the same for `/abs/proj/app/views/x` and `./app/views/x`.

use std::path::Path;

use serde_json::Value;

use super::kind::{Call, Kind, PreToolUse, Selection};
use super::{
    FileRule, GuardConfig, LazyGlobs, RuleError, RuleKind, RuleMatch, RulesConfig, in_scope, spec,
};

/// `tool_input` fields that name a file or directory: Edit/Write/MultiEdit/Read,
/// NotebookEdit, Glob/Grep.
const PATH_FIELDS: [&str; 3] = ["file_path", "notebook_path", "path"];

/// `[[rules.file]]`.
pub(super) struct FileKind;

impl Kind for FileKind {
    fn kind(&self) -> RuleKind {
        RuleKind::File
    }

    fn check_names(&self, rules: &RulesConfig, problems: &mut Vec<RuleError>) {
        let names = rules.file.iter().map(|r| r.name.as_str());
        spec::check_names(self.kind().table(), names, problems);
    }

    fn validate(&self, rules: &RulesConfig, problems: &mut Vec<RuleError>) {
        spec::check_pattern_rules(self.kind().table(), &rules.file, true, problems);
    }

    fn pre_tool_use<'a>(
        &self,
        rules: &'a RulesConfig,
        _guard: &'a GuardConfig,
        selection: Selection,
    ) -> Option<Box<dyn PreToolUse + 'a>> {
        let matchers =
            selection.matchers(&rules.file, |r| (r.severity, &r.scope), FileMatcher::new);
        Some(Box::new(FileRules(matchers)))
    }
}

/// The file rules of a rule set.
struct FileRules<'a>(Vec<FileMatcher<'a>>);

impl PreToolUse for FileRules<'_> {
    fn check(&self, call: &Call, matches: &mut Vec<RuleMatch>) {
        if self.0.is_empty() {
            return;
        }
        let paths = call.paths();
        if paths.is_empty() {
            return;
        }
        for rule in &self.0 {
            if in_scope(&rule.rule.scope, &call.ctx)
                && let Some(m) = rule.check(paths)
            {
                matches.push(m);
            }
        }
    }

    fn problems(&self, problems: &mut Vec<RuleError>) {
        for rule in &self.0 {
            rule.problems(RuleKind::File.table(), problems);
        }
    }
}

struct FileMatcher<'a> {
    rule: &'a FileRule,
    patterns: LazyGlobs<'a>,
    exclude: LazyGlobs<'a>,
}

impl<'a> FileMatcher<'a> {
    fn new(rule: &'a FileRule) -> FileMatcher<'a> {
        FileMatcher {
            rule,
            patterns: LazyGlobs::new(&rule.patterns, true),
            exclude: LazyGlobs::new(&rule.exclude, true),
        }
    }

    fn check(&self, paths: &[String]) -> Option<RuleMatch> {
        paths.iter().find_map(|path| {
            let single = std::slice::from_ref(path);
            let pattern = self.patterns.first_match(single)?;
            if self.exclude.any_match(single) {
                return None;
            }
            Some(RuleMatch {
                kind: RuleKind::File,
                name: self.rule.name.clone(),
                severity: self.rule.severity,
                message: self.rule.message.clone(),
                why: format!("{path} matches {pattern}"),
                token_threshold: self.rule.token_threshold,
            })
        })
    }

    fn problems(&self, table: &'static str, problems: &mut Vec<RuleError>) {
        self.patterns
            .problems(table, &self.rule.name, "patterns", problems);
        self.exclude
            .problems(table, &self.rule.name, "exclude", problems);
    }
}

/// The paths named in a call's input, as rule globs see them.
pub(super) fn call_paths(input: &Value, project_root: &Path) -> Vec<String> {
    PATH_FIELDS
        .iter()
        .filter_map(|field| input.get(field)?.as_str())
        .filter(|p| !p.is_empty())
        .map(|p| relative_path(p, project_root))
        .collect()
}

/// A path as file rules match it: lexically normalised (`./`, `..`, `//`), relative to
/// `project_root` when inside it, otherwise as given. Relative paths are taken as relative
/// to the project root already.
pub fn relative_path(path: &str, project_root: &Path) -> String {
    let path = normalize(path);
    let root = normalize(&project_root.to_string_lossy());
    if !path.starts_with('/') || !root.starts_with('/') {
        return path;
    }
    if path == root {
        return ".".to_owned();
    }
    let inside = if root == "/" {
        path.strip_prefix('/')
    } else {
        path.strip_prefix(root.as_str())
            .and_then(|rest| rest.strip_prefix('/'))
    };
    inside.map_or(path.clone(), str::to_owned)
}

pub(super) fn normalize(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                _ if absolute => {}
                _ => parts.push(".."),
            },
            _ => parts.push(part),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_owned(),
        (false, false) => joined,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::super::{GuardConfig, MatchContext, RuleSet, RulesConfig, Severity, ToolCall};
    use super::*;

    fn views_rule() -> FileRule {
        FileRule {
            name: "views".into(),
            patterns: vec!["**/app/views/**/*.erb".into()],
            exclude: vec!["**/vendor/**".into()],
            severity: Severity::Block,
            token_threshold: Some(35000),
            scope: vec![],
            message: "Views follow docs/views.md.".into(),
        }
    }

    fn leader() -> MatchContext<'static> {
        MatchContext {
            project_root: Path::new("/work/proj"),
            is_leader: true,
            role: None,
            agent_type: None,
        }
    }

    // Callers hand it json! literals.
    #[allow(clippy::needless_pass_by_value)]
    fn fire(rules: &[FileRule], tool: &str, input: Value, ctx: &MatchContext) -> Vec<String> {
        let config = RulesConfig {
            file: rules.to_vec(),
            ..Default::default()
        };
        let guard = GuardConfig {
            enabled: false,
            ..Default::default()
        };
        let set = RuleSet::compile(&config, &guard).expect("valid rules");
        let call = ToolCall {
            tool_name: tool,
            tool_input: &input,
        };
        set.evaluate(&call, ctx)
            .into_iter()
            .map(|m| m.why)
            .collect()
    }

    #[test]
    fn double_star_crosses_directories_and_single_star_does_not() {
        let rule = views_rule();
        let ctx = leader();
        for path in [
            "app/views/a.erb",
            "app/views/users/show.erb",
            "engines/admin/app/views/x/y/z.erb",
            "/work/proj/app/views/a.erb",
            "./app/views/a.erb",
        ] {
            let why = fire(
                std::slice::from_ref(&rule),
                "Edit",
                json!({"file_path": path}),
                &ctx,
            );
            assert_eq!(why.len(), 1, "{path}");
        }
        let star = FileRule {
            name: "top".into(),
            patterns: vec!["src/*.rs".into()],
            ..Default::default()
        };
        assert_eq!(
            fire(
                std::slice::from_ref(&star),
                "Write",
                json!({"file_path": "src/lib.rs"}),
                &ctx
            )
            .len(),
            1
        );
        assert!(
            fire(
                &[star],
                "Write",
                json!({"file_path": "src/rules/mod.rs"}),
                &ctx
            )
            .is_empty()
        );
        assert!(
            fire(
                &[rule],
                "Edit",
                json!({"file_path": "app/views/a.rb"}),
                &ctx
            )
            .is_empty()
        );
    }

    #[test]
    fn exclude_wins_over_patterns() {
        let why = fire(
            &[views_rule()],
            "Edit",
            json!({"file_path": "/work/proj/vendor/gems/x/app/views/a.erb"}),
            &leader(),
        );
        assert!(why.is_empty());
    }

    #[test]
    fn why_names_the_relative_path_and_the_pattern() {
        let why = fire(
            &[views_rule()],
            "MultiEdit",
            json!({"file_path": "/work/proj/app/views/a.erb", "edits": []}),
            &leader(),
        );
        assert_eq!(why, ["app/views/a.erb matches **/app/views/**/*.erb"]);
    }

    #[test]
    fn notebook_and_search_paths_count_too() {
        let nb = FileRule {
            name: "nb".into(),
            patterns: vec!["notebooks/**".into()],
            ..Default::default()
        };
        let ctx = leader();
        assert_eq!(
            fire(
                std::slice::from_ref(&nb),
                "NotebookEdit",
                json!({"notebook_path": "/work/proj/notebooks/a.ipynb"}),
                &ctx
            )
            .len(),
            1
        );
        assert_eq!(
            fire(
                std::slice::from_ref(&nb),
                "Grep",
                json!({"pattern": "x", "path": "notebooks/sub"}),
                &ctx
            )
            .len(),
            1
        );
        assert!(fire(&[nb], "Bash", json!({"command": "cat notebooks/a"}), &ctx).is_empty());
    }

    #[test]
    fn scope_leader_does_not_fire_inside_a_subagent() {
        let rule = FileRule {
            scope: vec!["leader".into()],
            ..views_rule()
        };
        let input = json!({"file_path": "app/views/a.erb"});
        assert_eq!(
            fire(
                std::slice::from_ref(&rule),
                "Edit",
                input.clone(),
                &leader()
            )
            .len(),
            1
        );
        let coder = MatchContext {
            is_leader: false,
            role: Some("coder"),
            agent_type: Some("coder-fix"),
            ..leader()
        };
        assert!(fire(&[rule], "Edit", input, &coder).is_empty());
    }

    #[test]
    fn scope_role_names_match_role_or_agent_type() {
        let rule = FileRule {
            scope: vec!["reviewer".into()],
            ..views_rule()
        };
        let input = json!({"file_path": "app/views/a.erb"});
        let by_role = MatchContext {
            is_leader: false,
            role: Some("reviewer"),
            agent_type: Some("general-purpose"),
            ..leader()
        };
        let by_type = MatchContext {
            is_leader: false,
            role: None,
            agent_type: Some("reviewer"),
            ..leader()
        };
        let other = MatchContext {
            is_leader: false,
            role: Some("coder"),
            agent_type: Some("coder"),
            ..leader()
        };
        assert_eq!(
            fire(std::slice::from_ref(&rule), "Edit", input.clone(), &by_role).len(),
            1
        );
        assert_eq!(
            fire(std::slice::from_ref(&rule), "Edit", input.clone(), &by_type).len(),
            1
        );
        assert!(fire(std::slice::from_ref(&rule), "Edit", input.clone(), &other).is_empty());
        assert!(fire(&[rule], "Edit", input, &leader()).is_empty());
    }

    #[test]
    fn paths_are_made_relative_lexically() {
        let root = Path::new("/work/proj/");
        let cases = BTreeMap::from([
            ("/work/proj/app/a.rb", "app/a.rb"),
            ("/work/proj/./app/../lib/b.rb", "lib/b.rb"),
            ("/work/proj", "."),
            ("/work/project/x", "/work/project/x"),
            ("/work/proj/../other/x", "/work/other/x"),
            ("/etc//passwd", "/etc/passwd"),
            ("./src//main.rs", "src/main.rs"),
            ("../sibling/x", "../sibling/x"),
            ("a/../../b", "../b"),
            ("/../..", "/"),
        ]);
        for (path, expected) in cases {
            assert_eq!(relative_path(path, root), expected, "{path}");
        }
        assert_eq!(relative_path("/x/y", Path::new("/")), "x/y");
    }

    #[test]
    fn a_path_outside_the_project_is_matched_as_given() {
        let rule = FileRule {
            name: "etc".into(),
            patterns: vec!["/etc/**".into()],
            ..Default::default()
        };
        assert_eq!(
            fire(
                &[rule],
                "Read",
                json!({"file_path": "/etc/hosts"}),
                &leader()
            )
            .len(),
            1
        );
    }
}
