//! Reading one word of a command line: quotes, escapes, `$…` expansions, arithmetic and
//! backticks, with the commands of substitutions collected on the way.

use super::command::Via;
use super::limits::MAX_WORD_NESTING;
use super::parser::{Collector, Context, Parser, parse_script};
use super::token::Word;
use super::words::is_assignment_name;

/// The words of `text` split as the shell splits words, quotes and escapes removed, for
/// wrappers that split a string into a command's words themselves (`env -S`). Operators
/// are text here, not the end of a command, and substitutions are kept as written and
/// never collected as commands.
pub(super) fn split_words(text: &str) -> Vec<String> {
    let mut scratch = Collector::default();
    let mut parser = Parser {
        s: text.as_bytes(),
        i: 0,
        depth: 0,
        word_nesting: 0,
        ctx: Context::default(),
        out: &mut scratch,
        pending: Vec::new(),
        expanded: false,
    };
    let mut words = Vec::new();
    let mut current: Option<Vec<u8>> = None;
    while let Some(c) = parser.peek() {
        if matches!(c, b' ' | b'\t' | b'\r' | b'\n') {
            parser.i += 1;
            words.extend(current.take());
            continue;
        }
        let before = parser.i;
        let word = parser.word();
        let buf = current.get_or_insert_with(Vec::new);
        buf.extend_from_slice(&word.text);
        if parser.i == before {
            // An operator the shell would stop at: part of the word here.
            buf.push(c);
            parser.i += 1;
        }
    }
    words.extend(current);
    words
        .into_iter()
        .map(|w| {
            String::from_utf8(w)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
        })
        .collect()
}

impl Parser<'_, '_> {
    /// At a word's `~-`, `~+` or `~[+-]N` that ends there or at a `/`: what it stands
    /// for (`$OLDPWD`, `$PWD`, `${DIRSTACK[N]}`), the tilde prefix consumed.
    fn folder_tilde(&mut self) -> Option<String> {
        if self.peek() != Some(b'~') {
            return None;
        }
        let rest = &self.s[self.i + 1..];
        let sign = rest.first().copied().filter(|c| matches!(c, b'+' | b'-'));
        let digits = rest[usize::from(sign.is_some())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let len = usize::from(sign.is_some()) + digits;
        if len == 0 {
            return None;
        }
        let ends = rest
            .get(len)
            .is_none_or(|c| matches!(c, b'/' | b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b')'));
        if !ends {
            return None;
        }
        let number = std::str::from_utf8(&rest[len - digits..len]).unwrap_or("0");
        let stands_for = match (sign, digits) {
            (Some(b'-'), 0) => "$OLDPWD".to_owned(),
            (Some(b'+'), 0) => "$PWD".to_owned(),
            (Some(b'-'), _) => format!("${{DIRSTACK[-{number}]}}"),
            _ => format!("${{DIRSTACK[{number}]}}"),
        };
        self.i += 1 + len;
        Some(stands_for)
    }
}

/// Whether a `(` after the word text `before` opens a glob group rather than a subshell
/// or a function's `()`: it follows text that is no assignment and does not close at once.
fn glob_group(before: &[u8], after: Option<u8>) -> bool {
    !before.is_empty() && !before.ends_with(b"=") && after.is_some_and(|a| a != b')')
}

impl Parser<'_, '_> {
    /// One word, quotes removed, substitutions kept as written (and their commands
    /// collected).
    pub(super) fn word(&mut self) -> Word {
        let mut word = Word::default();
        let outer_expanded = std::mem::take(&mut self.expanded);
        let first_run = self.out.commands.len();
        let mut plain = true;
        // `~-`, `~+`, `~2`, `~+1`, `~-1`: the folder left, the current folder, the folder
        // stack's entries, as the variables that hold them (the stack's are only known as
        // the line runs).
        if let Some(stands_for) = self.folder_tilde() {
            word.text.extend_from_slice(stands_for.as_bytes());
            plain = false;
        }
        // Past a glob group: the rest of this path component is part of the pattern.
        let mut in_group_name = false;
        // Brackets open in `name[…]` of a word that may be an assignment (`seen[$w]=1`):
        // what stands in them does not keep it from being one.
        let mut subscript = 0usize;
        while let Some(c) = self.peek() {
            let was_plain = plain;
            let opens = c == b'['
                && plain
                && subscript == 0
                && !word.text.contains(&b'[')
                && is_assignment_name(&word.text);
            match c {
                b'(' if glob_group(&word.text, self.peek_at(1)) => {
                    // `!(x)`, `@(a|b)` (extended globs), `n(#i)AGGER`, `*(.)`, `(a|b)`
                    // (zsh): a pattern nagger does not match. The path component that
                    // holds it may be any name in its folder.
                    self.i += 1;
                    self.skip_balanced();
                    if word.text.last().is_some_and(|b| b"!@+*?".contains(b)) {
                        word.text.pop();
                    }
                    word.text.push(b'*');
                    in_group_name = true;
                    plain = false;
                }
                b' ' | b'\t' | b'\r' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' => break,
                b'<' | b'>' => {
                    if self.peek_at(1) != Some(b'(') {
                        break;
                    }
                    let start = self.i;
                    self.i += 2;
                    self.nested(Some(Via::ProcessSubstitution));
                    word.text.extend_from_slice(&self.s[start..self.i]);
                    self.expanded = true;
                    plain = false;
                }
                b'\\' => {
                    match self.peek_at(1) {
                        Some(b'\n') => {}
                        Some(next) => {
                            word.text.push(next);
                            word.quoted = true;
                            plain = false;
                        }
                        None => {}
                    }
                    self.i = (self.i + 2).min(self.s.len());
                }
                b'\'' => {
                    self.i += 1;
                    self.single_quoted(&mut word.text);
                    word.quoted = true;
                    plain = false;
                }
                b'"' => {
                    self.i += 1;
                    self.double_quoted(&mut word.text);
                    word.quoted = true;
                    plain = false;
                }
                b'`' => {
                    self.backticks(&mut word.text);
                    plain = false;
                }
                b'$' => {
                    word.quoted |= self.dollar(&mut word.text, false);
                    plain = false;
                }
                b'=' if plain => {
                    word.assignment = is_assignment_name(&word.text);
                    word.text.push(b'=');
                    self.i += 1;
                    plain = false;
                }
                _ if in_group_name && c != b'/' => self.i += 1,
                _ => {
                    in_group_name = false;
                    if matches!(c, b'{' | b',' | b'}' | b'.') {
                        word.active.push(word.text.len());
                    }
                    word.text.push(c);
                    self.i += 1;
                }
            }
            if opens || subscript > 0 {
                match c {
                    b'[' => subscript += 1,
                    b']' => subscript -= 1,
                    _ => {}
                }
                plain = was_plain;
            }
        }
        word.runs = first_run..self.out.commands.len();
        word.computed = self.expanded;
        self.expanded |= outer_expanded;
        word
    }

    pub(super) fn single_quoted(&mut self, buf: &mut Vec<u8>) {
        let rest = &self.s[self.i..];
        let len = memchr::memchr(b'\'', rest).unwrap_or(rest.len());
        buf.extend_from_slice(&rest[..len]);
        self.i = (self.i + len + 1).min(self.s.len());
    }

    pub(super) fn double_quoted(&mut self, buf: &mut Vec<u8>) {
        if self.word_nesting >= MAX_WORD_NESTING {
            self.out.too_deep = true;
            while let Some(c) = self.peek() {
                self.i += if c == b'\\' { 2 } else { 1 };
                if c == b'"' {
                    break;
                }
            }
            self.i = self.i.min(self.s.len());
            return;
        }
        self.word_nesting += 1;
        self.double_quoted_body(buf);
        self.word_nesting -= 1;
    }

    pub(super) fn double_quoted_body(&mut self, buf: &mut Vec<u8>) {
        while let Some(c) = self.peek() {
            match c {
                b'"' => {
                    self.i += 1;
                    return;
                }
                b'\\' => match self.peek_at(1) {
                    Some(next @ (b'$' | b'`' | b'"' | b'\\')) => {
                        buf.push(next);
                        self.i += 2;
                    }
                    Some(b'\n') => self.i += 2,
                    _ => {
                        buf.push(b'\\');
                        self.i += 1;
                    }
                },
                b'`' => self.backticks(buf),
                b'$' => {
                    self.dollar(buf, true);
                }
                _ => {
                    buf.push(c);
                    self.i += 1;
                }
            }
        }
    }

    /// At a `$`: quoting (`$'…'`, `$"…"`; returns true), substitutions, or a plain `$`.
    pub(super) fn dollar(&mut self, buf: &mut Vec<u8>, in_double_quotes: bool) -> bool {
        match self.peek_at(1) {
            Some(b'\'') if !in_double_quotes => {
                self.i += 2;
                self.ansi_c_quoted(buf);
                true
            }
            Some(b'"') if !in_double_quotes => {
                self.i += 2;
                self.double_quoted(buf);
                true
            }
            // `$((x+1))`; but `$((rm x) )` is a substitution holding a subshell.
            Some(b'(') if self.peek_at(2) == Some(b'(') && self.dollar_arithmetic() => {
                self.i += 1;
                self.arithmetic(buf);
                false
            }
            Some(b'(') => {
                self.expanded = true;
                let start = self.i;
                self.i += 2;
                self.nested(Some(Via::Substitution));
                buf.extend_from_slice(&self.s[start..self.i]);
                false
            }
            Some(b'{') => {
                self.expanded = true;
                self.parameter(buf);
                false
            }
            // `$[x+1]`: bash's old spelling of `$((x+1))`.
            Some(b'[') => {
                self.old_arithmetic(buf);
                false
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                self.expanded = true;
                // `"$p"ude`, `$p'ude'`: the name ends at the quote, and the letters after
                // it are text; written `${p}` so that joining them keeps it so.
                let start = self.i + 1;
                let len = self.s[start..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
                let after = &self.s[start + len..];
                let quotes = after
                    .iter()
                    .take_while(|b| matches!(b, b'"' | b'\''))
                    .count();
                let joined = quotes > 0
                    && after
                        .get(quotes)
                        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
                if joined {
                    buf.extend_from_slice(b"${");
                    buf.extend_from_slice(&self.s[start..start + len]);
                    buf.push(b'}');
                    self.i = start + len;
                } else {
                    buf.push(b'$');
                    self.i += 1;
                }
                false
            }
            Some(c) if c.is_ascii_digit() || b"@*#?!$-".contains(&c) => {
                self.expanded = true;
                buf.push(b'$');
                self.i += 1;
                false
            }
            _ => {
                buf.push(b'$');
                self.i += 1;
                false
            }
        }
    }

    /// `${…}`, kept as written; substitutions inside (`${x:-$(cmd)}`) are collected.
    pub(super) fn parameter(&mut self, buf: &mut Vec<u8>) {
        let start = self.i;
        self.i += 2;
        let flat = self.word_nesting >= MAX_WORD_NESTING;
        if flat {
            self.out.too_deep = true;
        }
        self.word_nesting += 1;
        let mut open = 1usize;
        let mut scratch = Vec::new();
        while let Some(c) = self.peek() {
            match c {
                b'\\' => self.i = (self.i + 2).min(self.s.len()),
                b'{' | b'}' | b'\'' | b'"' | b'$' | b'`' if flat => {
                    self.i += 1;
                    match c {
                        b'{' => open += 1,
                        b'}' => {
                            open -= 1;
                            if open == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                b'}' => {
                    self.i += 1;
                    open -= 1;
                    if open == 0 {
                        break;
                    }
                }
                b'{' => {
                    self.i += 1;
                    open += 1;
                }
                b'\'' => {
                    self.i += 1;
                    self.single_quoted(&mut scratch);
                }
                b'"' => {
                    self.i += 1;
                    self.double_quoted(&mut scratch);
                }
                b'$' => {
                    self.dollar(&mut scratch, true);
                }
                b'`' => self.backticks(&mut scratch),
                _ => self.i += 1,
            }
        }
        self.word_nesting -= 1;
        let text = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        self.out.note_parameter(&text);
        buf.extend_from_slice(&self.s[start..self.i]);
    }

    /// `((…))` from its first `(`, kept as written: nested parentheses cost no depth, and
    /// the substitutions inside are collected.
    /// Whether the `$((` at the cursor is arithmetic, as bash reads it.
    fn dollar_arithmetic(&mut self) -> bool {
        self.i += 1;
        let arithmetic = self.closes_as_arithmetic();
        self.i -= 1;
        arithmetic
    }

    /// `$[…]`, kept as written: an arithmetic expression whose variables are read as
    /// expressions, with the substitutions inside collected.
    fn old_arithmetic(&mut self, buf: &mut Vec<u8>) {
        self.expanded = true;
        let start = self.i;
        self.i += 2;
        if self.word_nesting >= MAX_WORD_NESTING {
            self.out.too_deep = true;
        }
        self.expression(start, (b'[', b']'), 1, MAX_WORD_NESTING, buf);
    }

    pub(super) fn arithmetic(&mut self, buf: &mut Vec<u8>) {
        self.expanded = true;
        let start = self.i;
        self.i += 2;
        if self.word_nesting >= MAX_WORD_NESTING {
            self.out.too_deep = true;
            self.i -= 1;
            self.skip_balanced();
            buf.extend_from_slice(&self.s[start..self.i]);
            return;
        }
        self.expression(start, (b'(', b')'), 2, MAX_WORD_NESTING + 1, buf);
    }

    /// The rest of an arithmetic expression begun at `start`, up to the bracket that
    /// closes the `open` ones: the substitutions inside collected (not past the nesting
    /// bound `descend_below`), its variables noted as read as expressions, the text kept
    /// as written.
    fn expression(
        &mut self,
        start: usize,
        (opening, closing): (u8, u8),
        open: usize,
        descend_below: usize,
        buf: &mut Vec<u8>,
    ) {
        self.word_nesting += 1;
        let mut open = open;
        let mut scratch = Vec::new();
        while let Some(c) = self.peek() {
            match c {
                b'\\' => self.i = (self.i + 2).min(self.s.len()),
                c if c == opening => {
                    open += 1;
                    self.i += 1;
                }
                c if c == closing => {
                    open -= 1;
                    self.i += 1;
                    if open == 0 {
                        break;
                    }
                }
                b'$' if self.word_nesting < descend_below => {
                    self.dollar(&mut scratch, true);
                }
                b'`' if self.word_nesting < descend_below => self.backticks(&mut scratch),
                _ => self.i += 1,
            }
            scratch.clear();
        }
        self.word_nesting -= 1;
        let text = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        self.out.note_evaluated(&text);
        buf.extend_from_slice(&self.s[start..self.i]);
    }

    /// `` `…` ``: the inner text, unescaped, is a script of its own.
    pub(super) fn backticks(&mut self, buf: &mut Vec<u8>) {
        self.expanded = true;
        let start = self.i;
        self.i += 1;
        let mut inner = Vec::new();
        while let Some(c) = self.peek() {
            match c {
                b'`' => {
                    self.i += 1;
                    break;
                }
                b'\\' => {
                    if let Some(next @ (b'`' | b'\\' | b'$')) = self.peek_at(1) {
                        inner.push(next);
                        self.i += 2;
                    } else {
                        inner.push(b'\\');
                        self.i += 1;
                    }
                }
                _ => {
                    inner.push(c);
                    self.i += 1;
                }
            }
        }
        buf.extend_from_slice(&self.s[start..self.i]);
        let ctx = self.ctx.within(Via::Backticks, false);
        parse_script(&inner, self.depth + 1, &ctx, self.out);
    }

    /// `$'…'` with bash's escapes: C's, `\xHH`, octal, `\uHHHH`, `\UHHHHHHHH` and `\cX`.
    /// A NUL ends the string there, as in bash: what follows it up to the closing quote
    /// is dropped (`$'.claude\0x'` is `.claude`).
    pub(super) fn ansi_c_quoted(&mut self, buf: &mut Vec<u8>) {
        let start = buf.len();
        let mut cut: Option<usize> = None;
        while let Some(c) = self.peek() {
            self.i += 1;
            let before = buf.len();
            match c {
                b'\'' => break,
                b'\\' => {
                    let Some(e) = self.peek() else { break };
                    self.i += 1;
                    match e {
                        b'n' => buf.push(b'\n'),
                        b't' => buf.push(b'\t'),
                        b'r' => buf.push(b'\r'),
                        b'a' => buf.push(0x07),
                        b'b' => buf.push(0x08),
                        b'e' | b'E' => buf.push(0x1b),
                        b'f' => buf.push(0x0c),
                        b'v' => buf.push(0x0b),
                        b'x' => {
                            let value = self.radix_digits(16, 2);
                            buf.push(value.unwrap_or(b'x'));
                        }
                        b'u' | b'U' => {
                            let max = if e == b'u' { 4 } else { 8 };
                            match self.digits_value(16, max) {
                                Some(code) => {
                                    let ch = char::from_u32(code).unwrap_or('\u{fffd}');
                                    let mut utf8 = [0u8; 4];
                                    buf.extend_from_slice(ch.encode_utf8(&mut utf8).as_bytes());
                                }
                                None => buf.extend_from_slice(&[b'\\', e]),
                            }
                        }
                        b'c' => match self.peek() {
                            Some(x) => {
                                self.i += 1;
                                buf.push(x.to_ascii_uppercase() & 0x1f);
                            }
                            None => buf.extend_from_slice(b"\\c"),
                        },
                        b'0'..=b'7' => {
                            self.i -= 1;
                            buf.push(self.radix_digits(8, 3).unwrap_or(b'0'));
                        }
                        other => buf.push(other),
                    }
                }
                other => buf.push(other),
            }
            if cut.is_none()
                && let Some(nul) = buf[before..].iter().position(|&b| b == 0)
            {
                cut = Some(before + nul);
            }
        }
        if let Some(at) = cut {
            buf.truncate(at.max(start));
        }
    }

    /// Up to `max` digits in `radix`, as their value.
    fn digits_value(&mut self, radix: u32, max: usize) -> Option<u32> {
        let mut value: u32 = 0;
        let mut count = 0;
        while count < max {
            let Some(d) = self.peek().and_then(|c| (c as char).to_digit(radix)) else {
                break;
            };
            value = value.wrapping_mul(radix).wrapping_add(d);
            self.i += 1;
            count += 1;
        }
        (count > 0).then_some(value)
    }

    /// Up to `max` digits in `radix` as one byte (wrapping like bash does).
    pub(super) fn radix_digits(&mut self, radix: u32, max: usize) -> Option<u8> {
        let mut value: u32 = 0;
        let mut count = 0;
        while count < max {
            let Some(d) = self.peek().and_then(|c| (c as char).to_digit(radix)) else {
                break;
            };
            value = value * radix + d;
            self.i += 1;
            count += 1;
        }
        (count > 0).then_some((value & 0xff) as u8)
    }
}
