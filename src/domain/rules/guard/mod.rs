//! The guard: built-in checks for shell commands that destroy work or systems, read
//! secrets or change nagger's own files, run on the tokenised simple commands (never on raw
//! text), so `echo 'rm -rf /'` is harmless and `sudo bash -c 'rm -fr ~'` is not. Extended by
//! `[guard] deny`, exempted by `allow`. What it cannot analyse it asks about.

use std::cell::Cell;
use std::collections::HashSet;
use std::path::Path;

use super::checks::{Finding, command_findings};
use super::command::Commands;
use super::kind::{Call, Kind, PreToolUse, Selection};
use super::programs::{Program, programs, xargs_fed};
use super::secrets::Secrets;
use super::shell::{self, Parsed, SimpleCommand};
use super::{
    GuardConfig, LazyGlobs, RuleError, RuleKind, RuleMatch, RulesConfig, Severity, protect,
};

/// Deepest chain of scripts inside scripts (`echo '…' | sh` whose script pipes into
/// `python3 -c` …) that is followed, and most bytes of such scripts parsed for one call
/// (each script costs at least [`SCRIPT_COST`]).
const MAX_SCRIPT_DEPTH: usize = 4;
const MAX_SCRIPT_BYTES: usize = shell::MAX_SCANNED_BYTES;
const SCRIPT_COST: usize = 1024;

/// The `[guard]` table: the built-in checks, `deny` and `allow`. Its patterns are
/// validated by [`GuardConfig::validate`]; it checks every call whatever the selection.
pub(super) struct GuardKind;

impl Kind for GuardKind {
    fn kind(&self) -> RuleKind {
        RuleKind::Guard
    }

    fn validate(&self, _rules: &RulesConfig, _problems: &mut Vec<RuleError>) {}

    fn pre_tool_use<'a>(
        &self,
        _rules: &'a RulesConfig,
        guard: &'a GuardConfig,
        _selection: Selection,
    ) -> Option<Box<dyn PreToolUse + 'a>> {
        Some(Box::new(Guard::new(guard)))
    }
}

pub(super) struct Guard<'a> {
    enabled: bool,
    allow: LazyGlobs<'a>,
    deny: LazyGlobs<'a>,
    secrets: Secrets<'a>,
}

impl PreToolUse for Guard<'_> {
    fn check(&self, call: &Call, matches: &mut Vec<RuleMatch>) {
        if !self.enabled {
            return;
        }
        match call.commands() {
            Some(commands) => matches.extend(self.check_commands(commands)),
            None => {
                matches.extend(self.check_tool(call.tool_name, call.input, call.ctx.project_root));
            }
        }
    }

    fn problems(&self, problems: &mut Vec<RuleError>) {
        let table = RuleKind::Guard.table();
        self.allow.problems(table, "", "allow", problems);
        self.deny.problems(table, "", "deny", problems);
        self.secrets.problems(problems);
    }

    /// The guard is off, the tool is not one the guard reads commands of, an `allow`
    /// entry exempted a command or path.
    fn notes(&self, call: &Call, notes: &mut Vec<String>) {
        if !self.enabled {
            notes.push(
                "the guard is off (`[guard] enabled = false`): no built-in check, secret, \
                 self-protection or `[guard] deny` pattern was applied"
                    .into(),
            );
            return;
        }
        if let Some(commands) = call.commands() {
            for (command, pattern) in commands
                .parsed
                .commands
                .iter()
                .zip(self.exemptions(commands))
            {
                if let Some(pattern) = pattern {
                    notes.push(format!(
                        "`{}` is exempted from the guard by `[guard] allow` `{pattern}`",
                        command.display()
                    ));
                }
            }
            return;
        }
        if call
            .input
            .get("command")
            .is_some_and(serde_json::Value::is_string)
        {
            notes.push(format!(
                "`{}` is not in `[guard] shell_tools`: its command is not read as a shell \
                 command line",
                call.tool_name
            ));
        }
        if let Some(pattern) = self.tool_exemption(call.input, call.ctx.project_root) {
            notes.push(format!(
                "this call's path is exempted from the guard by `[guard] allow` `{pattern}`"
            ));
        }
    }
}

impl<'a> Guard<'a> {
    fn new(config: &'a GuardConfig) -> Guard<'a> {
        Guard {
            enabled: config.enabled,
            allow: LazyGlobs::new(&config.allow[..], false),
            deny: LazyGlobs::new(&config.deny[..], false),
            secrets: Secrets::new(&config.secrets),
        }
    }

    /// Secrets read and protected files written by a non-shell tool call.
    fn check_tool(
        &self,
        tool_name: &str,
        input: &serde_json::Value,
        project_root: &Path,
    ) -> Vec<RuleMatch> {
        if !self.enabled {
            return Vec::new();
        }
        let findings = [
            self.secrets.read_by_tool(tool_name, input),
            protect::written_by_tool(tool_name, input),
        ];
        let mut matches = Vec::new();
        for finding in findings.into_iter().flatten() {
            if self.tool_exemption(input, project_root).is_none() {
                matches.push(tool_match(tool_name, &finding));
            }
        }
        matches
    }

    /// The `[guard] allow` pattern that exempts the paths of a tool call, if any.
    fn tool_exemption(&self, input: &serde_json::Value, project_root: &Path) -> Option<String> {
        let paths: Vec<String> = ["file_path", "notebook_path", "path", "glob"]
            .iter()
            .filter_map(|f| input.get(f)?.as_str())
            .flat_map(|p| [p.to_owned(), super::relative_path(p, project_root)])
            .collect();
        if paths.is_empty() || !self.allow.could_match(&paths.join("\n")) {
            return None;
        }
        self.allow.first_match(&paths).map(str::to_owned)
    }

    /// The `[guard] allow` pattern exempting each simple command, if any.
    fn exemptions(&self, commands: &Commands) -> Vec<Option<String>> {
        if !self.allow.could_match(&commands.haystack) {
            return vec![None; commands.parsed.commands.len()];
        }
        commands
            .variants
            .iter()
            .map(|v| self.allow.first_match(v).map(str::to_owned))
            .collect()
    }

    /// At most one match per check: the first command that trips it.
    fn check_commands(&self, commands: &Commands) -> Vec<RuleMatch> {
        let parsed = &commands.parsed;
        if !self.enabled {
            return Vec::new();
        }
        let mut matches = Vec::new();
        let mut fired = HashSet::new();
        if let Some(harm) = unanalysable(parsed) {
            fired.insert("guard:unanalysable");
            matches.push(unanalysable_match(&harm));
        }
        let allowed: Vec<bool> = self
            .exemptions(commands)
            .iter()
            .map(Option::is_some)
            .collect();
        let deny_possible = self.deny.could_match(&commands.haystack);
        let budget = Cell::new(MAX_SCRIPT_BYTES);
        let mut in_protected_dir = false;
        for (index, (command, spellings)) in commands.each().enumerate() {
            if command.name() == "cd" {
                in_protected_dir = command
                    .args()
                    .last()
                    .is_some_and(|dir| protect::protected(dir).is_some());
            }
            if allowed[index] {
                continue;
            }
            let findings = self.findings(parsed, index, &allowed, in_protected_dir, 0, &budget);
            if budget.get() == 0 && fired.insert("guard:unanalysable") {
                matches.push(unanalysable_match(&format!(
                    "hands scripts to other programs nested deeper than {MAX_SCRIPT_DEPTH} levels \
                     or longer than {MAX_SCRIPT_BYTES} bytes in all"
                )));
            }
            for finding in findings {
                if fired.insert(finding.check) {
                    matches.push(found(command, &finding));
                }
            }
            if deny_possible && let Some(pattern) = self.deny.first_match(spellings) {
                let name = format!("guard:deny:{pattern}");
                if !matches.iter().any(|m| m.name == name) {
                    let harm = format!("matches the project's guard deny `{pattern}`");
                    let finding = Finding::deny("guard:deny", harm, "Ask the user to run it.");
                    let mut hit = found(command, &finding);
                    hit.name = name;
                    matches.push(hit);
                }
            }
        }
        matches
    }

    /// Every check on command `index` of `parsed`, following the scripts it runs.
    fn findings(
        &self,
        parsed: &Parsed,
        index: usize,
        allowed: &[bool],
        in_protected_dir: bool,
        depth: usize,
        budget: &Cell<usize>,
    ) -> Vec<Finding> {
        let command = &parsed.commands[index];
        let fed = xargs_fed(parsed, index);
        let mut findings = command_findings(command, &fed);
        findings.extend(self.secrets.read_by(command, &fed));
        findings.extend(protect::written_by(command, &fed, in_protected_dir));
        for program in programs(parsed, index, allowed) {
            match program {
                Program::Finding(finding) => findings.push(finding),
                Program::Script(script, via) => {
                    findings.extend(self.script_findings(&script, &via, depth + 1, budget));
                }
            }
        }
        findings
    }

    /// The checks that fire inside a script another program runs, each told as what the
    /// script's command does.
    fn script_findings(
        &self,
        script: &str,
        via: &str,
        depth: usize,
        budget: &Cell<usize>,
    ) -> Vec<Finding> {
        let cost = script.len().max(SCRIPT_COST);
        if depth > MAX_SCRIPT_DEPTH || budget.get() < cost {
            budget.set(0);
            return Vec::new();
        }
        budget.set(budget.get() - cost);
        let parsed = shell::parse(script);
        let mut findings = Vec::new();
        if let Some(harm) = unanalysable(&parsed) {
            findings.push(Finding::ask(
                "guard:unanalysable",
                format!("runs a script ({via}) that {harm}"),
                "Split it into simpler commands.",
            ));
        }
        let allowed: Vec<bool> = parsed
            .commands
            .iter()
            .map(|c| {
                let variants = c.variants();
                self.allow.could_match(&variants.join("\n")) && self.allow.any_match(&variants)
            })
            .collect();
        for index in 0..parsed.commands.len() {
            if allowed[index] {
                continue;
            }
            let inner = &parsed.commands[index];
            for finding in self.findings(&parsed, index, &allowed, false, depth, budget) {
                findings.push(Finding {
                    harm: format!("runs `{}` ({via}), which {}", inner.display(), finding.harm),
                    ..finding
                });
            }
        }
        findings
    }
}

/// Why nagger cannot vouch for a command line, if it cannot.
fn unanalysable(parsed: &Parsed) -> Option<String> {
    if parsed.nul {
        Some("holds a NUL byte".into())
    } else if parsed.too_deep {
        Some(format!("nests deeper than {} levels", shell::MAX_DEPTH))
    } else if parsed.truncated {
        Some(format!(
            "has more than {} simple commands or {} bytes to read",
            shell::MAX_COMMANDS,
            shell::MAX_SCANNED_BYTES
        ))
    } else {
        None
    }
}

fn unanalysable_match(harm: &str) -> RuleMatch {
    RuleMatch {
        kind: RuleKind::Guard,
        name: "guard:unanalysable".into(),
        severity: Severity::Ask,
        message: format!(
            "The command line {harm}, more than nagger's guard can check, so the user \
             decides. Split into simpler commands, it is checked and passes without asking."
        ),
        why: format!("the command line {harm}"),
        token_threshold: None,
    }
}

fn found(command: &SimpleCommand, finding: &Finding) -> RuleMatch {
    let shown = format!("`{}`{}", command.display(), command.origin());
    let message = match finding.severity {
        Severity::Deny => format!("Refused {shown}: it {}. {}", finding.harm, finding.advice),
        _ => format!(
            "{shown} needs the user's look: it {}. {}",
            finding.harm, finding.advice
        ),
    };
    RuleMatch {
        kind: RuleKind::Guard,
        name: finding.check.to_owned(),
        severity: finding.severity,
        message,
        why: format!("simple command {shown} {}", finding.harm),
        token_threshold: None,
    }
}

fn tool_match(tool_name: &str, finding: &Finding) -> RuleMatch {
    RuleMatch {
        kind: RuleKind::Guard,
        name: finding.check.to_owned(),
        severity: finding.severity,
        message: format!(
            "Refused this {tool_name} call: it {}. {}",
            finding.harm, finding.advice
        ),
        why: format!("{tool_name} {}", finding.harm),
        token_threshold: None,
    }
}

#[cfg(test)]
mod tests;
