//! A small tokenizer for the languages interpreters are handed code in: names, string
//! literals (their values), command strings (backticks, `qx`, `%x`), punctuation and
//! statement ends. Comments vanish; regular expressions are skipped whole. Bounded: it
//! stops after `MAX_TOKENS`.

use super::model::Language;

/// Most tokens read from one program.
pub(super) const MAX_TOKENS: usize = 20_000;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    /// A name, with its sigil in Perl and PHP (`$x`, `@ARGV`); R names keep their dots.
    Ident(String),
    /// A string literal; `known` is false when it interpolates values (`f"{x}"`, `"$x"`).
    Str {
        text: String,
        known: bool,
    },
    /// A string run by a shell: `` `cmd` `` in Perl, Ruby, PHP; `qx(…)`; `%x(…)`.
    Cmd {
        text: String,
        known: bool,
    },
    Num(String),
    Punct(&'static str),
    /// `;` or the end of a line outside brackets.
    End,
}

/// A lexed program: its tokens and the code pieces found inside strings
/// (`${…}`, `#{…}`, the replacement of Perl's `s///e`), to be looked at in turn.
pub(super) struct Lexed {
    pub toks: Vec<Tok>,
    pub nested: Vec<String>,
}

const PUNCTS: &[&str] = &[
    "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "..", "<-", "|&", "**", "//", "(", ")",
    "[", "]", "{", "}", ",", ".", "=", "+", "-", "*", "/", "%", "<", ">", "!", "&", "|", "~", "?",
    ":", "@", "$", "^", "\\", "#",
];

#[allow(clippy::struct_excessive_bools)]
struct Rules {
    hash_comment: bool,
    slash_comment: bool,
    dash_comment: bool,
    single_quote: bool,
    triple: bool,
    backtick: Backtick,
    regex: bool,
    sigils: bool,
    perl_quotes: bool,
    ruby_percent: bool,
    lua_long: bool,
    dotted_names: bool,
}

#[derive(PartialEq, Clone, Copy)]
enum Backtick {
    Command,
    Template,
    Name,
    Plain,
}

fn rules(lang: Language) -> Rules {
    use Language::{Awk, Generic, Js, Lua, Perl, Php, Python, R, Ruby};
    let mut r = Rules {
        hash_comment: true,
        slash_comment: false,
        dash_comment: false,
        single_quote: true,
        triple: false,
        backtick: Backtick::Plain,
        regex: false,
        sigils: false,
        perl_quotes: false,
        ruby_percent: false,
        lua_long: false,
        dotted_names: false,
    };
    match lang {
        Python | Generic => {
            r.triple = true;
            r.backtick = if lang == Generic {
                Backtick::Template
            } else {
                Backtick::Plain
            };
        }
        Js => {
            r.hash_comment = false;
            r.slash_comment = true;
            r.backtick = Backtick::Template;
            r.regex = true;
        }
        Ruby => {
            r.backtick = Backtick::Command;
            r.regex = true;
            r.ruby_percent = true;
        }
        Perl => {
            r.backtick = Backtick::Command;
            r.regex = true;
            r.sigils = true;
            r.perl_quotes = true;
        }
        Php => {
            r.slash_comment = true;
            r.backtick = Backtick::Command;
            r.sigils = true;
        }
        Lua => {
            r.hash_comment = false;
            r.dash_comment = true;
            r.lua_long = true;
        }
        Awk => {
            r.single_quote = false;
            r.regex = true;
        }
        R => {
            r.backtick = Backtick::Name;
            r.dotted_names = true;
        }
        _ => {}
    }
    r
}

/// Names after which `/` starts a regular expression rather than a division.
const REGEX_AFTER: &[&str] = &[
    "if", "unless", "and", "or", "not", "return", "split", "grep", "map", "when", "while", "until",
    "x", "lt", "gt", "eq", "ne", "cmp", "typeof", "in", "of", "case",
];

pub(super) fn lex(code: &str, lang: Language) -> Lexed {
    let rule = rules(lang);
    let b = code.as_bytes();
    let mut toks: Vec<Tok> = Vec::new();
    let mut nested = Vec::new();
    // Brackets open (`(`, `[`) and braces open: statements end inside braces only.
    let mut depth = 0usize;
    let mut braces = 0usize;
    let mut i = 0;
    while i < b.len() && toks.len() < MAX_TOKENS {
        let ch = b[i];
        // Comments.
        if (ch == b'#'
            && rule.hash_comment
            && !(lang == Language::Ruby && b.get(i + 1) == Some(&b'{')))
            || (rule.slash_comment && ch == b'/' && b.get(i + 1) == Some(&b'/'))
            || (rule.dash_comment && ch == b'-' && b.get(i + 1) == Some(&b'-'))
        {
            if rule.dash_comment
                && b.get(i + 2) == Some(&b'[')
                && let Some((_, _, after)) = long_bracket(b, i + 2)
            {
                i = after;
                continue;
            }
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if rule.slash_comment && ch == b'/' && b.get(i + 1) == Some(&b'*') {
            i = find(b, i + 2, b"*/").map_or(b.len(), |e| e + 2);
            continue;
        }
        if ch == b'\n' || ch == b';' {
            if depth == braces && toks.last() != Some(&Tok::End) {
                toks.push(Tok::End);
            }
            i += 1;
            continue;
        }
        if ch.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // Lua long strings.
        if rule.lua_long
            && ch == b'['
            && matches!(b.get(i + 1), Some(b'[' | b'='))
            && let Some((body, body_end, after)) = long_bracket(b, i)
        {
            toks.push(Tok::Str {
                text: slice(code, body, body_end),
                known: true,
            });
            i = after;
            continue;
        }
        // String literals with prefixes (Python r"", f"", b"").
        if rule.triple || lang == Language::Generic {
            let mut j = i;
            while j < b.len() && j < i + 2 && b"rRbBuUfF".contains(&b[j]) {
                j += 1;
            }
            if j > i && j < b.len() && matches!(b[j], b'\'' | b'"') && !prev_is_word(b, i) {
                let f = b[i..j].iter().any(|x| matches!(x, b'f' | b'F'));
                let raw = b[i..j].iter().any(|x| matches!(x, b'r' | b'R'));
                let (text, end) = quoted(code, j, raw, rule.triple, lang);
                let interpolated = f && text.contains('{') && !text.contains("{{");
                let known = !(interpolated || text.contains('\u{fffd}'));
                if f && !known {
                    nested.extend(interpolations(&text, "{", '}'));
                }
                toks.push(Tok::Str { text, known });
                i = end;
                continue;
            }
        }
        if ch == b'"' || (ch == b'\'' && rule.single_quote) {
            let raw = ch == b'\''
                && lang != Language::Python
                && lang != Language::Generic
                && lang != Language::Js;
            let (text, end) = quoted(code, i, raw, rule.triple, lang);
            // A character named in a way nagger does not know leaves the value unknown.
            let known = (ch == b'\'' && lang != Language::Tcl || !interpolates(&text, lang))
                && !text.contains('\u{fffd}');
            if !known {
                nested.extend(interpolations(&text, open_of(lang), '}'));
            }
            toks.push(Tok::Str { text, known });
            i = end;
            continue;
        }
        if ch == b'`' {
            let (text, end) = quoted(code, i, false, false, lang);
            match rule.backtick {
                Backtick::Command => {
                    let known = !interpolates(&text, lang);
                    toks.push(Tok::Cmd { text, known });
                }
                Backtick::Template => {
                    let known = !text.contains("${");
                    if !known {
                        nested.extend(interpolations(&text, "${", '}'));
                    }
                    toks.push(Tok::Str { text, known });
                }
                Backtick::Name => toks.push(Tok::Ident(text)),
                Backtick::Plain => toks.push(Tok::Str { text, known: true }),
            }
            i = end;
            continue;
        }
        // Regular expressions.
        if rule.regex && ch == b'/' && regex_may_start(&toks) {
            i = skip_delimited(b, i + 1, b'/');
            while i < b.len() && b[i].is_ascii_alphabetic() {
                i += 1;
            }
            continue;
        }
        // Ruby %x(…), %w(…), %q(…), %(…).
        if rule.ruby_percent && ch == b'%' && regex_may_start(&toks) {
            let kind = b.get(i + 1).copied().unwrap_or(b' ');
            let (kind, at) = if kind.is_ascii_alphabetic() {
                (kind, i + 2)
            } else {
                (b'Q', i + 1)
            };
            if let Some(&d) = b.get(at)
                && d.is_ascii_punctuation()
                && b"xwWqQiIrs".contains(&kind)
            {
                let (text, end) = delimited(code, at);
                i = end;
                match kind {
                    b'x' => toks.push(Tok::Cmd {
                        known: !interpolates(&text, lang),
                        text,
                    }),
                    b'w' | b'W' | b'i' | b'I' => list(&mut toks, &text),
                    b'r' => {}
                    b's' => toks.push(Tok::Str { text, known: true }),
                    _ => toks.push(Tok::Str {
                        known: kind == b'q' || !interpolates(&text, lang),
                        text,
                    }),
                }
                continue;
            }
        }
        // Ruby symbols `:system`.
        if lang == Language::Ruby
            && ch == b':'
            && b.get(i + 1)
                .is_some_and(|x| x.is_ascii_alphabetic() || *x == b'_')
            && !prev_is_word(b, i)
            && b.get(i.wrapping_sub(1)) != Some(&b':')
        {
            let end = word_end(b, i + 1, false);
            toks.push(Tok::Str {
                text: code[i + 1..end].to_owned(),
                known: true,
            });
            i = end;
            continue;
        }
        // Names.
        let sigil = rule.sigils
            && matches!(ch, b'$' | b'@' | b'%' | b'&')
            && b.get(i + 1).is_some_and(|x| {
                x.is_ascii_alphabetic() || *x == b'_' || *x == b':' || (ch == b'$' && *x == b'#')
            });
        if ch.is_ascii_alphabetic()
            || ch == b'_'
            || ch >= 0x80
            || sigil
            || (ch == b'$' && lang == Language::Js)
            || (ch == b'$'
                && lang != Language::Tcl
                && b.get(i + 1)
                    .is_some_and(|x| x.is_ascii_alphabetic() || *x == b'_'))
            || (ch == b'.'
                && rule.dotted_names
                && b.get(i + 1).is_some_and(u8::is_ascii_alphabetic))
        {
            let start = i;
            let end = word_end(b, i + 1, rule.dotted_names);
            let end = if lang == Language::Js {
                let mut e = end;
                while e < b.len() && (b[e] == b'$' || b[e].is_ascii_alphanumeric() || b[e] == b'_')
                {
                    e += 1;
                }
                e
            } else {
                end
            };
            let end = if sigil { word_end(b, end, false) } else { end };
            let mut end = end.min(b.len());
            while !code.is_char_boundary(end) {
                end += 1;
            }
            let word = &code[start..end];
            i = end;
            if rule.perl_quotes
                && matches!(
                    word,
                    "q" | "qq" | "qw" | "qx" | "m" | "s" | "tr" | "y" | "qr"
                )
                && let Some(&d) = b.get(i)
                && d.is_ascii_punctuation()
                && !matches!(d, b'=' | b',' | b';' | b')' | b'}' | b'-' | b'>')
            {
                let (text, end) = delimited(code, i);
                i = end;
                match word {
                    "q" => toks.push(Tok::Str { text, known: true }),
                    "qq" => toks.push(Tok::Str {
                        known: !interpolates(&text, lang),
                        text,
                    }),
                    "qw" => list(&mut toks, &text),
                    "qx" => toks.push(Tok::Cmd {
                        known: !interpolates(&text, lang),
                        text,
                    }),
                    "s" | "tr" | "y" => {
                        let close = closing(d);
                        // `s{a}{b}`: a second bracketed part; `s/a/b/`: up to the delimiter.
                        let (replacement, end) = if close == d {
                            let end = skip_delimited(b, i, d);
                            (code[i..end.saturating_sub(1).max(i)].to_owned(), end)
                        } else {
                            let mut j = i;
                            while j < b.len() && b[j].is_ascii_whitespace() {
                                j += 1;
                            }
                            if j < b.len() && b[j].is_ascii_punctuation() {
                                delimited(code, j)
                            } else {
                                (String::new(), i)
                            }
                        };
                        i = end;
                        let flags_start = i;
                        while i < b.len() && b[i].is_ascii_alphabetic() {
                            i += 1;
                        }
                        if word == "s" && code[flags_start..i].contains('e') {
                            nested.push(replacement);
                        }
                    }
                    _ => {
                        while i < b.len() && b[i].is_ascii_alphabetic() {
                            i += 1;
                        }
                    }
                }
                continue;
            }
            toks.push(Tok::Ident(word.to_owned()));
            continue;
        }
        if ch.is_ascii_digit() {
            let start_num = i;
            i = word_end(b, i, false);
            toks.push(Tok::Num(code[start_num..i].to_owned()));
            continue;
        }
        let p = PUNCTS
            .iter()
            .find(|p| b[i..].starts_with(p.as_bytes()))
            .copied()
            .unwrap_or("?");
        match p {
            "(" | "[" => depth += 1,
            "{" => {
                depth += 1;
                braces += 1;
            }
            ")" | "]" => depth = depth.saturating_sub(1),
            "}" => {
                depth = depth.saturating_sub(1);
                braces = braces.saturating_sub(1);
            }
            _ => {}
        }
        toks.push(Tok::Punct(p));
        i += p.len().max(1);
        while i < b.len() && !code.is_char_boundary(i) {
            i += 1;
        }
    }
    Lexed { toks, nested }
}

fn open_of(lang: Language) -> &'static str {
    match lang {
        Language::Ruby => "#{",
        Language::Php | Language::Perl => "{$",
        _ => "${",
    }
}

/// Whether a double-quoted string of `lang` substitutes values into its text.
fn interpolates(text: &str, lang: Language) -> bool {
    match lang {
        Language::Ruby => text.contains("#{"),
        Language::Perl | Language::Php | Language::Tcl => {
            let b = text.as_bytes();
            b.windows(2).any(|w| {
                matches!(w[0], b'$' | b'@')
                    && (w[1].is_ascii_alphabetic() || matches!(w[1], b'_' | b'{' | b':'))
            }) || (lang == Language::Tcl && text.contains('['))
        }
        Language::Js | Language::Generic => false,
        _ => false,
    }
}

/// The code inside `${…}`-style interpolations of a string.
fn interpolations(text: &str, open: &str, close: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while out.len() < 64
        && let Some(at) = rest.find(open)
    {
        let inner = &rest[at + open.len()..];
        let end = inner.find(close).unwrap_or(inner.len());
        out.push(inner[..end].to_owned());
        rest = &inner[end..];
    }
    out
}

/// `qw(a b)`: a list of words, as `("a", "b")` (so `exec qw(rm -rf x)` is the call
/// `exec("rm", "-rf", "x")`).
fn list(toks: &mut Vec<Tok>, text: &str) {
    toks.push(Tok::Punct("("));
    for (k, w) in text.split_whitespace().enumerate() {
        if k > 0 {
            toks.push(Tok::Punct(","));
        }
        toks.push(Tok::Str {
            text: w.to_owned(),
            known: true,
        });
    }
    toks.push(Tok::Punct(")"));
}

fn prev_is_word(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'$')
}

fn word_end(b: &[u8], mut i: usize, dots: bool) -> usize {
    while i < b.len()
        && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80 || (dots && b[i] == b'.'))
    {
        i += 1;
    }
    i
}

fn regex_may_start(toks: &[Tok]) -> bool {
    match toks.last() {
        None | Some(Tok::End) => true,
        Some(Tok::Punct(p)) => !matches!(*p, ")" | "]" | "}"),
        Some(Tok::Ident(w)) => REGEX_AFTER.contains(&w.as_str()),
        _ => false,
    }
}

fn closing(d: u8) -> u8 {
    match d {
        b'(' => b')',
        b'[' => b']',
        b'{' => b'}',
        b'<' => b'>',
        _ => d,
    }
}

/// The text between a delimiter at `at` and its match (brackets nest), and the index after.
fn delimited(code: &str, at: usize) -> (String, usize) {
    let b = code.as_bytes();
    let open = b[at];
    let close = closing(open);
    let mut depth = 0usize;
    let mut i = at + 1;
    while i < b.len() {
        let c = b[i];
        if c == b'\\' {
            i += 2;
            continue;
        }
        if c == close && open != close {
            if depth == 0 {
                break;
            }
            depth -= 1;
        } else if c == open && open != close {
            depth += 1;
        } else if c == close {
            break;
        }
        i += 1;
    }
    let end = i.min(b.len());
    (slice(code, at + 1, end), (end + 1).min(b.len()))
}

fn skip_delimited(b: &[u8], mut i: usize, d: u8) -> usize {
    while i < b.len() && b[i] != d && b[i] != b'\n' {
        if b[i] == b'\\' {
            i += 1;
        }
        i += 1;
    }
    (i + 1).min(b.len())
}

fn slice(code: &str, mut from: usize, mut to: usize) -> String {
    to = to.min(code.len());
    from = from.min(to);
    while !code.is_char_boundary(from) {
        from += 1;
    }
    while !code.is_char_boundary(to) {
        to -= 1;
    }
    code.get(from..to.max(from)).unwrap_or("").to_owned()
}

/// A quoted string starting at `at`: its value and the index after it.
fn quoted(code: &str, at: usize, raw: bool, triple: bool, lang: Language) -> (String, usize) {
    let b = code.as_bytes();
    let q = b[at];
    if triple && b[at..].starts_with(&[q, q, q]) {
        let body = at + 3;
        let end = find(b, body, &[q, q, q]).unwrap_or(b.len());
        let after = (end + 3).min(b.len());
        if raw {
            return (slice(code, body, end), after);
        }
        // A triple-quoted string decodes its escapes like any other.
        let inner = &b[body..end.max(body)];
        let mut text = Vec::new();
        let mut i = 0;
        while i < inner.len() {
            if inner[i] == b'\\' && i + 1 < inner.len() {
                i = escape(inner, i + 1, &mut text, lang);
                continue;
            }
            text.push(inner[i]);
            i += 1;
        }
        return (String::from_utf8_lossy(&text).into_owned(), after);
    }
    let mut text = Vec::new();
    let mut i = at + 1;
    while i < b.len() && b[i] != q {
        if b[i] == b'\\' && i + 1 < b.len() {
            if raw {
                if b[i + 1] == q || b[i + 1] == b'\\' {
                    i += 1;
                } else {
                    text.push(b'\\');
                    i += 1;
                }
            } else {
                i = escape(b, i + 1, &mut text, lang);
                continue;
            }
        }
        text.push(b[i]);
        i += 1;
    }
    (
        String::from_utf8_lossy(&text).into_owned(),
        (i + 1).min(b.len()),
    )
}

/// The escape after a backslash, at `at`, decoded into `text` as the common languages
/// decode it: C's letters, `\xHH`, `\uHHHH`, `\u{H…}`, `\UHHHHHHHH` and octal `\NNN`
/// (`"\x2eclaude"`, `"\u002e"` and `"\056"` are all `.claude`); in Lua `\NNN` is
/// decimal (`"\46"`), and Python names characters (`"\N{FULL STOP}"`). A character named
/// in a way nagger does not know decodes as U+FFFD, which leaves the string unknown.
/// Returns the index after.
pub(super) fn escape(b: &[u8], at: usize, text: &mut Vec<u8>, lang: Language) -> usize {
    let hex = |from: usize, max: usize| -> (Option<u32>, usize) {
        let mut value: u32 = 0;
        let mut k = from;
        while k < b.len() && k - from < max && b[k].is_ascii_hexdigit() {
            value = value * 16 + char::from(b[k]).to_digit(16).unwrap_or(0);
            k += 1;
        }
        ((k > from).then_some(value), k)
    };
    let push_char = |code: u32, text: &mut Vec<u8>| {
        let ch = char::from_u32(code).unwrap_or('\u{fffd}');
        let mut utf8 = [0u8; 4];
        text.extend_from_slice(ch.encode_utf8(&mut utf8).as_bytes());
    };
    let Some(&c) = b.get(at) else {
        return at;
    };
    match c {
        b'n' => text.push(b'\n'),
        b't' => text.push(b'\t'),
        b'r' => text.push(b'\r'),
        b'a' => text.push(0x07),
        b'b' => text.push(0x08),
        b'f' => text.push(0x0c),
        b'v' => text.push(0x0b),
        b'e' => text.push(0x1b),
        b'x' => {
            // `\x{263A}` (Perl) or `\xHH`.
            let (value, end) = if b.get(at + 1) == Some(&b'{') {
                let (v, e) = hex(at + 2, 8);
                (v, if b.get(e) == Some(&b'}') { e + 1 } else { e })
            } else {
                hex(at + 1, 2)
            };
            match value {
                Some(v) => push_char(v, text),
                None => text.push(b'x'),
            }
            return end;
        }
        b'u' | b'U' => {
            let (value, end) = if b.get(at + 1) == Some(&b'{') {
                let (v, e) = hex(at + 2, 8);
                (v, if b.get(e) == Some(&b'}') { e + 1 } else { e })
            } else {
                hex(at + 1, if c == b'u' { 4 } else { 8 })
            };
            match value {
                Some(v) => push_char(v, text),
                None => text.push(c),
            }
            return end;
        }
        b'0'..=b'9' if lang == Language::Lua => {
            let mut value: u32 = 0;
            let mut k = at;
            while k < b.len() && k - at < 3 && b[k].is_ascii_digit() {
                value = value * 10 + u32::from(b[k] - b'0');
                k += 1;
            }
            push_char(value, text);
            return k;
        }
        b'N' if matches!(lang, Language::Python | Language::Generic)
            && b.get(at + 1) == Some(&b'{') =>
        {
            let close = b[at + 2..]
                .iter()
                .position(|&c| c == b'}')
                .map(|p| at + 2 + p);
            let Some(close) = close else {
                text.push(b'N');
                return at + 1;
            };
            let name = String::from_utf8_lossy(&b[at + 2..close]).to_ascii_uppercase();
            push_char(char_named(name.trim()).map_or(0xfffd, u32::from), text);
            return close + 1;
        }
        b'0'..=b'7' => {
            let mut value: u32 = 0;
            let mut k = at;
            while k < b.len() && k - at < 3 && (b'0'..=b'7').contains(&b[k]) {
                value = value * 8 + u32::from(b[k] - b'0');
                k += 1;
            }
            push_char(value, text);
            return k;
        }
        other => text.push(other),
    }
    at + 1
}

/// The character a Unicode name names, for the names of ASCII characters a path is
/// spelled with (`FULL STOP`, `SOLIDUS`, `LATIN SMALL LETTER C`, `DIGIT ZERO`).
fn char_named(name: &str) -> Option<char> {
    const DIGITS: [&str; 10] = [
        "ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE",
    ];
    if let Some(letter) = name.strip_prefix("LATIN SMALL LETTER ") {
        let mut chars = letter.chars();
        return match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_uppercase() => Some(c.to_ascii_lowercase()),
            _ => None,
        };
    }
    if let Some(letter) = name.strip_prefix("LATIN CAPITAL LETTER ") {
        let mut chars = letter.chars();
        return match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_uppercase() => Some(c),
            _ => None,
        };
    }
    if let Some(digit) = name.strip_prefix("DIGIT ") {
        let at = DIGITS.iter().position(|d| *d == digit)?;
        return char::from_digit(u32::try_from(at).ok()?, 10);
    }
    Some(match name {
        "FULL STOP" | "PERIOD" | "DOT" => '.',
        "SOLIDUS" | "SLASH" => '/',
        "REVERSE SOLIDUS" | "BACKSLASH" => '\\',
        "HYPHEN-MINUS" | "HYPHEN" | "MINUS" => '-',
        "LOW LINE" | "UNDERSCORE" => '_',
        "TILDE" => '~',
        "SPACE" => ' ',
        "COLON" => ':',
        "SEMICOLON" => ';',
        "COMMA" => ',',
        "ASTERISK" => '*',
        "QUESTION MARK" => '?',
        "COMMERCIAL AT" => '@',
        "PLUS SIGN" => '+',
        "EQUALS SIGN" => '=',
        "DOLLAR SIGN" => '$',
        "NUMBER SIGN" => '#',
        "PERCENT SIGN" => '%',
        "AMPERSAND" => '&',
        "APOSTROPHE" => '\'',
        "QUOTATION MARK" => '"',
        "GRAVE ACCENT" => '`',
        "VERTICAL LINE" => '|',
        "EXCLAMATION MARK" => '!',
        "LEFT PARENTHESIS" => '(',
        "RIGHT PARENTHESIS" => ')',
        "LEFT SQUARE BRACKET" => '[',
        "RIGHT SQUARE BRACKET" => ']',
        "LEFT CURLY BRACKET" => '{',
        "RIGHT CURLY BRACKET" => '}',
        "LESS-THAN SIGN" => '<',
        "GREATER-THAN SIGN" => '>',
        "CIRCUMFLEX ACCENT" => '^',
        "LINE FEED" | "NEW LINE" => '\n',
        "CHARACTER TABULATION" | "TAB" => '\t',
        _ => return None,
    })
}

fn find(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|p| p + from)
}

/// Lua's `[[…]]` / `[==[…]==]` starting at `at` (the first `[`): where its body starts
/// and ends, and the index after the close.
fn long_bracket(b: &[u8], at: usize) -> Option<(usize, usize, usize)> {
    let mut j = at + 1;
    while j < b.len() && b[j] == b'=' {
        j += 1;
    }
    if b.get(j) != Some(&b'[') {
        return None;
    }
    let level = j - at - 1;
    let mut close = vec![b']'];
    close.extend(std::iter::repeat_n(b'=', level));
    close.push(b']');
    let body = j + 1;
    Some(match find(b, body, &close) {
        Some(e) => (body, e, e + close.len()),
        None => (body, b.len(), b.len()),
    })
}

#[cfg(test)]
mod escape_tests {
    use super::quoted;
    use crate::domain::guard::code::model::Language;

    #[test]
    fn escapes_in_strings_decode_as_the_languages_decode_them() {
        for (code, value) in [
            (r#""\x2eclaude-nagger""#, ".claude-nagger"),
            (r#""\u002eclaude""#, ".claude"),
            (r#""\u{2e}claude""#, ".claude"),
            (r#""\U0000002eclaude""#, ".claude"),
            (r#""\056claude""#, ".claude"),
            (r#""\x{2e}claude""#, ".claude"),
            (r#""a\tb\n""#, "a\tb\n"),
            (r#""\q""#, "q"),
            (r#""\x""#, "x"),
            (r#""\""#, "\""),
        ] {
            assert_eq!(
                quoted(code, 0, false, false, Language::Python).0,
                value,
                "{code}"
            );
        }
        // Raw strings keep their backslashes.
        assert_eq!(
            quoted(r#""\x2e""#, 0, true, false, Language::Python).0,
            r"\x2e"
        );
        // Lua's `\NNN` is decimal; Python names characters; triple quotes decode too.
        assert_eq!(
            quoted(r#""\46claude""#, 0, false, false, Language::Lua).0,
            ".claude"
        );
        assert_eq!(
            quoted(
                r#""\N{FULL STOP}claude\N{solidus}x""#,
                0,
                false,
                false,
                Language::Python
            )
            .0,
            ".claude/x"
        );
        assert_eq!(
            quoted(r#""\N{SNOWMAN}""#, 0, false, false, Language::Python).0,
            "\u{fffd}"
        );
        assert_eq!(
            quoted(r"'''\x2eclaude'''", 0, false, true, Language::Python).0,
            ".claude"
        );
    }
}
