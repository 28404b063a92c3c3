//! Compressed subagent reports: which agents must end with a `[COMPRESSED]`
//! block, how to find it in a final message, and the formats nagger asks for
//! (general: 10 lines; reviewers: 20 lines with severities and a verdict).

use crate::base::glob::glob_nesting_problem;
use crate::domain::config::CompressConfig;

/// Whether the stop of an agent of this type (or role) is checked.
pub fn applies(config: &CompressConfig, agent_type: &str, role: Option<&str>) -> bool {
    config.enabled && matches_any(&config.types, agent_type, role)
}

/// Whether the agent reports in the reviewer format.
pub fn is_reviewer(config: &CompressConfig, agent_type: &str, role: Option<&str>) -> bool {
    matches_any(&config.reviewer_types, agent_type, role)
}

fn matches_any(patterns: &[String], agent_type: &str, role: Option<&str>) -> bool {
    if patterns.is_empty() {
        return false;
    }
    // The default, "every agent": globset would build a regex to say so.
    if patterns.iter().any(|p| p == "*") {
        return true;
    }
    let set = type_set(patterns);
    set.is_match(agent_type) || role.is_some_and(|r| set.is_match(r))
}

/// The patterns as one globset. Plain names, prefixes and suffixes (what agent types and
/// roles use) are matched by globset without building a regex; classes, `?` and
/// alternatives cost one. Invalid globs are reported by config validation; here
/// they match nothing.
fn type_set(patterns: &[String]) -> globset::GlobSet {
    let mut builder = globset::GlobSetBuilder::new();
    for pattern in patterns {
        if let Ok(glob) = parse_type_glob(pattern) {
            builder.add(glob);
        }
    }
    std::panic::catch_unwind(|| builder.build())
        .ok()
        .and_then(Result::ok)
        .unwrap_or_else(globset::GlobSet::empty)
}

#[cfg(test)]
fn glob_matches(pattern: &str, name: &str) -> bool {
    type_set(&[pattern.to_string()]).is_match(name)
}

/// A glob of `[compress] types`/`reviewer_types` compiled as SubagentStart and
/// SubagentStop compile it, or why it cannot be: `doctor` checks patterns with this.
pub fn type_glob(pattern: &str) -> Result<globset::GlobMatcher, String> {
    let glob = parse_type_glob(pattern)?;
    std::panic::catch_unwind(|| glob.compile_matcher())
        .map_err(|_| "too complex to compile".to_string())
}

fn parse_type_glob(pattern: &str) -> Result<globset::Glob, String> {
    if let Some(problem) = glob_nesting_problem(pattern) {
        return Err(problem);
    }
    globset::Glob::new(pattern).map_err(|e| e.kind().to_string())
}

/// Whether some line of `text` starts with the marker (leading blanks allowed).
pub fn has_marker(text: &str, marker: &str) -> bool {
    marker_line(text, marker).is_some()
}

/// Whether a subagent's stop is sent back for its report: only when its final message
/// was read, says something and has no marker line. No message (none given, an empty
/// transcript or one holding only the prompt, one that cannot be read) is nothing to
/// judge, and is never sent back.
pub fn sends_back(final_message: Option<&str>, marker: &str) -> bool {
    final_message.is_some_and(|text| !text.trim().is_empty() && !has_marker(text, marker))
}

/// Index of the last line that starts with the marker.
fn marker_line(text: &str, marker: &str) -> Option<usize> {
    if marker.is_empty() {
        return None;
    }
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with(marker))
        .map(|(i, _)| i)
        .last()
}

/// The compressed block: from the last marker line on, at most `max_lines` non-blank
/// lines (what lies beyond is cut and counted).
pub fn compressed_block(text: &str, marker: &str, max_lines: usize) -> Option<String> {
    let start = marker_line(text, marker)?;
    let lines: Vec<&str> = text
        .lines()
        .skip(start)
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    let keep = max_lines.max(1);
    let mut out: Vec<String> = lines
        .iter()
        .take(keep)
        .map(|l| l.trim_start().to_string())
        .collect();
    if lines.len() > keep {
        out.push(format!("… ({} more lines cut)", lines.len() - keep));
    }
    Some(out.join("\n"))
}

/// The report format, as the agent should write it.
pub fn format_text(config: &CompressConfig, agent_type: &str, reviewer: bool) -> String {
    let marker = &config.marker;
    if reviewer {
        format!(
            "{marker} agent_type: {agent_type}\n\
             Files reviewed: <file>, <file>\n\
             Critical: <file:line — problem>\n\
             Warning: <file:line — problem>\n\
             Suggestion: <file:line — idea>\n\
             Verdict: PASS | FAIL (<n> critical, <n> warning)"
        )
    } else {
        format!(
            "{marker} agent_type: {agent_type}\n\
             Changed files: <file>, <file>\n\
             Result: <1-3 lines: what you found or did>\n\
             Decisions: <choices made, if any>\n\
             Blockers: <what stops the work, if any>"
        )
    }
}

/// The line limit of the agent's format.
pub fn max_lines(config: &CompressConfig, reviewer: bool) -> usize {
    if reviewer {
        config.reviewer_max_lines
    } else {
        config.max_lines
    }
}

/// Why the stop is blocked, showing the exact format.
pub fn block_reason(config: &CompressConfig, agent_type: &str, reviewer: bool) -> String {
    format!(
        "[nagger] Your final message has no compressed report. Answer once more with a final \
         message that contains a line starting with `{}`, at most {} lines in all, in this \
         format:\n\n{}\n\nLeave out empty fields. You are asked this once.",
        config.marker,
        max_lines(config, reviewer),
        format_text(config, agent_type, reviewer)
    )
}

/// What a starting agent is told about its final message.
pub fn start_instruction(config: &CompressConfig, agent_type: &str, reviewer: bool) -> String {
    format!(
        "End your final message with a compressed report of at most {} lines:\n{}",
        max_lines(config, reviewer),
        format_text(config, agent_type, reviewer)
    )
}

/// Tags a report earns from its fields: `decision`, `blocker`, `handoff` when those
/// say something, plus names listed on a `Tags:` or `For:` line (roles, or `all`).
pub fn report_tags(text: &str) -> Vec<String> {
    let mut tags: Vec<String> = Vec::new();
    let mut add = |t: &str| {
        let t = t.trim().to_lowercase();
        if !t.is_empty() && !tags.contains(&t) {
            tags.push(t);
        }
    };
    for line in text.lines() {
        let Some((field, value)) = line.trim().split_once(':') else {
            continue;
        };
        let field = field
            .trim_start_matches(['-', '*', '#', ' '])
            .trim()
            .to_lowercase();
        if says_nothing(value) {
            continue;
        }
        match field.as_str() {
            "decision" | "decisions" => add("decision"),
            "blocker" | "blockers" => add("blocker"),
            "handoff" | "handoffs" | "next" => add("handoff"),
            "tags" | "for" => value
                .split([',', ' '])
                .filter(|t| {
                    !t.is_empty()
                        && t.chars()
                            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                })
                .for_each(&mut add),
            _ => {}
        }
    }
    tags
}

/// "none", "-", "(if any)" and friends: a field left empty.
fn says_nothing(value: &str) -> bool {
    let v = value
        .trim()
        .trim_matches(|c: char| matches!(c, '(' | ')' | '<' | '>' | '.' | '`'))
        .trim()
        .to_lowercase();
    matches!(
        v.as_str(),
        "" | "-" | "—" | "none" | "n/a" | "na" | "no" | "nothing" | "if any" | "없음" | "なし"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::glob::MAX_BRACE_DEPTH;

    fn config() -> CompressConfig {
        CompressConfig::default()
    }

    #[test]
    fn marker_must_start_a_line() {
        assert!(has_marker(
            "done\n[COMPRESSED] agent_type: coder",
            "[COMPRESSED]"
        ));
        assert!(has_marker("  [COMPRESSED] x", "[COMPRESSED]"));
        assert!(!has_marker(
            "I will write a [COMPRESSED] block later",
            "[COMPRESSED]"
        ));
        assert!(!has_marker("", "[COMPRESSED]"));
        assert!(!has_marker("anything", ""));
    }

    #[test]
    fn only_a_message_that_was_read_and_lacks_the_marker_is_sent_back() {
        assert!(sends_back(Some("done"), "[COMPRESSED]"));
        assert!(!sends_back(Some("done\n[COMPRESSED] ok"), "[COMPRESSED]"));
        for nothing in [None, Some(""), Some("  \n\t")] {
            assert!(!sends_back(nothing, "[COMPRESSED]"), "{nothing:?}");
        }
    }

    #[test]
    fn block_is_taken_from_the_last_marker_and_cut_to_the_line_limit() {
        let text = "[COMPRESSED] draft\nold\n\nthinking\n[COMPRESSED] agent_type: coder\nResult: ok\n\nDecisions: none\nx\ny";
        let block = compressed_block(text, "[COMPRESSED]", 3).unwrap();
        assert_eq!(
            block,
            "[COMPRESSED] agent_type: coder\nResult: ok\nDecisions: none\n… (2 more lines cut)"
        );
        assert_eq!(compressed_block("no marker", "[COMPRESSED]", 10), None);
    }

    #[test]
    fn formats_have_their_fields_and_fit_their_limits() {
        let c = config();
        let general = format_text(&c, "coder", false);
        for field in [
            "[COMPRESSED] agent_type: coder",
            "Changed files:",
            "Result:",
            "Decisions:",
            "Blockers:",
        ] {
            assert!(general.contains(field), "{field}");
        }
        assert!(general.lines().count() <= c.max_lines);
        let reviewer = format_text(&c, "reviewer", true);
        for field in [
            "Files reviewed:",
            "Critical:",
            "Warning:",
            "Suggestion:",
            "Verdict: PASS | FAIL",
        ] {
            assert!(reviewer.contains(field), "{field}");
        }
        assert!(reviewer.lines().count() <= c.reviewer_max_lines);
        let reason = block_reason(&c, "reviewer", true);
        assert!(
            reason.contains("at most 20 lines") && reason.contains("Verdict:"),
            "{reason}"
        );
        assert!(block_reason(&c, "coder", false).contains("at most 10 lines"));
    }

    #[test]
    fn configured_marker_is_used_in_the_format() {
        let c = CompressConfig {
            marker: "[SHORT]".into(),
            ..config()
        };
        assert!(format_text(&c, "x", false).starts_with("[SHORT] agent_type: x"));
    }

    #[test]
    fn types_and_reviewer_types_are_globs_on_type_or_role() {
        let c = CompressConfig {
            types: vec!["coder*".into(), "reviewer".into()],
            reviewer_types: vec!["review*".into()],
            ..config()
        };
        assert!(applies(&c, "coder-2", None));
        assert!(applies(&c, "general-purpose", Some("reviewer")));
        assert!(!applies(&c, "Explore", None));
        assert!(is_reviewer(&c, "reviewer-ui", None));
        assert!(!is_reviewer(&c, "coder", None));
        let off = CompressConfig {
            enabled: false,
            ..config()
        };
        assert!(!applies(&off, "coder", None));
        assert!(
            applies(&config(), "anything", None),
            "default types = [\"*\"]"
        );
    }

    #[test]
    fn report_tags_come_from_fields_that_say_something() {
        let text = "[COMPRESSED] agent_type: coder\nDecisions: use WAL\nBlockers: (none)\nTags: reviewer, All\nFor: ../x";
        assert_eq!(report_tags(text), ["decision", "reviewer", "all"]);
        assert!(report_tags("Decisions: -\nBlockers: none\nHandoff: <if any>").is_empty());
        assert_eq!(report_tags("Blockers: CI is red"), ["blocker"]);
    }

    #[test]
    fn wildcards_match_like_globset() {
        let names = [
            "reviewer",
            "code-reviewer",
            "review",
            "",
            "rev?ewer",
            "a*b",
            "ünï-reviewer",
        ];
        let patterns = [
            "reviewer",
            "*reviewer",
            "*-reviewer",
            "re*er",
            "rev?ewer",
            "*",
            "",
            "**",
            "?*",
            "*review*",
            "a*b*c",
            "*?",
            "ü*",
            "r[e]viewer",
            "{review,reviewer}",
        ];
        for p in patterns {
            let glob = globset::Glob::new(p).unwrap().compile_matcher();
            for n in names {
                assert_eq!(glob_matches(p, n), glob.is_match(n), "{p:?} vs {n:?}");
            }
        }
    }

    #[test]
    fn deeply_nested_alternatives_are_an_error_not_a_panic() {
        for depth in [MAX_BRACE_DEPTH + 1, 200, 5_000, 200_000] {
            let pattern = format!("{}a{}", "{".repeat(depth), "}".repeat(depth));
            assert!(type_glob(&pattern).unwrap_err().contains("nested"));
            assert!(!glob_matches(&pattern, "a"));
        }
        let fine = format!("{}a{}", "{".repeat(8), "}".repeat(8));
        assert!(type_glob(&fine).unwrap().is_match("a"));
    }
}
