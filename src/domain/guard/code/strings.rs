//! The strings code builds from literals, neighbours joined as the code joins them: what
//! self-protection looks for names of protected files in.

use super::model::{Language, MAX_CODE};

/// The strings `code` builds from literals: neighbours joined as the code joins them
/// (`'.claude' + '-nagger'` → `.claude-nagger`; `join('.claude', 'x')` and
/// `'.claude' / 'x'` → `.claude/x`).
pub(crate) fn strings(code: &str) -> Vec<String> {
    let code = &code[..floor_char_boundary(code, MAX_CODE)];
    let bytes = code.as_bytes();
    let mut out: Vec<String> = Vec::new();
    let mut last_end: Option<usize> = None;
    let mut extra: Vec<String> = Vec::new();
    let mut i = 0;
    while i < bytes.len() && out.len() < 1024 {
        let q = bytes[i];
        if !matches!(q, b'\'' | b'"' | b'`') {
            i += 1;
            continue;
        }
        let start = i;
        let mut text = Vec::new();
        // Lua reads `\NNN` in decimal where the others read octal: its reading is kept
        // too, as a string of its own.
        let mut lua = Vec::new();
        let mut digits = false;
        i += 1;
        while i < bytes.len() && bytes[i] != q {
            if bytes[i] == b'\\' && i + 1 < bytes.len() {
                digits |= bytes[i + 1].is_ascii_digit();
                super::lexer::escape(bytes, i + 1, &mut lua, Language::Lua);
                i = super::lexer::escape(bytes, i + 1, &mut text, Language::Generic);
                continue;
            }
            text.push(bytes[i]);
            lua.push(bytes[i]);
            i += 1;
        }
        i += 1;
        if digits {
            extra.push(String::from_utf8_lossy(&lua).into_owned());
        }
        let text = String::from_utf8_lossy(&text).into_owned();
        let between = last_end.map(|end| code.get(end..start).unwrap_or("x").trim());
        match (between, out.last_mut()) {
            (Some("+" | "." | ""), Some(prev)) => prev.push_str(&text),
            (Some("," | "/"), Some(prev)) => {
                // `join('.claude', 'x')` names `.claude/x`; `rename('.claude', 'x')` names
                // both on their own.
                let joined = format!("{prev}/{text}");
                out.push(text);
                out.push(joined);
            }
            _ => out.push(text),
        }
        last_end = Some(i.min(bytes.len()));
    }
    out.extend(extra.into_iter().take(64));
    out
}

fn floor_char_boundary(s: &str, max: usize) -> usize {
    if s.len() <= max {
        return s.len();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    end
}
