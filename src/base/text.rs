//! Shortening text for people and agents: the one place that decides how text is cut
//! (on characters, never inside one, with `…` saying something was left out).

/// The first `max` characters of `s`, and whether anything was left out.
pub fn prefix(s: &str, max: usize) -> (&str, bool) {
    match s.char_indices().nth(max) {
        None => (s, false),
        Some((end, _)) => (&s[..end], true),
    }
}

/// At most `max` characters of `s`, the `…` that says something was cut included.
pub fn cut(s: &str, max: usize) -> String {
    if let (whole, false) = prefix(s, max) {
        whole.to_string()
    } else {
        let (head, _) = prefix(s, max.saturating_sub(1));
        format!("{head}…")
    }
}

/// `s` on one line (every run of whitespace one space), at most `max` characters.
pub fn one_line(s: &str, max: usize) -> String {
    cut(&s.split_whitespace().collect::<Vec<_>>().join(" "), max)
}

/// What kind of JSON value `value` is, as a sentence names it ("an array").
/// Whether `c` is not shown as itself: a control character, a mark that reorders text
/// right to left, a character of no width.
pub fn unseen(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00ad}'
                | '\u{061c}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{2069}'
                | '\u{feff}'
        )
}

pub fn json_kind(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `text` with its `%XX` escapes decoded, as a URL's path is.
pub fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut k = 0;
    while k < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[k] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(k + 1).copied().and_then(hex),
                bytes.get(k + 2).copied().and_then(hex),
            )
        {
            out.push(u8::try_from(hi * 16 + lo).unwrap_or(b'%'));
            k += 3;
            continue;
        }
        out.push(bytes[k]);
        k += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `text` with each `$` whose following text `matches` (length taken after the `$`,
/// replacement) replaced.
pub fn replace_dollar(text: &str, matches: impl Fn(&str) -> Option<(usize, String)>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some((len, value)) = matches(after) {
            out.push_str(&value);
            rest = &after[len..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_count_characters_and_include_the_ellipsis() {
        assert_eq!(cut("ééé", 3), "ééé");
        assert_eq!(cut("éééé", 3), "éé…");
        assert_eq!(cut("abc", 0), "…");
        assert_eq!(cut("", 0), "");
        assert_eq!(prefix("héllo", 2), ("hé", true));
        assert_eq!(prefix("hé", 2), ("hé", false));
    }

    #[test]
    fn one_line_flattens_whitespace_before_cutting() {
        assert_eq!(one_line("a\n  b\tc", 10), "a b c");
        assert_eq!(one_line("abcdef", 3), "ab…");
        assert!(one_line(&"word ".repeat(1000), 400).chars().count() <= 400);
    }

    #[test]
    fn percent_escapes_decode_and_broken_ones_stay() {
        assert_eq!(percent_decoded("a%2Eb%2fc"), "a.b/c");
        assert_eq!(percent_decoded("100%"), "100%");
        assert_eq!(percent_decoded("%zz%4"), "%zz%4");
    }
}

/// The bytes `text` encodes in base64 (the standard alphabet or the URL-safe one, with
/// or without `=` padding); `None` when it is not base64.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        }))
    };
    let body = text.trim_end_matches('=').as_bytes();
    if body.is_empty() || body.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    for chunk in body.chunks(4) {
        let mut n = 0u32;
        for (k, c) in chunk.iter().enumerate() {
            n |= value(*c)? << (18 - 6 * k);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

#[cfg(test)]
mod base64_tests {
    #[test]
    fn decodes_both_alphabets_with_and_without_padding() {
        assert_eq!(
            super::base64_decode("bmFnZ2VyIHVuaW5zdGFsbA==").as_deref(),
            Some(&b"nagger uninstall"[..])
        );
        assert_eq!(super::base64_decode("YQ").as_deref(), Some(&b"a"[..]));
        assert_eq!(
            super::base64_decode("-_8").as_deref(),
            Some(&[0xfb, 0xff][..])
        );
        assert_eq!(super::base64_decode("not base64!"), None);
        assert_eq!(super::base64_decode("abcde"), None);
    }
}
