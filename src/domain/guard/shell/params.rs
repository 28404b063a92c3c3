//! Parameter expansion `${…}` worked out the way bash works it out, when the values it
//! uses are known: defaults and alternatives, lengths, substrings, prefix and suffix
//! removal and substitution with glob patterns, case changes, `@` transforms,
//! indirection and arrays. What cannot be worked out exactly is [`Outcome::Unknown`],
//! never a wrong value. The work is bounded: values, patterns and nesting are capped.

/// Longest value, in characters, a pattern is matched against.
const MAX_VALUE: usize = 256;
/// Longest pattern, in characters.
const MAX_PATTERN: usize = 128;
/// Deepest nesting of expansions inside operands and indirections.
const MAX_DEPTH: usize = 8;
/// Most elements of an array that are worked with.
const MAX_ELEMENTS: usize = 64;

/// What a variable holds, as the line knows it.
pub enum Var {
    /// Not set by the line: the user's environment, or unset.
    Outside,
    /// Set by the line to something only known as the shell runs.
    Unknown,
    Scalar(String),
    Array(Vec<String>),
    /// Any one of these values (a loop's variable).
    Each(Vec<String>),
}

/// The elements of an array the line set, from its value (each element quoted as a
/// shell word); `None` when an element names its index (`[3]=x`, `[key]=v`).
pub fn array_items(value: &str) -> Option<Vec<String>> {
    let items = super::lexer::split_words(value);
    (!items.iter().any(|i| i.starts_with('[') && i.contains("]="))).then_some(items)
}

/// The variables an expansion reads.
pub trait Vars {
    fn var(&self, name: &str) -> Var;
    /// The value of a variable the line leaves alone, when nagger knows it as the
    /// shell will (`HOME`, `PWD`): read only to take a part of it (`${HOME:0:1}`,
    /// `${PWD%%w*}`), which spelled as written would name nothing.
    fn outside(&self, _name: &str) -> Option<String> {
        None
    }
    /// Takes `cost` steps of work from what one command line may spend; false when
    /// they are not left (what is left is then unknown).
    fn spend(&self, cost: usize) -> bool;
}

/// What an expansion yields.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// These words (several for `"${a[@]}"`, or one per value of a loop's variable).
    Words(Vec<String>),
    /// Only known as the shell runs.
    Unknown,
    /// A variable the line leaves alone (the environment, positional and special
    /// parameters): kept as written.
    Raw,
}

/// The words `${body}` (or `$body` for a bare name) expands to.
pub fn evaluate(body: &str, vars: &dyn Vars) -> Outcome {
    eval(body, vars, 0)
}

/// The value of `value` as bash sees a pattern operand: chars with whether each is
/// quoted (so no glob character).
type Pattern = Vec<(char, bool)>;

fn eval(body: &str, vars: &dyn Vars, depth: usize) -> Outcome {
    if depth > MAX_DEPTH || body.len() > 4096 || !vars.spend(body.len() + 1) {
        return Outcome::Unknown;
    }
    // `${#x}`, `${#a[@]}`: a length (`${#}` alone is the count of positional parameters).
    if let Some(rest) = body.strip_prefix('#')
        && !rest.is_empty()
        && let Some((param, after)) = parameter(rest)
        && after.is_empty()
    {
        return match value(param, vars, depth) {
            Val::Outside | Val::Special => Outcome::Raw,
            Val::Unknown => Outcome::Unknown,
            Val::Scalars(vs) => Outcome::Words(
                vs.iter()
                    .map(|v| v.as_ref().map_or(0, |v| v.chars().count()).to_string())
                    .collect(),
            ),
            Val::Elements(es, _) => Outcome::Words(vec![es.len().to_string()]),
        };
    }
    // `${!x}`: indirection; `${!a[@]}`: the indices; `${!prefix*}`: variable names.
    if let Some(rest) = body.strip_prefix('!')
        && !rest.is_empty()
    {
        let Some((param, op)) = parameter(rest) else {
            return Outcome::Unknown;
        };
        if let Param::Name(_, Some(Sub::All(_))) = param
            && op.is_empty()
        {
            return match value(param, vars, depth) {
                Val::Elements(es, _) => {
                    Outcome::Words((0..es.len()).map(|k| k.to_string()).collect())
                }
                Val::Scalars(_) => Outcome::Words(vec!["0".into()]),
                Val::Outside | Val::Special => Outcome::Raw,
                Val::Unknown => Outcome::Unknown,
            };
        }
        if op.starts_with(['*', '@']) && op.len() == 1 {
            return Outcome::Unknown;
        }
        let names = match value(param, vars, depth) {
            Val::Scalars(vs) => vs,
            Val::Elements(es, _) => es.into_iter().map(Some).collect(),
            Val::Outside | Val::Special | Val::Unknown => return Outcome::Unknown,
        };
        let mut out = Vec::new();
        for name in names {
            let Some(name) = name else {
                return Outcome::Unknown;
            };
            let Some((target, "")) = parameter(&name) else {
                return Outcome::Unknown;
            };
            let val = value(target, vars, depth + 1);
            match operate(val, op, vars, depth) {
                Outcome::Words(ws) => out.extend(ws),
                Outcome::Raw if op.is_empty() => return Outcome::Raw,
                _ => return Outcome::Unknown,
            }
        }
        return Outcome::Words(out);
    }
    let Some((param, op)) = parameter(body) else {
        return Outcome::Unknown;
    };
    let mut val = value(param, vars, depth);
    // `${HOME:?}`, `${HOME?msg}`: the value itself (or no command at all), which spelled
    // as written would name nothing.
    let checked = op.starts_with(":?") || op.starts_with('?');
    if matches!(val, Val::Outside)
        && (takes_part(op) || checked)
        && let Param::Name(name, None) = param
    {
        // A part of a value nagger does not know is not known either: kept as written
        // it would name nothing, while the shell may well make `/` of it.
        let Some(known) = vars.outside(name) else {
            // A checked variable nagger does not know stays as written, as `${X}` does.
            return if checked {
                Outcome::Raw
            } else {
                Outcome::Unknown
            };
        };
        val = Val::Scalars(vec![Some(known)]);
    }
    operate(val, op, vars, depth)
}

/// Whether `op` makes a value out of part of the variable's (`:1:2`, `%w*`, `/a/b`,
/// `^^`), rather than standing it in for a default or leaving it whole.
fn takes_part(op: &str) -> bool {
    !op.is_empty()
        && ![":-", "-", ":=", "=", ":+", "+", ":?", "?"]
            .iter()
            .any(|d| op.starts_with(d))
}

/// A parameter's name and subscript.
#[derive(Clone, Copy)]
enum Param<'b> {
    Name(&'b str, Option<Sub<'b>>),
    /// Positional and special parameters: `1`, `@`, `#`, `?`.
    Special,
}

#[derive(Clone, Copy)]
enum Sub<'b> {
    /// `[@]` (false) or `[*]` (true).
    All(bool),
    Index(&'b str),
}

/// The parameter `body` starts with, and the operator text after it.
fn parameter(body: &str) -> Option<(Param<'_>, &str)> {
    let bytes = body.as_bytes();
    let first = *bytes.first()?;
    if first.is_ascii_digit() {
        let len = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
        return Some((Param::Special, &body[len..]));
    }
    if b"@*#?$!-".contains(&first) {
        return Some((Param::Special, &body[1..]));
    }
    if !(first == b'_' || first.is_ascii_alphabetic()) {
        return None;
    }
    let len = bytes
        .iter()
        .take_while(|b| **b == b'_' || b.is_ascii_alphanumeric())
        .count();
    let (name, rest) = body.split_at(len);
    let Some(inner) = rest.strip_prefix('[') else {
        return Some((Param::Name(name, None), rest));
    };
    let close = inner.find(']')?;
    let sub = match &inner[..close] {
        "@" => Sub::All(false),
        "*" => Sub::All(true),
        index => Sub::Index(index),
    };
    Some((Param::Name(name, Some(sub)), &inner[close + 1..]))
}

/// A parameter's value before its operator is applied.
enum Val {
    Outside,
    Special,
    Unknown,
    /// One value, or one per value of a loop's variable; `None` for unset.
    Scalars(Vec<Option<String>>),
    /// The elements of `${a[@]}` (false) or `${a[*]}` (true).
    Elements(Vec<String>, bool),
}

fn value(param: Param<'_>, vars: &dyn Vars, depth: usize) -> Val {
    let Param::Name(name, sub) = param else {
        return Val::Special;
    };
    let var = vars.var(name);
    match sub {
        None => match var {
            Var::Outside => Val::Outside,
            Var::Unknown => Val::Unknown,
            Var::Scalar(s) => Val::Scalars(vec![Some(s)]),
            Var::Array(a) => Val::Scalars(vec![a.into_iter().next()]),
            Var::Each(vs) => Val::Scalars(vs.into_iter().map(Some).collect()),
        },
        Some(Sub::All(star)) => match var {
            Var::Outside => Val::Outside,
            Var::Unknown | Var::Each(_) => Val::Unknown,
            Var::Scalar(s) => Val::Elements(vec![s], star),
            Var::Array(a) => Val::Elements(a, star),
        },
        Some(Sub::Index(index)) => {
            let Some(k) = arithmetic(index, vars, depth) else {
                return Val::Unknown;
            };
            match var {
                Var::Outside => Val::Outside,
                Var::Unknown | Var::Each(_) => Val::Unknown,
                Var::Scalar(s) => Val::Scalars(vec![(k == 0 || k == -1).then_some(s)]),
                Var::Array(a) => {
                    let len = i64::try_from(a.len()).unwrap_or(i64::MAX);
                    let at = if k < 0 { len + k } else { k };
                    let element = usize::try_from(at).ok().and_then(|at| a.get(at).cloned());
                    Val::Scalars(vec![element])
                }
            }
        }
    }
}

/// Bash joins `${a[*]}` with the first character of `IFS`.
fn joiner(vars: &dyn Vars) -> Option<String> {
    match vars.var("IFS") {
        Var::Outside => Some(" ".into()),
        Var::Scalar(s) => Some(s.chars().next().map(String::from).unwrap_or_default()),
        _ => None,
    }
}

/// `val` with the operator `op` applied.
fn operate(val: Val, op: &str, vars: &dyn Vars, depth: usize) -> Outcome {
    let (scalars, star) = match val {
        Val::Special => return Outcome::Raw,
        Val::Unknown => return Outcome::Unknown,
        Val::Outside => return outside(op, vars, depth),
        Val::Scalars(vs) => (vs, None),
        Val::Elements(es, star) => (
            es.into_iter().take(MAX_ELEMENTS).map(Some).collect(),
            Some(star),
        ),
    };
    let join = |words: Vec<String>| -> Outcome {
        match star {
            Some(true) => match joiner(vars) {
                Some(j) => Outcome::Words(vec![words.join(&j)]),
                None => Outcome::Unknown,
            },
            _ => Outcome::Words(words),
        }
    };
    if op.is_empty() {
        return join(scalars.into_iter().flatten().collect());
    }
    // Defaults and alternatives test the whole parameter.
    for (o, colon) in [
        (":-", true),
        ("-", false),
        (":=", true),
        ("=", false),
        (":?", true),
        ("?", false),
        (":+", true),
        ("+", false),
    ] {
        let Some(word) = op.strip_prefix(o) else {
            continue;
        };
        let kind = o.as_bytes()[o.len() - 1];
        let mut out = Vec::new();
        if star.is_some() {
            let set = !scalars.is_empty();
            let null = scalars.iter().flatten().all(String::is_empty);
            let use_word = match kind {
                b'+' => set && !(colon && null),
                _ => !set || (colon && null),
            };
            return if use_word {
                if kind == b'?' {
                    return Outcome::Unknown;
                }
                operand(word, vars, depth).map_or(Outcome::Unknown, |w| Outcome::Words(vec![w]))
            } else if kind == b'+' {
                Outcome::Words(vec![String::new()])
            } else {
                join(scalars.into_iter().flatten().collect())
            };
        }
        for v in scalars {
            let unset = v.as_ref().is_none_or(|v| colon && v.is_empty());
            let taken = match kind {
                b'+' if unset => Some(String::new()),
                b'+' => None,
                _ if unset => None,
                _ => v.clone(),
            };
            match taken {
                Some(t) => out.push(t),
                None if kind == b'?' => return Outcome::Unknown,
                None => match operand(word, vars, depth) {
                    Some(w) => out.push(w),
                    None => return Outcome::Unknown,
                },
            }
        }
        return Outcome::Words(out);
    }
    let mut out = Vec::new();
    if star.is_some()
        && let Some(spec) = op.strip_prefix(':')
    {
        // `${a[@]:1:2}`: a slice of the elements.
        let elements: Vec<String> = scalars.into_iter().flatten().collect();
        let Some(slice) = substring(&elements, spec, vars, depth) else {
            return Outcome::Unknown;
        };
        return join(slice);
    }
    for v in scalars {
        let Some(v) = v else {
            // Unset: every operator but the ones above yields nothing.
            out.push(String::new());
            continue;
        };
        match apply(&v, op, vars, depth) {
            Some(r) => out.push(r),
            None => return Outcome::Unknown,
        }
    }
    join(out)
}

/// An operator on a variable the line does not set: a default or alternative it spells
/// out stands (`${d:-/tmp}`, `${HOME:+/}`); anything else is kept as written.
fn outside(op: &str, vars: &dyn Vars, depth: usize) -> Outcome {
    for o in [":-", "-", ":=", "=", ":+", "+"] {
        if let Some(word) = op.strip_prefix(o) {
            return operand(word, vars, depth)
                .map_or(Outcome::Unknown, |w| Outcome::Words(vec![w]));
        }
    }
    Outcome::Raw
}

/// One value with the operator `op` (not a default) applied; `None` when not known.
fn apply(v: &str, op: &str, vars: &dyn Vars, depth: usize) -> Option<String> {
    let chars: Vec<char> = v.chars().collect();
    if let Some(spec) = op.strip_prefix(':') {
        let chars: Vec<String> = chars.iter().map(char::to_string).collect();
        return substring(&chars, spec, vars, depth).map(|s| s.concat());
    }
    if let Some(rest) = op.strip_prefix('#') {
        let (longest, rest) = rest.strip_prefix('#').map_or((false, rest), |r| (true, r));
        let pattern = pattern(rest, vars, depth)?;
        let value = capped(&chars)?;
        paid(vars, &pattern, value, false)?;
        let ends = ends(&pattern, value, 0);
        let end = if longest {
            ends.iter().rposition(|e| *e)
        } else {
            ends.iter().position(|e| *e)
        };
        return Some(value[end.unwrap_or(0)..].iter().collect());
    }
    if let Some(rest) = op.strip_prefix('%') {
        let (longest, rest) = rest.strip_prefix('%').map_or((false, rest), |r| (true, r));
        let pattern = pattern(rest, vars, depth)?;
        let value = capped(&chars)?;
        paid(vars, &pattern, value, true)?;
        let n = value.len();
        let start = if longest {
            (0..=n).find(|&s| ends(&pattern, value, s)[n])
        } else {
            (0..=n).rev().find(|&s| ends(&pattern, value, s)[n])
        };
        return Some(value[..start.unwrap_or(n)].iter().collect());
    }
    if let Some(rest) = op.strip_prefix('/') {
        let (mode, rest) = match rest.as_bytes().first() {
            Some(b'/') => (b'/', &rest[1..]),
            Some(b'#') => (b'#', &rest[1..]),
            Some(b'%') => (b'%', &rest[1..]),
            _ => (b' ', rest),
        };
        let (pat, with) = split_replacement(rest);
        // Bash 5.2 puts the match where `&` stands; older versions keep `&`.
        if with.is_some_and(|w| w.contains('&')) {
            return None;
        }
        let pattern = pattern(pat, vars, depth)?;
        let with = match with {
            Some(w) => operand(w, vars, depth)?,
            None => String::new(),
        };
        let value = capped(&chars)?;
        paid(vars, &pattern, value, true)?;
        return Some(substitute(value, &pattern, &with, mode));
    }
    for (o, upper, all) in [
        ("^^", Some(true), true),
        ("^", Some(true), false),
        (",,", Some(false), true),
        (",", Some(false), false),
        ("~~", None, true),
        ("~", None, false),
    ] {
        if let Some(rest) = op.strip_prefix(o) {
            let pattern = if rest.is_empty() {
                vec![('?', false)]
            } else {
                pattern(rest, vars, depth)?
            };
            paid(vars, &pattern, &chars, false)?;
            let mut out = String::new();
            for (k, c) in chars.iter().enumerate() {
                let hit = (all || k == 0) && ends(&pattern, &[*c], 0)[1];
                let flip = match upper {
                    _ if !hit => None,
                    Some(true) => Some(true),
                    Some(false) => Some(false),
                    None => Some(c.is_lowercase()),
                };
                match flip {
                    Some(true) => out.extend(c.to_uppercase()),
                    Some(false) => out.extend(c.to_lowercase()),
                    None => out.push(*c),
                }
            }
            return Some(out);
        }
    }
    if let Some(t) = op.strip_prefix('@') {
        return match t {
            "U" => Some(v.to_uppercase()),
            "L" => Some(v.to_lowercase()),
            "u" => {
                let mut c = v.chars();
                Some(c.next().map_or(String::new(), |f| {
                    f.to_uppercase().chain(c).collect::<String>()
                }))
            }
            "Q" | "K" | "k" => Some(format!("'{}'", v.replace('\'', r"'\''"))),
            "E" | "P" if !v.contains(['\\', '$', '`']) => Some(v.to_owned()),
            _ => None,
        };
    }
    None
}

/// Pays for matching `pattern` against `value` once, or from every start.
fn paid(vars: &dyn Vars, pattern: &Pattern, value: &[char], every_start: bool) -> Option<()> {
    let once = (pattern.len() + 1) * (value.len() + 1);
    let cost = if every_start {
        once * (value.len() + 1)
    } else {
        once
    };
    vars.spend(cost).then_some(())
}

fn capped(chars: &[char]) -> Option<&[char]> {
    (chars.len() <= MAX_VALUE).then_some(chars)
}

/// `pattern/with` of `${x/pattern/with}`: the first unquoted, unescaped `/`.
fn split_replacement(text: &str) -> (&str, Option<&str>) {
    let bytes = text.as_bytes();
    let (mut k, mut quote, mut braces) = (0, 0u8, 0usize);
    while k < bytes.len() {
        let b = bytes[k];
        match b {
            b'\\' if quote != b'\'' => k += 1,
            b'\'' | b'"' if quote == 0 => quote = b,
            _ if b == quote => quote = 0,
            b'{' if quote != b'\'' => braces += 1,
            b'}' if quote != b'\'' => braces = braces.saturating_sub(1),
            b'/' if quote == 0 && braces == 0 => return (&text[..k], Some(&text[k + 1..])),
            _ => {}
        }
        k += 1;
    }
    (text, None)
}

/// `value` with the matches of `pattern` replaced: `mode` `/` every one, `#` at the
/// start, `%` at the end, otherwise the first. The longest match wins, as in bash.
fn substitute(value: &[char], pattern: &Pattern, with: &str, mode: u8) -> String {
    let n = value.len();
    if pattern.is_empty() {
        return match mode {
            b'#' => format!("{with}{}", value.iter().collect::<String>()),
            b'%' => format!("{}{with}", value.iter().collect::<String>()),
            _ => value.iter().collect(),
        };
    }
    match mode {
        b'#' => match ends(pattern, value, 0).iter().rposition(|e| *e) {
            Some(end) => format!("{with}{}", value[end..].iter().collect::<String>()),
            None => value.iter().collect(),
        },
        b'%' => match (0..=n).find(|&s| ends(pattern, value, s)[n]) {
            Some(start) => format!("{}{with}", value[..start].iter().collect::<String>()),
            None => value.iter().collect(),
        },
        _ => {
            let mut out = String::new();
            let mut k = 0;
            while k <= n {
                let end = ends(pattern, value, k).iter().rposition(|e| *e);
                match end {
                    Some(end) if end > k => {
                        out.push_str(with);
                        k = end;
                        if mode != b'/' {
                            out.extend(&value[k..]);
                            return out;
                        }
                    }
                    _ => {
                        if let Some(c) = value.get(k) {
                            out.push(*c);
                        }
                        k += 1;
                    }
                }
            }
            out
        }
    }
}

/// `${x:offset}`, `${x:offset:length}` on `items` (characters, or elements).
fn substring(items: &[String], spec: &str, vars: &dyn Vars, depth: usize) -> Option<Vec<String>> {
    let (offset, length) = match split_colon(spec) {
        (o, Some(l)) => (o, Some(l)),
        (o, None) => (o, None),
    };
    let n = i64::try_from(items.len()).ok()?;
    let offset = arithmetic(offset, vars, depth)?;
    let start = if offset < 0 { n + offset } else { offset };
    if start < 0 || start > n {
        return Some(Vec::new());
    }
    let end = match length {
        None => n,
        Some(l) => {
            let l = arithmetic(l, vars, depth)?;
            let end = if l < 0 {
                n + l
            } else {
                start.saturating_add(l).min(n)
            };
            if end < start {
                // Bash stops with "substring expression < 0".
                return None;
            }
            end
        }
    };
    let (start, end) = (usize::try_from(start).ok()?, usize::try_from(end).ok()?);
    Some(items[start..end].to_vec())
}

fn split_colon(spec: &str) -> (&str, Option<&str>) {
    let mut depth = 0usize;
    for (k, b) in spec.bytes().enumerate() {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b':' if depth == 0 => return (&spec[..k], Some(&spec[k + 1..])),
            _ => {}
        }
    }
    (spec, None)
}

/// An integer expression of bash arithmetic: numbers, variables holding them, `+ - * / %`
/// and parentheses; `None` for anything else.
fn arithmetic(text: &str, vars: &dyn Vars, depth: usize) -> Option<i64> {
    if text.len() > 128 || depth > MAX_DEPTH {
        return None;
    }
    let text = text.trim();
    if text.is_empty() {
        return Some(0);
    }
    let tokens = tokens(text, vars, depth)?;
    let mut at = 0;
    let v = sum(&tokens, &mut at)?;
    (at == tokens.len()).then_some(v)
}

#[derive(Clone, Copy, PartialEq)]
enum Tok {
    Num(i64),
    Op(u8),
}

fn tokens(text: &str, vars: &dyn Vars, depth: usize) -> Option<Vec<Tok>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    while k < bytes.len() {
        let b = bytes[k];
        if b.is_ascii_whitespace() {
            k += 1;
        } else if b.is_ascii_digit() {
            let len = bytes[k..].iter().take_while(|b| b.is_ascii_digit()).count();
            if len > 1 && b == b'0' {
                // Octal and other bases.
                return None;
            }
            out.push(Tok::Num(text[k..k + len].parse().ok()?));
            k += len;
        } else if b == b'$' || b == b'_' || b.is_ascii_alphabetic() {
            let from = if b == b'$' { k + 1 } else { k };
            let len = bytes[from..]
                .iter()
                .take_while(|b| **b == b'_' || b.is_ascii_alphanumeric())
                .count();
            if len == 0 {
                return None;
            }
            let Var::Scalar(v) = vars.var(&text[from..from + len]) else {
                return None;
            };
            out.push(Tok::Num(arithmetic(&v, vars, depth + 1)?));
            k = from + len;
        } else if b"+-*/%()".contains(&b) {
            out.push(Tok::Op(b));
            k += 1;
        } else {
            return None;
        }
        if out.len() > 64 {
            return None;
        }
    }
    Some(out)
}

fn sum(t: &[Tok], at: &mut usize) -> Option<i64> {
    let mut v = product(t, at)?;
    while let Some(Tok::Op(o @ (b'+' | b'-'))) = t.get(*at).copied() {
        *at += 1;
        let r = product(t, at)?;
        v = if o == b'+' {
            v.checked_add(r)?
        } else {
            v.checked_sub(r)?
        };
    }
    Some(v)
}

fn product(t: &[Tok], at: &mut usize) -> Option<i64> {
    let mut v = unary(t, at)?;
    while let Some(Tok::Op(o @ (b'*' | b'/' | b'%'))) = t.get(*at).copied() {
        *at += 1;
        let r = unary(t, at)?;
        v = match o {
            b'*' => v.checked_mul(r)?,
            b'/' => v.checked_div(r)?,
            _ => v.checked_rem(r)?,
        };
    }
    Some(v)
}

fn unary(t: &[Tok], at: &mut usize) -> Option<i64> {
    match t.get(*at).copied()? {
        Tok::Num(n) => {
            *at += 1;
            Some(n)
        }
        Tok::Op(b'-') => {
            *at += 1;
            unary(t, at)?.checked_neg()
        }
        Tok::Op(b'+') => {
            *at += 1;
            unary(t, at)
        }
        Tok::Op(b'(') if *at < 64 => {
            *at += 1;
            let v = sum(t, at)?;
            (t.get(*at) == Some(&Tok::Op(b')'))).then(|| *at += 1)?;
            Some(v)
        }
        Tok::Op(_) => None,
    }
}

/// An operand word (a default, a replacement) as bash expands it: quotes removed,
/// expansions filled in; `None` when it holds what is only known as the shell runs.
fn operand(text: &str, vars: &dyn Vars, depth: usize) -> Option<String> {
    Some(
        pieces(text, vars, depth)?
            .into_iter()
            .map(|(c, _)| c)
            .collect(),
    )
}

/// A pattern operand: each character with whether it is quoted. Extended glob patterns
/// are not matched here.
fn pattern(text: &str, vars: &dyn Vars, depth: usize) -> Option<Pattern> {
    let p = pieces(text, vars, depth)?;
    let extended = p
        .windows(2)
        .any(|w| !w[0].1 && !w[1].1 && "!@+*?".contains(w[0].0) && w[1].0 == '(');
    (p.len() <= MAX_PATTERN && !extended).then_some(p)
}

/// The characters of an operand word, each with whether it is quoted.
fn pieces(text: &str, vars: &dyn Vars, depth: usize) -> Option<Pattern> {
    let mut out: Pattern = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut in_double = false;
    while let Some((k, c)) = chars.next() {
        match c {
            '\\' => {
                let (_, next) = chars.next()?;
                if in_double && !"$`\"\\".contains(next) {
                    out.push(('\\', true));
                }
                out.push((next, true));
            }
            '\'' if !in_double => {
                for (_, q) in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    out.push((q, true));
                }
            }
            '"' => in_double = !in_double,
            '`' => return None,
            '~' if k == 0 && !in_double => return None,
            '$' => {
                let rest = &text[k + 1..];
                let (body, len) = if let Some(inner) = rest.strip_prefix('{') {
                    let close = closing_brace(inner)?;
                    (&inner[..close], close + 2)
                } else {
                    let first = rest.bytes().next();
                    let len = match first {
                        Some(b) if b.is_ascii_digit() || b"@*#?$!-".contains(&b) => 1,
                        _ => rest
                            .bytes()
                            .take_while(|b| *b == b'_' || b.is_ascii_alphanumeric())
                            .count(),
                    };
                    if len == 0 {
                        if rest.starts_with(['(', '\'', '"']) {
                            return None;
                        }
                        out.push(('$', in_double));
                        continue;
                    }
                    (&rest[..len], len)
                };
                let Outcome::Words(words) = eval(body, vars, depth + 1) else {
                    return None;
                };
                if words.len() != 1 {
                    return None;
                }
                out.extend(words[0].chars().map(|c| (c, in_double)));
                for _ in 0..len {
                    chars.next();
                }
            }
            _ => out.push((c, in_double)),
        }
        if out.len() > 4096 {
            return None;
        }
    }
    Some(out)
}

/// The index in `inner` (after `${`) of the `}` closing it.
pub(super) fn closing_brace(inner: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (k, b) in inner.bytes().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' if depth == 0 => return Some(k),
            b'}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Where a match of `pattern` starting at `start` of `value` may end: `ends[e]` for
/// `value[start..e]`. Glob syntax: `*`, `?`, `[…]` (with `!`/`^`, ranges and classes),
/// quoted characters literal. Work is `pattern × value`.
fn ends(pattern: &Pattern, value: &[char], start: usize) -> Vec<bool> {
    let n = value.len();
    let mut cur = vec![false; n + 1];
    if start > n {
        return cur;
    }
    cur[start] = true;
    let mut k = 0;
    while k < pattern.len() {
        let (c, quoted) = pattern[k];
        let mut next = vec![false; n + 1];
        if !quoted && c == '*' {
            if let Some(first) = cur.iter().position(|e| *e) {
                next[first..].iter_mut().for_each(|e| *e = true);
            }
            k += 1;
        } else if !quoted && c == '[' {
            if let Some((members, negated, after)) = class(pattern, k) {
                for p in 0..n {
                    if cur[p] && members.matches(value[p]) != negated {
                        next[p + 1] = true;
                    }
                }
                k = after;
            } else {
                for p in 0..n {
                    if cur[p] && value[p] == '[' {
                        next[p + 1] = true;
                    }
                }
                k += 1;
            }
        } else {
            for p in 0..n {
                if cur[p] && ((!quoted && c == '?') || value[p] == c) {
                    next[p + 1] = true;
                }
            }
            k += 1;
        }
        cur = next;
        if !cur.contains(&true) {
            break;
        }
    }
    cur
}

/// The members of a bracket expression.
struct Members {
    chars: Vec<char>,
    ranges: Vec<(char, char)>,
    classes: Vec<String>,
}

impl Members {
    fn matches(&self, c: char) -> bool {
        self.chars.contains(&c)
            || self.ranges.iter().any(|(a, b)| *a <= c && c <= *b)
            || self.classes.iter().any(|k| match k.as_str() {
                "alpha" => c.is_alphabetic(),
                "digit" => c.is_ascii_digit(),
                "alnum" => c.is_alphanumeric(),
                "upper" => c.is_uppercase(),
                "lower" => c.is_lowercase(),
                "space" => c.is_whitespace(),
                "punct" => c.is_ascii_punctuation(),
                "xdigit" => c.is_ascii_hexdigit(),
                "blank" => c == ' ' || c == '\t',
                "word" => c.is_alphanumeric() || c == '_',
                _ => false,
            })
    }
}

/// The bracket expression opening at `pattern[open]`: members, negation and the index
/// after it; `None` when it does not close (then `[` is itself).
fn class(pattern: &Pattern, open: usize) -> Option<(Members, bool, usize)> {
    let mut k = open + 1;
    let negated = matches!(pattern.get(k), Some(('!' | '^', false)));
    if negated {
        k += 1;
    }
    let mut m = Members {
        chars: Vec::new(),
        ranges: Vec::new(),
        classes: Vec::new(),
    };
    let mut first = true;
    while let Some(&(c, quoted)) = pattern.get(k) {
        if c == ']' && !quoted && !first {
            return Some((m, negated, k + 1));
        }
        first = false;
        if c == '[' && !quoted && matches!(pattern.get(k + 1), Some((':', _))) {
            let rest: String = pattern[k + 2..].iter().map(|(c, _)| *c).collect();
            let end = rest.find(":]")?;
            m.classes.push(rest[..end].to_owned());
            k += 2 + rest[..end].chars().count() + 2;
            continue;
        }
        if matches!(pattern.get(k + 1), Some(('-', false)))
            && let Some(&(hi, _)) = pattern.get(k + 2)
            && hi != ']'
        {
            m.ranges.push((c, hi));
            k += 3;
            continue;
        }
        m.chars.push(c);
        k += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Map(Vec<(&'static str, Var)>, std::cell::Cell<usize>);

    impl Vars for Map {
        fn var(&self, name: &str) -> Var {
            match self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| v) {
                Some(Var::Scalar(s)) => Var::Scalar(s.clone()),
                Some(Var::Array(a)) => Var::Array(a.clone()),
                Some(Var::Each(a)) => Var::Each(a.clone()),
                Some(Var::Unknown) => Var::Unknown,
                Some(Var::Outside) | None => Var::Outside,
            }
        }

        fn outside(&self, name: &str) -> Option<String> {
            (name == "PWD").then(|| "/work/proj".to_owned())
        }

        fn spend(&self, cost: usize) -> bool {
            let left = self.1.get();
            self.1.set(left.saturating_sub(cost));
            left >= cost
        }
    }

    fn vars() -> Map {
        let s = |v: &str| Var::Scalar(v.to_owned());
        Map::new(vec![
            ("p", s("X.claude-nagger")),
            ("q", s(".claude-XX")),
            ("r", s("p")),
            ("e", s("")),
            ("n", s("3")),
            ("path", s("/a/b/c.tar.gz")),
            ("c", Var::Unknown),
            (
                "a",
                Var::Array(vec![".claude".into(), "nagger".into(), "z".into()]),
            ),
            ("l", Var::Each(vec!["a.md".into(), "b.md".into()])),
        ])
    }

    impl Map {
        fn new(vars: Vec<(&'static str, Var)>) -> Map {
            Map(vars, std::cell::Cell::new(usize::MAX))
        }
    }

    fn one(body: &str) -> String {
        match evaluate(body, &vars()) {
            Outcome::Words(w) if w.len() == 1 => w[0].clone(),
            other => panic!("{body}: {other:?}"),
        }
    }

    #[test]
    fn prefix_and_suffix_removal_with_patterns() {
        assert_eq!(one("p#X"), ".claude-nagger");
        assert_eq!(one("p#?"), ".claude-nagger");
        assert_eq!(one("p#[A-Z]"), ".claude-nagger");
        assert_eq!(one("p#'X'"), ".claude-nagger");
        assert_eq!(one("p#\\*"), "X.claude-nagger");
        assert_eq!(one("path##*/"), "c.tar.gz");
        assert_eq!(one("path#*/"), "a/b/c.tar.gz");
        assert_eq!(one("path%/*"), "/a/b");
        assert_eq!(one("path%%.*"), "/a/b/c");
        assert_eq!(one("path%.*"), "/a/b/c.tar");
        assert_eq!(one("path%.zip"), "/a/b/c.tar.gz");
        assert_eq!(one("p#$r"), "X.claude-nagger");
        assert_eq!(one("p#[[:upper:]]"), ".claude-nagger");
    }

    #[test]
    fn substitution_first_global_and_anchored() {
        assert_eq!(one("q/XX/nagger"), ".claude-nagger");
        assert_eq!(one("q//X/n"), ".claude-nn");
        assert_eq!(one("q/#.c/C"), "Claude-XX");
        assert_eq!(one("q/%XX/nagger"), ".claude-nagger");
        assert_eq!(one("q/%X/Y"), ".claude-XY");
        assert_eq!(one("q/X"), ".claude-X");
        assert_eq!(one("q//X"), ".claude-");
        assert_eq!(one("q/X*/nagger"), ".claude-nagger");
        assert_eq!(one("q/#/pre"), "pre.claude-XX");
        assert_eq!(one("q/XX/\"$r\""), ".claude-p");
        assert_eq!(evaluate("q/XX/&", &vars()), Outcome::Unknown);
    }

    #[test]
    fn a_known_outside_value_is_read_only_to_take_a_part_of_it() {
        assert_eq!(one("PWD::1"), "/");
        assert_eq!(one("PWD%%o*"), "/w");
        assert_eq!(one("PWD/proj/build"), "/work/build");
        assert_eq!(one("PWD^^"), "/WORK/PROJ");
        for whole in ["PWD", "PWD:-/x", "PWD:+y", "OLDPWD::1"] {
            assert!(
                !matches!(evaluate(whole, &vars()), Outcome::Words(ref w) if w[0].starts_with("/w")),
                "{whole}"
            );
        }
        assert_eq!(evaluate("PWD", &vars()), Outcome::Raw);
    }

    #[test]
    fn substrings_with_offsets_and_lengths() {
        assert_eq!(one("p:1"), ".claude-nagger");
        assert_eq!(one("p:0:3"), "X.c");
        assert_eq!(one("p: -6"), "nagger");
        assert_eq!(one("p:(-6):3"), "nag");
        assert_eq!(one("p:1:-7"), ".claude");
        assert_eq!(one("p:n-2"), ".claude-nagger");
        assert_eq!(one("p:99"), "");
        assert_eq!(evaluate("p:x+", &vars()), Outcome::Unknown);
    }

    #[test]
    fn defaults_alternatives_and_lengths() {
        assert_eq!(one("e:-/srv"), "/srv");
        assert_eq!(one("e-/srv"), "");
        assert_eq!(one("p:+/"), "/");
        assert_eq!(one("e:+/"), "");
        assert_eq!(one("zz:-/"), "/");
        assert_eq!(one("zz:+/"), "/");
        assert_eq!(one("#p"), "15");
        assert_eq!(one("#a[@]"), "3");
        assert_eq!(one("p:-$(cat f)"), "X.claude-nagger");
        assert_eq!(evaluate("e:-$(cat f)", &vars()), Outcome::Unknown);
        assert_eq!(evaluate("zz%x", &vars()), Outcome::Unknown);
        assert_eq!(evaluate("zz", &vars()), Outcome::Raw);
        assert_eq!(evaluate("1", &vars()), Outcome::Raw);
        assert_eq!(evaluate("c%x", &vars()), Outcome::Unknown);
    }

    #[test]
    fn case_changes_and_transforms() {
        assert_eq!(one("q,,"), ".claude-xx");
        assert_eq!(one("q^^"), ".CLAUDE-XX");
        assert_eq!(one("q^^[a-c]"), ".ClAude-XX");
        assert_eq!(one("q~~"), ".CLAUDE-xx");
        assert_eq!(one("q@U"), ".CLAUDE-XX");
        assert_eq!(one("q@L"), ".claude-xx");
        assert_eq!(one("q@Q"), "'.claude-XX'");
        assert_eq!(one("q@P"), ".claude-XX");
        assert_eq!(evaluate("q@Z", &vars()), Outcome::Unknown);
    }

    #[test]
    fn indirection_and_arrays() {
        assert_eq!(one("!r"), "X.claude-nagger");
        assert_eq!(one("!r#X"), ".claude-nagger");
        assert_eq!(one("a[1]"), "nagger");
        assert_eq!(one("a[-1]"), "z");
        assert_eq!(one("a"), ".claude");
        assert_eq!(one("a[*]"), ".claude nagger z");
        assert_eq!(
            evaluate("a[@]", &vars()),
            Outcome::Words(vec![".claude".into(), "nagger".into(), "z".into()])
        );
        assert_eq!(one("a[*]:0:2"), ".claude nagger");
        assert_eq!(
            evaluate("!a[@]", &vars()),
            Outcome::Words(vec!["0".into(), "1".into(), "2".into()])
        );
        assert_eq!(
            evaluate("l%.md", &vars()),
            Outcome::Words(vec!["a".into(), "b".into()])
        );
        assert_eq!(evaluate("!pre*", &vars()), Outcome::Unknown);
    }

    #[test]
    fn arrays_join_with_the_first_character_of_ifs() {
        let mut v = vars();
        v.0.push(("IFS", Var::Scalar("-,".into())));
        assert_eq!(
            evaluate("a[*]", &v),
            Outcome::Words(vec![".claude-nagger-z".into()])
        );
        v.0.pop();
        v.0.push(("IFS", Var::Unknown));
        assert_eq!(evaluate("a[*]", &v), Outcome::Unknown);
    }

    #[test]
    fn hostile_input_stays_bounded() {
        let long = "a".repeat(MAX_VALUE + 1);
        let v = Map::new(vec![("x", Var::Scalar(long))]);
        assert_eq!(evaluate("x%%*a", &v), Outcome::Unknown);
        let star = "*".repeat(100);
        let v = Map::new(vec![("x", Var::Scalar("b".repeat(MAX_VALUE)))]);
        assert_eq!(
            evaluate(&format!("x//{star}a/c"), &v),
            Outcome::Words(vec!["b".repeat(MAX_VALUE)])
        );
        assert_eq!(evaluate("x/@(b)/c", &v), Outcome::Unknown);
        // Work past what one line may spend is unknown.
        let v = Map(vec![("x", Var::Scalar("b".repeat(64)))], 100_000.into());
        let mut outcomes = (0..64).map(|_| evaluate("x%%*c", &v));
        assert!(outcomes.any(|o| o == Outcome::Unknown));
    }
}
