//! A `sed` program carried out on a file's text, for the forms an in-place edit of a
//! component file takes in practice: substitutions (`s/re/new/flags`) one after the
//! other (`;`, new lines, several `-e`), each with an optional address (a line number,
//! `$`, `/re/`, a range of two, `!`), in basic or extended regular expressions with `&`
//! and `\1` in the replacement. Anything else (other commands, `w`/`e` flags, script
//! files) is not carried out: the caller asks.

use regex::{Regex, RegexBuilder};

/// Largest compiled expression accepted.
const MAX_REGEX: usize = 1 << 20;
/// Most commands of one program carried out.
const MAX_COMMANDS: usize = 32;

/// One line a command's address picks.
enum Address {
    All,
    Line(usize),
    Last,
    Matching(Regex),
}

impl Address {
    /// Whether line `n` (from 1) of `last`, holding `body`, is this one.
    fn picks(&self, n: usize, last: usize, body: &str) -> bool {
        match self {
            Address::All => true,
            Address::Line(k) => *k == n,
            Address::Last => n == last,
            Address::Matching(re) => re.is_match(body),
        }
    }
}

/// Where a command applies: one address, or a range from the line the first picks to the
/// next line the second picks (`/^---$/,/^---$/`, `1,5`, `3,$`); `!` turns it around.
struct Place {
    first: Address,
    to: Option<Address>,
    negated: bool,
}

/// One substitution, or a line of text added after, before or in place of a line
/// (`a text`, `i text`, `c text`).
struct Substitution {
    address: Place,
    pattern: Regex,
    replacement: String,
    all: bool,
    /// `a`, `i` or `c` with its text, in place of a substitution.
    text: Option<(char, String)>,
}

/// The text `sed` leaves of `text` with `args` (its options and scripts, the files
/// aside), when nagger can carry the program out.
pub(super) fn edited(args: &[String], text: &str) -> Option<String> {
    // `-E`, `-r`, or a cluster of flags holding one (`-Ei`, `-ri`).
    let extended = args.iter().any(|a| {
        a == "--regexp-extended"
            || a.strip_prefix('-').is_some_and(|flags| {
                !flags.is_empty()
                    && flags.chars().all(|c| "Einrsu".contains(c))
                    && flags.contains(['E', 'r'])
            })
    });
    if args.iter().any(|a| {
        matches!(
            a.as_str(),
            "-f" | "-s" | "-z" | "--separate" | "--null-data"
        ) || a.starts_with("--file")
    }) {
        return None;
    }
    let mut scripts: Vec<&str> = Vec::new();
    let mut k = 0;
    while let Some(a) = args.get(k) {
        k += 1;
        if a == "-e" || a == "--expression" {
            scripts.push(args.get(k)?);
            k += 1;
        } else if let Some(s) = a.strip_prefix("--expression=") {
            scripts.push(s);
        }
    }
    if scripts.is_empty() {
        scripts.push(args.iter().find(|a| !a.starts_with('-'))?);
    }
    let mut commands = Vec::new();
    for script in scripts {
        parse(script, extended, &mut commands)?;
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let last = lines.len();
    let mut out = String::with_capacity(text.len());
    // Whether each command's range is open.
    let mut open = vec![false; commands.len()];
    for (n, line) in lines.iter().enumerate() {
        let (body, end) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (*line, ""),
        };
        let mut body = body.to_owned();
        let (mut before, mut after) = (String::new(), String::new());
        let mut replaced = false;
        for (c, open) in commands.iter().zip(open.iter_mut()) {
            let n = n + 1;
            let inside = match &c.address.to {
                None => c.address.first.picks(n, last, &body),
                Some(to) if *open => {
                    // Closed by the line the second address picks (a line number already
                    // passed closes it here).
                    *open = !match to {
                        Address::Line(k) => n >= *k,
                        other => other.picks(n, last, &body),
                    };
                    true
                }
                Some(to) => {
                    let opens = c.address.first.picks(n, last, &body);
                    // A second address that is a line number at or before this one
                    // picks this line alone; a pattern is looked for from the next line.
                    *open = opens
                        && match to {
                            Address::Line(k) => *k > n,
                            Address::Last => n < last,
                            _ => true,
                        };
                    opens
                }
            };
            if inside == c.address.negated || replaced {
                continue;
            }
            match &c.text {
                Some(('a', text)) => {
                    after.push_str(text);
                    after.push('\n');
                }
                Some(('i', text)) => {
                    before.push_str(text);
                    before.push('\n');
                }
                Some((_, text)) => {
                    body.clone_from(text);
                    replaced = true;
                }
                None => {
                    body = if c.all {
                        c.pattern
                            .replace_all(&body, c.replacement.as_str())
                            .into_owned()
                    } else {
                        c.pattern
                            .replace(&body, c.replacement.as_str())
                            .into_owned()
                    };
                }
            }
        }
        out.push_str(&before);
        out.push_str(&body);
        out.push_str(if after.is_empty() { end } else { "\n" });
        out.push_str(&after);
    }
    Some(out)
}

/// The substitutions of one script, appended to `out`; `None` for anything else.
fn parse(script: &str, extended: bool, out: &mut Vec<Substitution>) -> Option<()> {
    let chars: Vec<char> = script.chars().collect();
    let empty = Regex::new("^$").ok()?;
    let mut i = 0;
    loop {
        while i < chars.len() && (chars[i].is_whitespace() || chars[i] == ';') {
            i += 1;
        }
        if i >= chars.len() {
            return Some(());
        }
        if out.len() >= MAX_COMMANDS {
            return None;
        }
        // The address: one, or two as a range, then `!`.
        let first = address(&chars, &mut i, extended)?;
        let to = if chars.get(i) == Some(&',') && !matches!(first, Address::All) {
            i += 1;
            match address(&chars, &mut i, extended)? {
                Address::All => return None,
                to => Some(to),
            }
        } else {
            None
        };
        while i < chars.len() && chars[i] == ' ' {
            i += 1;
        }
        let negated = chars.get(i) == Some(&'!');
        if negated {
            if matches!(first, Address::All) {
                return None;
            }
            i += 1;
            while i < chars.len() && chars[i] == ' ' {
                i += 1;
            }
        }
        let address = Place { first, to, negated };
        // `a text`, `i text`, `c text` (GNU's one-line form): the rest of the script.
        if let Some(&kind @ ('a' | 'i' | 'c')) = chars.get(i) {
            // `c` over a range puts its text once, at the range's end: not carried out.
            if kind == 'c' && (address.to.is_some() || address.negated) {
                return None;
            }
            let rest: String = chars[i + 1..].iter().collect();
            let rest = rest.strip_prefix('\\').unwrap_or(&rest);
            let text = rest.trim_start().trim_end_matches('\n');
            if text.contains(['\n', '\\']) {
                return None;
            }
            out.push(Substitution {
                address,
                pattern: empty.clone(),
                replacement: String::new(),
                all: false,
                text: Some((kind, text.to_owned())),
            });
            return Some(());
        }
        // Otherwise only `s`.
        if chars.get(i) != Some(&'s') {
            return None;
        }
        let delim = *chars.get(i + 1)?;
        if delim.is_alphanumeric() || delim == '\\' || delim == '\n' || delim == ' ' {
            return None;
        }
        let (pattern, next) = delimited(&chars, i + 2, delim)?;
        let (replacement, next) = delimited(&chars, next, delim)?;
        i = next;
        let mut all = false;
        let mut fold = false;
        while let Some(&f) = chars.get(i) {
            match f {
                'g' => all = true,
                'I' | 'i' => fold = true,
                'p' => {}
                ';' | '\n' | '}' | ' ' => break,
                _ => return None,
            }
            i += 1;
        }
        if pattern.is_empty() {
            return None;
        }
        out.push(Substitution {
            address,
            pattern: compile(&pattern, extended, fold)?,
            replacement: replacement_of(&replacement)?,
            all,
            text: None,
        });
    }
}

/// The address at `chars[*i]` (a line number, `$`, `/re/` or `\%re%`), `i` moved past it;
/// [`Address::All`] when there is none there.
fn address(chars: &[char], i: &mut usize, extended: bool) -> Option<Address> {
    Some(match chars.get(*i)? {
        c if c.is_ascii_digit() => {
            let start = *i;
            while *i < chars.len() && chars[*i].is_ascii_digit() {
                *i += 1;
            }
            let n: usize = chars[start..*i].iter().collect::<String>().parse().ok()?;
            // `0,/re/` and `first~step` are GNU forms not carried out.
            if n == 0 || chars.get(*i) == Some(&'~') {
                return None;
            }
            Address::Line(n)
        }
        '$' => {
            *i += 1;
            Address::Last
        }
        '/' => {
            let (re, next) = delimited(chars, *i + 1, '/')?;
            *i = next;
            address_pattern(&re, chars, i, extended)?
        }
        '\\' => {
            let delim = *chars.get(*i + 1)?;
            if delim.is_alphanumeric() || delim == '\\' || delim == '\n' {
                return None;
            }
            let (re, next) = delimited(chars, *i + 2, delim)?;
            *i = next;
            address_pattern(&re, chars, i, extended)?
        }
        _ => Address::All,
    })
}

/// A pattern address, with GNU's `I` (any case) after it; an empty pattern (the last one
/// used) or `M` is not carried out.
fn address_pattern(re: &str, chars: &[char], i: &mut usize, extended: bool) -> Option<Address> {
    if re.is_empty() || chars.get(*i) == Some(&'M') {
        return None;
    }
    let fold = chars.get(*i) == Some(&'I');
    if fold {
        *i += 1;
    }
    Some(Address::Matching(compile(re, extended, fold)?))
}

/// The text up to the next unescaped `delim` from `start` (escapes of the delimiter
/// taken out), and the index after it.
fn delimited(chars: &[char], start: usize, delim: char) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut i = start;
    let mut in_class = false;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            let next = *chars.get(i + 1)?;
            if next == delim && delim != '&' {
                out.push(next);
            } else {
                out.push('\\');
                out.push(next);
            }
            i += 2;
            continue;
        }
        if c == '[' && !in_class {
            in_class = true;
        } else if c == ']' && in_class {
            in_class = false;
        } else if c == delim && !in_class {
            return Some((out, i + 1));
        } else if c == '\n' {
            return None;
        }
        out.push(c);
        i += 1;
    }
    None
}

/// A sed expression as the `regex` crate writes it.
fn compile(pattern: &str, extended: bool, fold: bool) -> Option<Regex> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let next = *chars.get(i + 1)?;
                i += 2;
                match next {
                    '(' | ')' | '{' | '}' | '+' | '?' | '|' if !extended => out.push(next),
                    '<' | '>' => out.push_str(r"\b"),
                    'n' => out.push_str(r"\n"),
                    't' => out.push_str(r"\t"),
                    'w' | 'W' | 's' | 'S' | 'b' | 'B' => {
                        out.push('\\');
                        out.push(next);
                    }
                    d if d.is_ascii_digit() => return None,
                    other => out.push_str(&regex::escape(&other.to_string())),
                }
                continue;
            }
            '(' | ')' | '{' | '}' | '+' | '?' | '|' if !extended => {
                out.push_str(&regex::escape(&c.to_string()));
            }
            '*' if out.is_empty() || out.ends_with('^') => out.push_str(r"\*"),
            '[' => {
                // A bracket expression as written (`[]a]`, `[^]a]`, `[[:alpha:]]`).
                let start = i;
                i += 1;
                if chars.get(i) == Some(&'^') {
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    i += 1;
                }
                while i < chars.len() && chars[i] != ']' {
                    if chars[i] == '[' && matches!(chars.get(i + 1), Some(':' | '.' | '=')) {
                        let close = chars[i + 2..]
                            .windows(2)
                            .position(|w| w[1] == ']' && matches!(w[0], ':' | '.' | '='))?;
                        i += close + 4;
                    } else {
                        i += 1;
                    }
                }
                if i >= chars.len() {
                    return None;
                }
                let class: String = chars[start..=i].iter().collect();
                let class = class.replacen("[]", r"[\]", 1).replacen("[^]", r"[^\]", 1);
                out.push_str(&class.replace('\\', r"\\").replace(r"\\]", r"\]"));
                i += 1;
                continue;
            }
            _ => out.push(c),
        }
        i += 1;
    }
    RegexBuilder::new(&out)
        .case_insensitive(fold)
        .size_limit(MAX_REGEX)
        .build()
        .ok()
}

/// A sed replacement as the `regex` crate writes it: `&` the match, `\1` a group.
fn replacement_of(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next()? {
                d if d.is_ascii_digit() => {
                    out.push_str("${");
                    out.push(d);
                    out.push('}');
                }
                'n' => out.push('\n'),
                't' => out.push('\t'),
                '$' => out.push_str("$$"),
                other => out.push(other),
            },
            '&' => out.push_str("${0}"),
            '$' => out.push_str("$$"),
            '\n' => return None,
            other => out.push(other),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str], text: &str) -> Option<String> {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        edited(&args, text)
    }

    #[test]
    fn substitutions_are_carried_out_as_sed_does() {
        let text = "---\nname: coder\ndescription: writes code\n---\nRun cargo fmt.\n";
        assert_eq!(
            run(
                &[
                    "-i",
                    "s/name: coder/name: tester/; s/writes code/writes tests/"
                ],
                text
            )
            .unwrap(),
            "---\nname: tester\ndescription: writes tests\n---\nRun cargo fmt.\n"
        );
        assert_eq!(
            run(&["-i", "s/^name: coder$/name: x/"], text).unwrap(),
            "---\nname: x\ndescription: writes code\n---\nRun cargo fmt.\n"
        );
        assert_eq!(
            run(&["-i", "/^description:/s/code/& \\& tests/"], text).unwrap(),
            "---\nname: coder\ndescription: writes code & tests\n---\nRun cargo fmt.\n"
        );
        assert_eq!(
            run(&["-i", "-E", "3s/(writes) (code)/\\2 \\1/"], text).unwrap(),
            "---\nname: coder\ndescription: code writes\n---\nRun cargo fmt.\n"
        );
        assert_eq!(
            run(&["-i", "s/Run cargo fmt./Run cargo fmt --all./"], text).unwrap(),
            "---\nname: coder\ndescription: writes code\n---\nRun cargo fmt --all.\n"
        );
        // A line added after, before or in place of one.
        assert_eq!(
            run(
                &["-i", "2a permissionMode: bypassPermissions"],
                "---\nname: x\n---\n"
            )
            .unwrap(),
            "---\nname: x\npermissionMode: bypassPermissions\n---\n"
        );
        assert_eq!(
            run(&["-i", "/^description:/a model: sonnet"], text).unwrap(),
            "---\nname: coder\ndescription: writes code\nmodel: sonnet\n---\nRun cargo fmt.\n"
        );
        assert_eq!(run(&["-i", "1i # top"], "a\n").unwrap(), "# top\na\n");
        // Ranges, and `!`.
        let doc = "---\nname: a\n---\nname: b\n";
        assert_eq!(
            run(&["-i", "/^---$/,/^---$/ s/^name: .*/name: c/"], doc).unwrap(),
            "---\nname: c\n---\nname: b\n"
        );
        assert_eq!(
            run(&["-i", "2,$ s/name/key/"], doc).unwrap(),
            "---\nkey: a\n---\nkey: b\n"
        );
        assert_eq!(
            run(&["-i", "3,1s/-/+/g"], doc).unwrap(),
            "---\nname: a\n+++\nname: b\n"
        );
        assert_eq!(
            run(&["-i", "1,/^---$/!s/name/key/"], doc).unwrap(),
            "---\nname: a\n---\nkey: b\n"
        );
        assert_eq!(
            run(&["-i", "\\%^name: b%Is/b/hooks/"], doc).unwrap(),
            "---\nname: a\n---\nname: hooks\n"
        );
        // The closing fence taken away: what follows is read as frontmatter then.
        assert_eq!(
            run(&["-i", "4s/^...$//"], text).unwrap(),
            "---\nname: coder\ndescription: writes code\n\nRun cargo fmt.\n"
        );
    }

    #[test]
    fn programs_nagger_does_not_carry_out_are_left() {
        for script in [
            "0,/a/s/a/b/",
            "1~2s/a/b/",
            "1,3c x",
            "s/x/y/w out",
            "y/abc/xyz/",
            "5d",
            "s/x/y/2",
            "$!d",
        ] {
            assert_eq!(run(&["-i", script], "a\n"), None, "{script}");
        }
        assert_eq!(run(&["-i", "-f", "x.sed"], "a\n"), None);
    }
}
