//! Command rules: globs on every simple command of a Bash call (pipeline stages, `&&`
//! chains, substitutions, `bash -c` scripts), in each of its normalised spellings.

use super::kind::{Call, Kind, PreToolUse, Selection};
use super::shell::{self, Parsed, SimpleCommand};
use super::{
    CommandRule, GuardConfig, LazyGlobs, RuleError, RuleKind, RuleMatch, RulesConfig, in_scope,
    spec,
};

/// `[[rules.command]]`.
pub(super) struct CommandKind;

impl Kind for CommandKind {
    fn kind(&self) -> RuleKind {
        RuleKind::Command
    }

    fn check_names(&self, rules: &RulesConfig, problems: &mut Vec<RuleError>) {
        let names = rules.command.iter().map(|r| r.name.as_str());
        spec::check_names(self.kind().table(), names, problems);
    }

    fn validate(&self, rules: &RulesConfig, problems: &mut Vec<RuleError>) {
        spec::check_pattern_rules(self.kind().table(), &rules.command, false, problems);
    }

    fn pre_tool_use<'a>(
        &self,
        rules: &'a RulesConfig,
        _guard: &'a GuardConfig,
        selection: Selection,
    ) -> Option<Box<dyn PreToolUse + 'a>> {
        let matchers = selection.matchers(
            &rules.command,
            |r| (r.severity, &r.scope),
            CommandMatcher::new,
        );
        Some(Box::new(CommandRules(matchers)))
    }
}

/// The command rules of a rule set.
struct CommandRules<'a>(Vec<CommandMatcher<'a>>);

impl PreToolUse for CommandRules<'_> {
    fn check(&self, call: &Call, matches: &mut Vec<RuleMatch>) {
        if self.0.is_empty() {
            return;
        }
        let Some(commands) = call.commands() else {
            return;
        };
        for rule in &self.0 {
            if in_scope(&rule.rule.scope, &call.ctx)
                && let Some(m) = rule.check(commands)
            {
                matches.push(m);
            }
        }
    }

    fn problems(&self, problems: &mut Vec<RuleError>) {
        for rule in &self.0 {
            rule.problems(RuleKind::Command.table(), problems);
        }
    }
}

/// The simple commands of one command line, ready for glob matching.
pub(super) struct Commands {
    pub(super) parsed: Parsed,
    /// `variants[i]` are the spellings of `parsed.commands[i]`
    /// (see [`SimpleCommand::variants`]).
    pub(super) variants: Vec<Vec<String>>,
    /// Every variant of every command, one per line: a glob whose literals are not in
    /// here cannot match any of them.
    pub(super) haystack: String,
}

impl Commands {
    /// Tokenise a command line.
    pub(super) fn new(line: &str) -> Commands {
        let parsed = shell::parse(line);
        let variants: Vec<Vec<String>> = parsed
            .commands
            .iter()
            .map(super::shell::SimpleCommand::variants)
            .collect();
        let haystack = variants
            .iter()
            .map(|spellings| spellings.join("\n"))
            .collect::<Vec<_>>()
            .join("\n");
        Commands {
            parsed,
            variants,
            haystack,
        }
    }

    pub(super) fn each(&self) -> impl Iterator<Item = (&SimpleCommand, &[String])> {
        self.parsed
            .commands
            .iter()
            .zip(self.variants.iter().map(Vec::as_slice))
    }
}

struct CommandMatcher<'a> {
    rule: &'a CommandRule,
    patterns: LazyGlobs<'a>,
    exclude: LazyGlobs<'a>,
}

impl<'a> CommandMatcher<'a> {
    fn new(rule: &'a CommandRule) -> CommandMatcher<'a> {
        CommandMatcher {
            rule,
            patterns: LazyGlobs::new(&rule.patterns, false),
            exclude: LazyGlobs::new(&rule.exclude, false),
        }
    }

    fn check(&self, commands: &Commands) -> Option<RuleMatch> {
        if !self.patterns.could_match(&commands.haystack) {
            return None;
        }
        commands.each().find_map(|(command, spellings)| {
            let pattern = self.patterns.first_match(spellings)?;
            if self.exclude.any_match(spellings) {
                return None;
            }
            Some(RuleMatch {
                kind: RuleKind::Command,
                name: self.rule.name.clone(),
                severity: self.rule.severity,
                message: self.rule.message.clone(),
                why: format!(
                    "simple command `{}`{} matches {pattern}",
                    command.display(),
                    command.origin(),
                ),
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::super::{GuardConfig, MatchContext, RuleSet, RulesConfig, Severity, ToolCall};
    use super::*;

    fn rule(name: &str, patterns: &[&str], exclude: &[&str]) -> CommandRule {
        CommandRule {
            name: name.into(),
            patterns: patterns
                .iter()
                .map(std::string::ToString::to_string)
                .collect(),
            exclude: exclude
                .iter()
                .map(std::string::ToString::to_string)
                .collect(),
            severity: Severity::Ask,
            message: "m".into(),
            ..Default::default()
        }
    }

    fn fire(rules: &[CommandRule], tool: &str, command: &str) -> Vec<String> {
        let config = RulesConfig {
            command: rules.to_vec(),
            ..Default::default()
        };
        let guard = GuardConfig {
            enabled: false,
            ..Default::default()
        };
        let set = RuleSet::compile(&config, &guard).expect("valid rules");
        let input = json!({ "command": command });
        let call = ToolCall {
            tool_name: tool,
            tool_input: &input,
        };
        let ctx = MatchContext {
            project_root: Path::new("/p"),
            is_leader: true,
            role: None,
            agent_type: None,
        };
        set.evaluate(&call, &ctx)
            .into_iter()
            .map(|m| m.why)
            .collect()
    }

    #[test]
    fn every_simple_command_is_matched() {
        let push = [rule("push", &["git push*"], &[])];
        for command in [
            "git push origin main",
            "cargo test && git push",
            "git fetch; git push -u origin x",
            "echo start | tee log; (cd sub && git push)",
            "bash -c 'git push'",
            "FOO=1 timeout 30 git push",
            "  git   push  ",
        ] {
            assert_eq!(fire(&push, "Bash", command).len(), 1, "{command}");
        }
        for command in [
            "git status",
            "echo 'git push'",
            "grep -r 'git push' docs",
            "# git push",
        ] {
            assert!(fire(&push, "Bash", command).is_empty(), "{command}");
        }
        assert!(
            fire(&push, "Shell", "git push").is_empty(),
            "only Bash calls carry commands"
        );
    }

    #[test]
    fn why_names_the_simple_command_and_where_it_came_from() {
        let push = [rule("push", &["git push*"], &[])];
        assert_eq!(
            fire(&push, "Bash", "sh -c 'git push -f'"),
            ["simple command `git push -f` (from `sh -c`) matches git push*"]
        );
    }

    #[test]
    fn flags_match_in_any_spelling_and_program_paths_are_dropped() {
        let rm = [rule("rm", &["rm -r -f *"], &[])];
        assert_eq!(fire(&rm, "Bash", "rm -rf build").len(), 1);
        assert_eq!(fire(&rm, "Bash", "/bin/rm -rf build").len(), 1);
        let sudo = [rule("sudo", &["sudo *"], &[])];
        assert_eq!(
            fire(&sudo, "Bash", "sudo -u x ls").len(),
            1,
            "wrappers stay matchable"
        );
    }

    #[test]
    fn exclude_wins_per_simple_command() {
        let push = [rule("push", &["git push*"], &["git push --dry-run*"])];
        assert!(fire(&push, "Bash", "git push --dry-run origin").is_empty());
        assert_eq!(fire(&push, "Bash", "git push --dry-run; git push").len(), 1);
    }
}
