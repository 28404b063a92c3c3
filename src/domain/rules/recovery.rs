//! Recovery rules: after a tool call failed, a hint on how to recover, chosen by a regex
//! on `tool_name` and a regex on the failure text. The configured `[[rules.recovery]]`
//! come first; the built-in hints (switched off by `builtin_recovery = false`) speak only
//! when no configured rule matched the failure.
//!
//! Runs only when a call failed. Regexes are compiled when first needed, with size
//! limits, and only the first `MAX_ERROR_BYTES` of a failure text are searched.

use std::sync::OnceLock;

use regex::Regex;

use super::error::RuleError;
use super::kind::Kind;
use super::limits::{MAX_ERROR_BYTES, MAX_MESSAGE_CHARS, bounded_regex, head, line_around};
use super::matching::{MatchContext, RuleMatch, in_scope};
use super::spec::{self, RulesConfig, Severity};
use super::tool::compile_tool_regex;
use crate::base::rule_kind::RuleKind;

/// `[[rules.recovery]]`, checked after a failed call by [`RecoverySet`].
pub(super) struct RecoveryKind;

impl Kind for RecoveryKind {
    fn kind(&self) -> RuleKind {
        RuleKind::Recovery
    }

    fn check_names(&self, rules: &RulesConfig, problems: &mut Vec<RuleError>) {
        let names = rules.recovery.iter().map(|r| r.name.as_str());
        spec::check_names(self.kind().table(), names, problems);
    }

    fn validate(&self, rules: &RulesConfig, problems: &mut Vec<RuleError>) {
        let table = self.kind().table();
        self.check_names(rules, problems);
        for rule in &rules.recovery {
            let bad = [
                ("tool", &rule.tool, compile_tool_regex(&rule.tool)),
                ("error", &rule.error, bounded_regex(&rule.error)),
            ];
            for (key, pattern, compiled) in bad {
                if let Err(source) = compiled {
                    problems.push(RuleError::BadRegex {
                        table,
                        rule: rule.name.clone(),
                        key: key.into(),
                        pattern: pattern.clone(),
                        source: Box::new(source),
                    });
                }
            }
        }
    }
}

/// Longest text nagger adds to one tool result, all rules together.
pub const MAX_ANSWER_CHARS: usize = 8_000;
/// Longest piece of the failure text quoted in a `why`.
const WHY_CHARS: usize = 80;

/// One built-in hint.
pub struct Builtin {
    /// Its name in rule_hits and `stats`, without the `builtin:` prefix.
    pub name: &'static str,
    /// Regex on the whole tool name; empty is any tool.
    pub tool: &'static str,
    /// Regex searched in the failure text.
    pub error: &'static str,
    pub message: &'static str,
}

/// The hints nagger gives without configuration.
pub const BUILTIN: &[Builtin] = &[
    Builtin {
        name: "command-not-found",
        tool: "Bash",
        error: r"(?im)command not found|^Exit code 127\b|: not found$|executable file not found|No such file or directory \(os error 2\)",
        message: "That command is not installed or not on PATH. Check its name for a typo, look for the project's own copy (node_modules/.bin, a virtualenv's bin, a script in the repository) or the project's runner (npx, uv run, cargo run, make), and ask the user before installing anything system-wide.",
    },
    Builtin {
        name: "permission-denied",
        tool: "",
        error: r"(?i)permission denied|operation not permitted|\bEACCES\b|\bEPERM\b",
        message: "Permission was denied. Do not reach for sudo, chmod or chown to get past it: check that the path is the one you meant and lies inside the project; if it really must change, ask the user.",
    },
    Builtin {
        name: "no-space-left",
        tool: "",
        error: r"(?i)no space left on device|\bENOSPC\b|disk quota exceeded",
        message: "The disk is full. Stop writing and tell the user. You may delete only what you created yourself (build output, temporary files in the project), nothing else.",
    },
    Builtin {
        name: "address-in-use",
        tool: "Bash",
        error: r"(?i)address already in use|\bEADDRINUSE\b|port \d+ is (already )?in use",
        message: "Something is already listening on that port, most likely a server you started earlier. Use the running one, or start yours on another free port; stop only a process you started yourself.",
    },
    Builtin {
        name: "git-non-fast-forward",
        tool: "Bash",
        error: r"(?i)non-fast-forward|\(fetch first\)|updates were rejected because the (tip|remote)",
        message: "The remote branch has commits you do not have. Run `git fetch`, rebase your work onto the remote branch (`git pull --rebase`), resolve any conflicts, run the tests, then push again. Never force-push (`--force`, `--force-with-lease`, `+branch`) to get past this.",
    },
    Builtin {
        name: "merge-conflict",
        tool: "",
        error: r"(?im)^CONFLICT \(|automatic merge failed|you have unmerged paths|^error: could not apply|needs merge|conflict marker|diff marker|^(<{7}|>{7}) ",
        message: "There are merge conflicts. `git status` lists the conflicted files: in each, resolve every block between `<<<<<<<`, `=======` and `>>>>>>>` so both sides' intended changes survive, remove the markers, run the tests, then `git add` the files and continue (`git rebase --continue` or `git commit`). Do not abort, reset or check out a side wholesale unless the user asks.",
    },
    Builtin {
        name: "timed-out",
        tool: "",
        error: r"(?i)\btimed out\b|\bETIMEDOUT\b|deadline exceeded",
        message: "The command ran out of time. Do not run it again unchanged: run a smaller part (one test, one package), give it a timeout of its own, or run it in the background and read its output when it is done.",
    },
];

type Compiled = OnceLock<Result<Regex, regex::Error>>;

struct Matcher<'a> {
    name: String,
    tool: &'a str,
    error: &'a str,
    message: &'a str,
    scope: &'a [String],
    token_threshold: Option<u64>,
    tool_re: Compiled,
    error_re: Compiled,
}

impl Matcher<'_> {
    fn tool_matches(&self, tool_name: &str) -> bool {
        if self.tool.is_empty() || self.tool == tool_name {
            return true;
        }
        // A plain name that differs cannot match; spare the regex.
        if self.tool.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return false;
        }
        self.tool_re
            .get_or_init(|| compile_tool_regex(self.tool))
            .as_ref()
            .is_ok_and(|re| re.is_match(tool_name))
    }

    fn check(&self, tool_name: &str, error: &str) -> Option<RuleMatch> {
        if !self.tool_matches(tool_name) {
            return None;
        }
        let found = if self.error.is_empty() {
            None
        } else {
            let re = self
                .error_re
                .get_or_init(|| bounded_regex(self.error))
                .as_ref()
                .ok()?;
            Some(re.find(error)?)
        };
        let why = match found {
            Some(m) => format!(
                "{tool_name} failed with \"{}\"",
                crate::base::text::cut(line_around(error, m.start(), m.end()), WHY_CHARS)
            ),
            None => format!("{tool_name} failed (any failure)"),
        };
        Some(RuleMatch {
            kind: RuleKind::Recovery,
            name: self.name.clone(),
            severity: Severity::Warn,
            message: crate::base::text::cut(self.message.trim(), MAX_MESSAGE_CHARS),
            why,
            token_threshold: self.token_threshold,
        })
    }

    fn problems(&self, problems: &mut Vec<RuleError>) {
        for (key, pattern, cell) in [
            ("tool", self.tool, &self.tool_re),
            ("error", self.error, &self.error_re),
        ] {
            if let Some(Err(source)) = cell.get() {
                problems.push(RuleError::BadRegex {
                    table: RuleKind::Recovery.table(),
                    rule: self.name.clone(),
                    key: key.into(),
                    pattern: pattern.to_owned(),
                    source: Box::new(source.clone()),
                });
            }
        }
    }
}

/// The recovery rules of a config, ready to check failures. Builds nothing up front.
pub struct RecoverySet<'a> {
    configured: Vec<Matcher<'a>>,
    builtin: Vec<Matcher<'a>>,
}

impl<'a> RecoverySet<'a> {
    pub fn new(rules: &'a RulesConfig) -> RecoverySet<'a> {
        let configured = rules
            .recovery
            .iter()
            .map(|r| Matcher {
                name: r.name.clone(),
                tool: &r.tool,
                error: &r.error,
                message: &r.message,
                scope: &r.scope,
                token_threshold: r.token_threshold,
                tool_re: OnceLock::new(),
                error_re: OnceLock::new(),
            })
            .collect();
        let builtin = if rules.builtin_recovery {
            BUILTIN
                .iter()
                .map(|b| Matcher {
                    name: format!("builtin:{}", b.name),
                    tool: b.tool,
                    error: b.error,
                    message: b.message,
                    scope: &[],
                    token_threshold: None,
                    tool_re: OnceLock::new(),
                    error_re: OnceLock::new(),
                })
                .collect()
        } else {
            Vec::new()
        };
        RecoverySet {
            configured,
            builtin,
        }
    }

    /// The hints for a failed call, configured rules first; the built-in ones only when
    /// no configured rule matched. Only the first `MAX_ERROR_BYTES` of `error` count.
    pub fn evaluate(&self, tool_name: &str, error: &str, ctx: &MatchContext) -> Vec<RuleMatch> {
        let error = head(error, MAX_ERROR_BYTES);
        let matches: Vec<RuleMatch> = self
            .configured
            .iter()
            .filter(|m| in_scope(m.scope, ctx))
            .filter_map(|m| m.check(tool_name, error))
            .collect();
        if !matches.is_empty() {
            return matches;
        }
        self.builtin
            .iter()
            .filter_map(|m| m.check(tool_name, error))
            .collect()
    }

    /// Bad configured regexes met so far (they never match).
    pub fn problems(&self) -> Vec<RuleError> {
        let mut problems = Vec::new();
        for m in &self.configured {
            m.problems(&mut problems);
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::spec::RecoveryRule;
    use super::*;

    fn leader() -> MatchContext<'static> {
        MatchContext {
            project_root: Path::new("/p"),
            cwd: None,
            is_leader: true,
            role: None,
            agent_type: None,
        }
    }

    fn names(rules: &RulesConfig, tool: &str, error: &str) -> Vec<String> {
        RecoverySet::new(rules)
            .evaluate(tool, error, &leader())
            .into_iter()
            .map(|m| m.name)
            .collect()
    }

    #[test]
    fn every_builtin_regex_compiles_and_fires_on_its_example() {
        let examples = [
            (
                "command-not-found",
                "Bash",
                "Exit code 127\n/bin/bash: line 1: rgx: command not found",
            ),
            (
                "permission-denied",
                "Bash",
                "Exit code 1\ntouch: cannot touch '/etc/x': Permission denied",
            ),
            (
                "no-space-left",
                "Write",
                "ENOSPC: no space left on device, write",
            ),
            (
                "address-in-use",
                "Bash",
                "Error: listen EADDRINUSE: address already in use :::3000",
            ),
            (
                "git-non-fast-forward",
                "Bash",
                " ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs",
            ),
            (
                "merge-conflict",
                "Bash",
                "Auto-merging a.rs\nCONFLICT (content): Merge conflict in a.rs\nAutomatic merge failed; fix conflicts and then commit the result.",
            ),
            ("timed-out", "Bash", "Command timed out after 2m 0.0s"),
        ];
        let rules = RulesConfig::default();
        for b in BUILTIN {
            assert!(bounded_regex(b.error).is_ok(), "{}", b.name);
            assert!(b.message.len() < MAX_MESSAGE_CHARS, "{}", b.name);
        }
        assert_eq!(examples.len(), BUILTIN.len());
        for (name, tool, error) in examples {
            assert_eq!(
                names(&rules, tool, error),
                [format!("builtin:{name}")],
                "{error}"
            );
        }
        assert!(
            names(
                &rules,
                "Bash",
                "Exit code 1\nassertion failed: left == right"
            )
            .is_empty()
        );
    }

    #[test]
    fn configured_rules_come_first_and_silence_the_builtin_ones() {
        let rules = RulesConfig {
            recovery: vec![RecoveryRule {
                name: "cargo lock".into(),
                tool: "Bash".into(),
                error: "Blocking waiting for file lock|Permission denied".into(),
                message: "Another cargo runs; wait for it.".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(
            names(&rules, "Bash", "x: Permission denied"),
            ["cargo lock"]
        );
        assert_eq!(
            names(&rules, "Write", "x: Permission denied"),
            ["builtin:permission-denied"]
        );
        let off = RulesConfig {
            builtin_recovery: false,
            ..rules
        };
        assert!(names(&off, "Write", "x: Permission denied").is_empty());
    }

    #[test]
    fn tool_is_a_whole_name_regex_and_error_is_searched() {
        let rule = |tool: &str, error: &str| RulesConfig {
            recovery: vec![RecoveryRule {
                name: "r".into(),
                tool: tool.into(),
                error: error.into(),
                message: "m".into(),
                ..Default::default()
            }],
            builtin_recovery: false,
            ..Default::default()
        };
        assert_eq!(
            names(&rule("mcp__.*", "quota"), "mcp__x__y", "over quota"),
            ["r"]
        );
        assert!(names(&rule("mcp", "quota"), "mcp__x__y", "over quota").is_empty());
        assert_eq!(names(&rule("", ""), "Read", "anything"), ["r"]);
        assert!(names(&rule("Bash", "^quota"), "Bash", "over quota").is_empty());
        let broken = rule("Bash", "(");
        let set = RecoverySet::new(&broken);
        assert!(set.evaluate("Bash", "x", &leader()).is_empty());
        assert_eq!(set.problems().len(), 1);
    }

    #[test]
    fn only_the_head_of_a_huge_failure_is_searched() {
        let rules = RulesConfig::default();
        let mut error = "x".repeat(MAX_ERROR_BYTES);
        error.push_str("\ncommand not found");
        assert!(names(&rules, "Bash", &error).is_empty());
        assert_eq!(head("héllo", 2), "h");
        assert_eq!(crate::base::text::cut("abcdef", 3), "ab…");
    }
}
