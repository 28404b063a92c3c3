//! Roles: what a subagent is for. Taken from the spawning prompt's `[ROLE:x]`
//! tag, else the team member `name`, else the agent_type, and normalised through
//! the configured table so `coder-fix-bug` and `coder-2` both become `coder`.

use crate::domain::config::RoleResolution;

/// The `[ROLE:name]` tag of a prompt, if any (the first one).
pub fn role_tag(prompt: &str) -> Option<&str> {
    let bytes = prompt.as_bytes();
    let mut from = 0;
    while let Some(pos) = memchr::memchr(b'[', &bytes[from..]) {
        let start = from + pos + 1;
        from = start;
        let rest = &prompt[start..];
        let Some(after) = strip_prefix_ignore_case(rest, "ROLE") else {
            continue;
        };
        let after = after.trim_start();
        let Some(after) = after.strip_prefix(':') else {
            continue;
        };
        let Some(end) = after.find(']') else {
            continue;
        };
        let name = after[..end].trim();
        if !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
        {
            return Some(name);
        }
    }
    None
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// The raw role of a spawn before normalisation.
pub fn raw_role<'a>(
    prompt: Option<&'a str>,
    name: Option<&'a str>,
    subagent_type: Option<&'a str>,
) -> Option<&'a str> {
    prompt
        .and_then(role_tag)
        .or(name.map(str::trim).filter(|n| !n.is_empty()))
        .or(subagent_type.map(str::trim).filter(|t| !t.is_empty()))
}

/// Normalises a raw role: exact alias, else the longest configured prefix, else
/// a trailing `-N` dropped (and the table tried again on what remains).
pub fn normalize(raw: &str, table: &RoleResolution) -> String {
    if let Some(role) = lookup(raw, table) {
        return role;
    }
    let stripped = strip_numeric_suffix(raw);
    if stripped != raw
        && let Some(role) = lookup(stripped, table)
    {
        return role;
    }
    stripped.to_string()
}

fn lookup(raw: &str, table: &RoleResolution) -> Option<String> {
    if let Some(role) = table.aliases.get(raw) {
        return Some(role.clone());
    }
    table
        .prefixes
        .iter()
        .filter(|(prefix, _)| !prefix.is_empty() && raw.starts_with(prefix.as_str()))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, role)| role.clone())
}

/// `coder-2` -> `coder`; `coder` and `-3` stay as they are.
fn strip_numeric_suffix(raw: &str) -> &str {
    match raw.rsplit_once('-') {
        Some((head, tail))
            if !head.is_empty() && !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) =>
        {
            head
        }
        _ => raw,
    }
}

/// The resolved role of a spawn.
pub fn resolve(
    prompt: Option<&str>,
    name: Option<&str>,
    subagent_type: Option<&str>,
    table: &RoleResolution,
) -> Option<String> {
    raw_role(prompt, name, subagent_type).map(|r| normalize(r, table))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn table() -> RoleResolution {
        RoleResolution {
            prefixes: BTreeMap::from([
                ("coder".to_string(), "coder".to_string()),
                ("qa".to_string(), "tester".to_string()),
                ("coder-review".to_string(), "reviewer".to_string()),
            ]),
            aliases: BTreeMap::from([("general-purpose".to_string(), "worker".to_string())]),
        }
    }

    #[test]
    fn role_tag_is_found_anywhere_and_case_insensitively() {
        assert_eq!(role_tag("do this [ROLE:coder] now"), Some("coder"));
        assert_eq!(role_tag("[role: tester-2]"), Some("tester-2"));
        assert_eq!(role_tag("[ROLE:]"), None);
        assert_eq!(role_tag("[x] [ROLE:a b] [ROLE:ok]"), Some("ok"));
        assert_eq!(role_tag("[ROLE"), None);
        assert_eq!(role_tag("[ROLEcoder]"), None);
        assert_eq!(role_tag("ü[ROLE:ü]"), None);
    }

    #[test]
    fn tag_wins_over_name_over_type() {
        assert_eq!(raw_role(Some("[ROLE:a]"), Some("b"), Some("c")), Some("a"));
        assert_eq!(raw_role(Some("no tag"), Some("b"), Some("c")), Some("b"));
        assert_eq!(raw_role(None, Some(" "), Some("c")), Some("c"));
        assert_eq!(raw_role(None, None, None), None);
    }

    #[test]
    fn longest_prefix_wins_then_numeric_suffix_is_dropped() {
        let t = table();
        assert_eq!(normalize("coder-fix-bug", &t), "coder");
        assert_eq!(normalize("coder-review-ui", &t), "reviewer");
        assert_eq!(normalize("qa-lead", &t), "tester");
        assert_eq!(normalize("general-purpose", &t), "worker");
        assert_eq!(normalize("navigator-3", &t), "navigator");
        assert_eq!(normalize("navigator", &t), "navigator");
        assert_eq!(normalize("-3", &t), "-3");
    }
}
