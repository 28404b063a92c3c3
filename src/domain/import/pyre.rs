//! Python `re` patterns, as claude-nagger matched them, rewritten for the regex crate
//! with the same meaning, or refused with the reason when the regex crate cannot say it
//! (look-around, back-references, atomic groups and possessive quantifiers, conditionals).
//!
//! claude-nagger matched a tool rule's `tool_pattern` with `re.match` (anchored at the
//! start only) and each `input_match` value with `re.fullmatch`; nagger's `tool` must match
//! the whole name and its `input` regexes are searched. [`tool_pattern`] and
//! [`fullmatch_pattern`] give the regex that means the same under nagger's rules.

/// Why a pattern could not be carried.
pub type Refusal = String;

/// `re.match(pattern, name)` as a regex nagger matches against the whole name: the
/// pattern, then anything (newlines too).
pub fn tool_pattern(pattern: &str) -> Result<String, Refusal> {
    let body = translate(pattern, Dollar::BeforeFinalNewline)?;
    let out = if let Some(head) = strip_trailing_dot_star(&body) {
        format!("{head}(?s:.*)")
    } else if has_top_level_alternation(&body) {
        format!("(?:{body})(?s:.*)")
    } else {
        format!("{body}(?s:.*)")
    };
    check(&format!("^(?:{out})$"))?;
    Ok(out)
}

/// `re.fullmatch(pattern, value)` as a regex nagger searches in the value.
pub fn fullmatch_pattern(pattern: &str) -> Result<String, Refusal> {
    let body = translate(pattern, Dollar::End)?;
    let out = format!(r"\A(?:{body})\z");
    check(&out)?;
    Ok(out)
}

fn check(pattern: &str) -> Result<(), Refusal> {
    regex::Regex::new(pattern).map(|_| ()).map_err(|e| {
        format!(
            "the regex crate cannot compile it: {}",
            one_line(&e.to_string())
        )
    })
}

fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What Python's `$` (without MULTILINE) may be replaced by, given how the pattern is used.
#[derive(Clone, Copy)]
enum Dollar {
    /// `re.match`: `$` matches at the end or before a final newline; the match may end
    /// there, so consuming that newline changes nothing.
    BeforeFinalNewline,
    /// `re.fullmatch`: the match must reach the end, so `$` can only match there.
    End,
}

/// Rewrites the syntax that differs; refuses what has no equivalent.
fn translate(pattern: &str, dollar: Dollar) -> Result<String, Refusal> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut multiline = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let Some(&next) = chars.get(i + 1) else {
                    return Err("it ends with a lone backslash".into());
                };
                match next {
                    '1'..='9' => {
                        return Err(format!("back-reference \\{next}: the regex crate has none"));
                    }
                    'Z' => out.push_str(r"\z"),
                    'N' => return Err("\\N{…} named characters: the regex crate has none".into()),
                    '0' => return Err("octal escape \\0: write \\x00 instead".into()),
                    _ => {
                        out.push('\\');
                        out.push(next);
                    }
                }
                i += 2;
            }
            '[' => {
                i = class(&chars, i, &mut out)?;
            }
            '(' if chars.get(i + 1) == Some(&'?') => {
                let rest: String = chars[i + 2..].iter().take(3).collect();
                if rest.starts_with('=') || rest.starts_with('!') {
                    return Err("look-ahead `(?=`/`(?!`: the regex crate has no look-around".into());
                }
                if rest.starts_with("<=") || rest.starts_with("<!") {
                    return Err(
                        "look-behind `(?<=`/`(?<!`: the regex crate has no look-around".into(),
                    );
                }
                if rest.starts_with('>') {
                    return Err("atomic group `(?>`: the regex crate has none".into());
                }
                if rest.starts_with('(') {
                    return Err("conditional `(?(…)`: the regex crate has none".into());
                }
                if rest.starts_with("P=") {
                    return Err("named back-reference `(?P=`: the regex crate has none".into());
                }
                if rest.starts_with('#') {
                    // A comment: dropped.
                    let close = chars[i..]
                        .iter()
                        .position(|&c| c == ')')
                        .ok_or("an unclosed `(?#` comment")?;
                    i += close + 1;
                    continue;
                }
                if rest.starts_with("P<") || rest.starts_with(':') {
                    out.push_str("(?");
                    i += 2;
                    continue;
                }
                // Inline flags: (?aiLmsux) or (?flags:…) or (?flags-flags:…).
                let mut j = i + 2;
                let mut flags = String::new();
                while let Some(&f) = chars.get(j) {
                    if f == ')' || f == ':' {
                        break;
                    }
                    flags.push(f);
                    j += 1;
                }
                for f in flags.chars() {
                    match f {
                        'i' | 'm' | 's' | 'x' | '-' => {}
                        'u' => {}
                        'a' => {
                            return Err(
                                "the ASCII flag (?a): the regex crate's classes are Unicode".into(),
                            );
                        }
                        'L' => return Err("the locale flag (?L)".into()),
                        other => return Err(format!("unknown flag `{other}`")),
                    }
                }
                let kept: String = flags.chars().filter(|&f| f != 'u').collect();
                if kept.split('-').next().is_some_and(|on| on.contains('m')) {
                    multiline = true;
                }
                if kept.is_empty() || kept == "-" {
                    if chars.get(j) == Some(&':') {
                        out.push_str("(?:");
                    }
                    // `(?u)` alone: nothing.
                } else {
                    out.push_str("(?");
                    out.push_str(&kept);
                    if let Some(&end) = chars.get(j) {
                        out.push(end);
                    }
                }
                i = j + 1;
            }
            '$' if !multiline => {
                // Only where nothing can follow but closing groups and an alternative.
                let mut j = i + 1;
                while chars.get(j) == Some(&')') {
                    j += 1;
                }
                match chars.get(j) {
                    None | Some('|') => {}
                    Some(_) => {
                        return Err("`$` followed by more pattern: its meaning before a final newline cannot be kept".into());
                    }
                }
                out.push_str(match dollar {
                    Dollar::BeforeFinalNewline => r"(?:\n?\z)",
                    Dollar::End => r"\z",
                });
                i += 1;
            }
            '*' | '+' | '?' | '}' if matches!(chars.get(i + 1), Some('+')) => {
                return Err("possessive quantifier: the regex crate has none".into());
            }
            '{' => {
                // Python reads `{` that does not start a valid repetition as a literal.
                let close = chars[i..].iter().position(|&c| c == '}');
                let valid = close.is_some_and(|n| {
                    let inner: String = chars[i + 1..i + n].iter().collect();
                    let mut parts = inner.splitn(2, ',');
                    let lo = parts.next().unwrap_or("");
                    let hi = parts.next();
                    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
                    digits(lo) && hi.is_none_or(digits) && !(lo.is_empty() && hi.is_none())
                });
                if valid && i > 0 {
                    let n = close.unwrap_or(0);
                    let inner: String = chars[i + 1..i + n].iter().collect();
                    if let Some(hi) = inner.strip_prefix(',') {
                        // `{,n}`: Python's zero to n.
                        out.push_str("{0,");
                        out.push_str(hi);
                        out.push('}');
                    } else {
                        out.push('{');
                        out.push_str(&inner);
                        out.push('}');
                    }
                    i += n + 1;
                } else {
                    out.push_str(r"\{");
                    i += 1;
                }
            }
            '}' => {
                out.push_str(r"\}");
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Copies a character class starting at `chars[start]` (`[`), escaping what the regex
/// crate reads differently (a nested `[`, `&&`, `--`, `~~`), and returns the index after it.
fn class(chars: &[char], start: usize, out: &mut String) -> Result<usize, Refusal> {
    let mut i = start + 1;
    out.push('[');
    if chars.get(i) == Some(&'^') {
        out.push('^');
        i += 1;
    }
    // A `]` first is a literal.
    if chars.get(i) == Some(&']') {
        out.push_str(r"\]");
        i += 1;
    }
    while let Some(&c) = chars.get(i) {
        match c {
            ']' => {
                out.push(']');
                return Ok(i + 1);
            }
            '\\' => {
                let next = *chars
                    .get(i + 1)
                    .ok_or("a character class ends with a backslash")?;
                match next {
                    'b' => out.push_str(r"\x08"),
                    '0'..='9' => return Err("an octal escape in a character class".into()),
                    _ => {
                        out.push('\\');
                        out.push(next);
                    }
                }
                i += 2;
            }
            '[' => {
                out.push_str(r"\[");
                i += 1;
            }
            '&' | '-' | '~' if chars.get(i + 1) == Some(&c) => {
                out.push('\\');
                out.push(c);
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    Err("an unclosed character class `[`".into())
}

/// The pattern without a final top-level `.*`, when it ends with one and has no
/// alternation (so `mcp__x__.*` becomes `mcp__x__(?s:.*)`, not `mcp__x__.*(?s:.*)`).
fn strip_trailing_dot_star(body: &str) -> Option<&str> {
    let head = body.strip_suffix(".*")?;
    if has_top_level_alternation(body) || head.ends_with('\\') {
        return None;
    }
    // `.*` must not be quantified or inside a group: the char before `.` decides little,
    // but a class or group ending right before is fine; a preceding backslash escapes `.`.
    Some(head)
}

fn has_top_level_alternation(body: &str) -> bool {
    let mut depth = 0i32;
    let mut in_class = false;
    let mut escaped = false;
    for c in body.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class => depth += 1,
            ')' if !in_class => depth -= 1,
            '|' if !in_class && depth == 0 => return true,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool_matches(python: &str, name: &str) -> bool {
        let p = tool_pattern(python).unwrap();
        regex::Regex::new(&format!("^(?:{p})$"))
            .unwrap()
            .is_match(name)
    }

    #[test]
    fn re_match_is_anchored_at_the_start_only() {
        assert!(tool_matches(
            "mcp__redmine__update",
            "mcp__redmine__update_issue"
        ));
        assert!(!tool_matches("redmine", "mcp__redmine__update"));
        assert!(tool_matches(
            "mcp__redmine_epic_grid__update.*",
            "mcp__redmine_epic_grid__update_x"
        ));
        assert_eq!(
            tool_pattern("mcp__redmine_epic_grid__update.*").unwrap(),
            "mcp__redmine_epic_grid__update(?s:.*)"
        );
        // Alternation binds loosest: both alternatives stay anchored at the start.
        assert!(tool_matches("Write|Edit", "Edit"));
        assert!(tool_matches("Write|Edit", "EditNotebook"));
        assert!(!tool_matches("Write|Edit", "MultiEdit"));
        assert!(tool_matches("mcp__.*__write.*", "mcp__fs__write_file"));
    }

    #[test]
    fn dollar_keeps_its_python_meaning() {
        assert!(tool_matches("Edit$", "Edit"));
        assert!(!tool_matches("Edit$", "EditX"));
        assert!(
            tool_matches("Edit$", "Edit\n"),
            "re.match('Edit$', 'Edit\\n') matches"
        );
        let full = regex::Regex::new(&fullmatch_pattern("closed$").unwrap()).unwrap();
        assert!(full.is_match("closed"));
        assert!(!full.is_match("closed\n"), "fullmatch needs the end");
        assert!(tool_pattern("a$b").is_err());
    }

    #[test]
    fn fullmatch_is_anchored_at_both_ends() {
        let p = fullmatch_pattern("open|closed").unwrap();
        let re = regex::Regex::new(&p).unwrap();
        assert!(re.is_match("closed"));
        assert!(!re.is_match("reopened"));
        assert!(!re.is_match("closed later"));
        let re = regex::Regex::new(&fullmatch_pattern(r"\d+\Z").unwrap()).unwrap();
        assert!(re.is_match("42"));
    }

    #[test]
    fn what_the_regex_crate_cannot_say_is_refused_with_the_reason() {
        for (p, why) in [
            ("mcp__(?!serena).*", "look-ahead"),
            ("(?<=x)y", "look-behind"),
            (r"(a)\1", "back-reference"),
            ("(?P<n>a)(?P=n)", "back-reference"),
            ("a*+", "possessive"),
            ("(?>a)", "atomic"),
            ("(?a)\\w", "ASCII"),
            ("[abc", "unclosed"),
        ] {
            let err = tool_pattern(p).unwrap_err();
            assert!(err.contains(why), "{p}: {err}");
        }
    }

    #[test]
    fn python_literals_the_regex_crate_reads_otherwise_are_escaped() {
        assert!(tool_matches("a{x}", "a{x}"));
        assert!(tool_matches("[[]", "["));
        assert!(tool_matches("[a&&b]", "&"));
        assert!(tool_matches("x{,2}y", "xxy"));
        assert!(tool_matches("(?i)edit", "EDIT"));
        assert!(tool_matches("(?#comment)Edit", "Edit"));
        assert!(tool_matches("(?P<t>Ed)it", "Edit"));
    }
}
