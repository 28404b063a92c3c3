//! The capability model: every call of something that starts programs, deletes, writes,
//! or runs code built at run time, with its arguments resolved when they are literals or
//! joins of literals and known path builders; judged into [`Effect`]s.

use std::collections::{HashMap, HashSet};

use super::lexer::{Tok, lex};
use super::model::{Effect, Language, MAX_EFFECTS, Nested, quote_words};
use super::tables::{
    CWD_NAMES, Cap, DISPATCH, ENV_NAMES, HOME_NAMES, LOADERS, OPAQUE_NAMES, PATH_BUILDERS,
    RECEIVER_METHODS, TABLE, UNPACK_METHODS, applies, bare_calls,
};
use crate::domain::guard::targets::{Reach, dangerous_target};

/// A value the code computes, as far as its text tells.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Val {
    Str(String),
    List(Vec<Val>),
    /// One of several strings, not known which: a name a loop takes from a list
    /// (`for n in ("a", "b")`), and what is built from it. Each is judged in turn.
    OneOf(Vec<String>),
    /// A module, object or name not otherwise known: `os`, `os.path`, `child_process`.
    Name(String),
    /// A function picked by name: `getattr(shutil, 'rmtree')`.
    Func(String, String),
    Unknown,
}

/// Keyword arguments: name and the tokens of the value.
type Keywords = Vec<(String, (usize, usize))>;

struct Scan<'t> {
    lang: Language,
    toks: &'t [Tok],
    close: Vec<usize>,
    vars: HashMap<String, Val>,
    mentioned: HashSet<&'t str>,
    out: Vec<Effect>,
    depth: usize,
    /// How deep `value` is nested right now: bounded, so `f(f(f(…)))` stays cheap.
    nest: usize,
    nested: Nested,
}

/// The effects of `code` written in `lang`.
pub(super) fn analyse(code: &str, lang: Language, depth: usize, nested: Nested) -> Vec<Effect> {
    let lexed = lex(code, lang);
    let toks = &lexed.toks;
    let mut scan = Scan {
        lang,
        toks,
        close: matching(toks),
        vars: HashMap::new(),
        mentioned: toks
            .iter()
            .filter_map(|t| match t {
                Tok::Ident(s) | Tok::Str { text: s, .. } => Some(s.as_str()),
                _ => None,
            })
            .collect(),
        out: Vec::new(),
        depth,
        nest: 0,
        nested,
    };
    scan.run();
    let mut out = scan.out;
    for piece in lexed.nested.iter().take(16) {
        out.extend(nested(piece, lang, depth + 1));
    }
    out
}

/// For every opening bracket, the index of its match (or the end).
fn matching(toks: &[Tok]) -> Vec<usize> {
    let mut close = vec![usize::MAX; toks.len()];
    let mut stack = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::Punct("(" | "[" | "{") => stack.push(i),
            Tok::Punct(")" | "]" | "}") => {
                if let Some(open) = stack.pop() {
                    close[open] = i;
                }
            }
            _ => {}
        }
    }
    for open in stack {
        close[open] = toks.len();
    }
    close
}

fn is(t: Option<&Tok>, p: &str) -> bool {
    matches!(t, Some(Tok::Punct(q)) if *q == p)
}

fn ident(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

fn is_member_op(t: Option<&Tok>) -> bool {
    matches!(t, Some(Tok::Punct("." | "::" | "->")))
}

/// Keywords that end the arguments of a call written without brackets.
const STATEMENT_WORDS: &[&str] = &[
    "if", "unless", "or", "and", "while", "until", "for", "foreach", "do", "then", "end",
];

/// The last part of a dotted name: `os.path` → `path`.
fn last(name: &str) -> &str {
    name.rsplit(['.', ':']).next().unwrap_or(name)
}

fn strip_node(m: &str) -> &str {
    m.strip_prefix("node:").unwrap_or(m)
}

impl Scan<'_> {
    /// A Perl, Ruby or Lua file the code loads by a name written out, judged as the
    /// interpreter run on it where the command runs.
    fn runs_file(&mut self, file: &str) {
        let interpreter = match self.lang {
            Language::Perl => "perl",
            Language::Ruby => "ruby",
            _ => "lua",
        };
        self.push(Effect::Shell(format!(
            "{interpreter} {}",
            quote_words(&[file.to_owned()])
        )));
    }

    fn push(&mut self, e: Effect) {
        if self.out.len() < MAX_EFFECTS {
            self.out.push(e);
        }
    }

    fn run(&mut self) {
        let toks = self.toks;
        for (names, what) in OPAQUE_NAMES {
            if (names.contains(&self.lang) || self.lang == Language::Generic)
                && self.mentioned.contains(what)
            {
                self.push(Effect::Unknown(format!(
                    "uses `{what}`, which runs native code"
                )));
            }
        }
        let mut i = 0;
        while i < toks.len() && self.out.len() < MAX_EFFECTS {
            match &toks[i] {
                Tok::Cmd { text, known } => {
                    let e = if *known {
                        Effect::Shell(text.clone())
                    } else {
                        Effect::Unknown("runs a command line built from values".into())
                    };
                    self.push(e);
                }
                // Perl's `do "FILE"` / `do("FILE")` / `do $f`: the file's code runs.
                Tok::Ident(word)
                    if word == "do"
                        && self.lang == Language::Perl
                        && !is(toks.get(i + 1), "{")
                        && toks.get(i + 1).is_some_and(|t| !matches!(t, Tok::End)) =>
                {
                    // A file named outright is judged as `perl FILE` run where the
                    // command runs.
                    match toks.get(i + 1) {
                        Some(Tok::Str { text, known: true }) => {
                            self.push(Effect::Shell(format!(
                                "perl {}",
                                quote_words(std::slice::from_ref(text))
                            )));
                        }
                        _ => self.push(Effect::Unknown(
                            "runs the code of a file whose name it computes (`do`)".into(),
                        )),
                    }
                }
                // `require "./o.txt"`, `load "o.rb"`, `dofile "o.lua"` written without
                // brackets: the file's code runs.
                Tok::Ident(word)
                    if matches!(
                        word.as_str(),
                        "require" | "require_relative" | "load" | "dofile"
                    ) && matches!(
                        self.lang,
                        Language::Perl | Language::Ruby | Language::Lua
                    ) && matches!(
                        toks.get(i + 1),
                        Some(Tok::Str { text, .. })
                            if word == "require_relative" || word == "load" || loads_a_file(text)
                                || word == "dofile"
                    ) =>
                {
                    // Named outright, the file is judged as the interpreter run on it.
                    match toks.get(i + 1) {
                        Some(Tok::Str { text, known: true }) => self.runs_file(text),
                        Some(Tok::Str { text, .. }) => self.push(Effect::Unknown(format!(
                            "loads code from a file whose name it computes (`{word} {text}`)"
                        ))),
                        _ => {}
                    }
                }
                Tok::Ident(word) if !is_member_op(i.checked_sub(1).and_then(|k| toks.get(k))) => {
                    self.imports(i, word);
                    self.assignment(i);
                    self.chain(i);
                }
                Tok::Punct(")") => self.bracketed_receiver(i),
                // PHP's `'system'('ls')`.
                Tok::Str { text, known: true }
                    if self.lang == Language::Php && is(toks.get(i + 1), "(") =>
                {
                    let args = self.args_at(i + 1);
                    self.call(&Val::Func(String::new(), text.clone()), &args.0);
                }
                // PHP's callbacks named by a string: `array_map('unlink', glob('*.tmp'))`,
                // `array_walk($files, 'unlink')`, `call_user_func('system', $c)`.
                Tok::Str { text, known: true }
                    if self.lang == Language::Php
                        && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                        && !text.is_empty() =>
                {
                    self.handed_on(&Val::Name(text.clone()), i, i + 1, true);
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// The value of `word` at token `i`, a name the code never assigns. In Python a
    /// lowercase name whose path method changes a file (`p.write_text(…)`, `p.unlink()`)
    /// is a function's parameter or a loop's variable: a path the code is handed, so
    /// computed, unless it is one of the test runner's temporary folders (`tmp_path`,
    /// `tmpdir`). Any other name is what it says (a module, a global).
    fn unassigned(&self, word: &str, i: usize) -> Val {
        let toks = self.toks;
        // `p.write_text(…)`, `p.joinpath("x").write_text(…)`, `p.with_suffix(".b").touch()`.
        let mut changes = false;
        let mut k = i + 1;
        for _ in 0..16 {
            if !is(toks.get(k), ".") {
                break;
            }
            let Some(Tok::Ident(m)) = toks.get(k + 1) else {
                break;
            };
            let called = is(toks.get(k + 2), "(");
            if called && RECEIVER_METHODS.iter().any(|(r, _)| r == m) {
                changes = true;
                break;
            }
            k = if called {
                self.close.get(k + 2).map_or(usize::MAX, |c| c + 1)
            } else {
                k + 2
            };
        }
        // A module's own function of the same name (`shutil.rmtree(p)`, `os.unlink(p)`)
        // is no path's method.
        if self.lang != Language::Python
            || !changes
            || !word.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
            || module_of_power(word)
            || super::tables::TABLE.iter().any(|e| e.quals.contains(&word))
            || self.imported(word)
        {
            return Val::Name(word.to_owned());
        }
        if TEST_TEMP_NAMES.contains(&word) {
            return Val::Str(temp_folder());
        }
        self.loop_over_files(word, i).unwrap_or(Val::Unknown)
    }

    /// Whether the code imports a module under `word` (`import shutil, os`, `import x as
    /// word`, `from m import word`).
    fn imported(&self, word: &str) -> bool {
        let toks = self.toks;
        (1..toks.len()).take(65_536).any(|k| {
            if ident(toks.get(k)) != Some(word) {
                return false;
            }
            // Back over `a, b,` of an import's list to what starts it.
            let mut b = k - 1;
            while is(toks.get(b), ",") && b >= 2 && ident(toks.get(b - 1)).is_some() {
                b -= 2;
            }
            matches!(ident(toks.get(b)), Some("import" | "as"))
        })
    }

    /// `for p in Path("src").rglob("*.py"):` before token `i`: `p` is one of the files
    /// the pattern matches, as a path with that pattern (`src/**/*.py`), judged as the
    /// files it may name.
    fn loop_over_files(&self, word: &str, i: usize) -> Option<Val> {
        let toks = self.toks;
        let head = |k: usize| {
            (ident(toks.get(k)) == Some("for")
                && ident(toks.get(k + 1)) == Some(word)
                && ident(toks.get(k + 2)) == Some("in"))
            .then_some(k)
        };
        // Before the name, or after it in a comprehension's bracket.
        let at = (i.saturating_sub(2048)..i)
            .rev()
            .find_map(head)
            .or_else(|| self.in_enclosing_brackets(i, head))?;
        let from = at + 3;
        // `Path("src")` or `pathlib.Path("src")`, then `.rglob("*.py")`, `.glob("*.md")`
        // or `.iterdir()`; or `glob.glob("src/**/*.py")`.
        let mut k = from;
        if ident(toks.get(k)) == Some("pathlib") && is(toks.get(k + 1), ".") {
            k += 2;
        }
        let literal = |k: usize| match toks.get(k) {
            Some(Tok::Str { text, known: true }) => Some(text.clone()),
            _ => None,
        };
        match toks.get(k) {
            Some(Tok::Ident(w)) if w == "Path" && is(toks.get(k + 1), "(") => {
                let base = literal(k + 2)?;
                if !is(toks.get(k + 3), ")") || !is(toks.get(k + 4), ".") {
                    return None;
                }
                let Some(Tok::Ident(method)) = toks.get(k + 5) else {
                    return None;
                };
                let pattern = match method.as_str() {
                    "rglob" => format!("**/{}", literal(k + 7)?),
                    "glob" => literal(k + 7)?,
                    "iterdir" => "*".to_owned(),
                    _ => return None,
                };
                below_a_folder(&join(vec![Val::Str(base), Val::Str(pattern)]))
            }
            Some(Tok::Ident(w)) if w == "glob" => {
                let k = if is(toks.get(k + 1), ".") { k + 2 } else { k };
                if !matches!(ident(toks.get(k)), Some("glob" | "iglob")) {
                    return None;
                }
                below_a_folder(&Val::Str(literal(k + 2)?))
            }
            _ => None,
        }
    }

    /// An interpolating string at token `k` whose every placeholder is a plain name with
    /// a known string value (`f"{n}.txt"`, `` `${n}.json` ``), filled in.
    fn interpolated(&self, text: &str, k: usize) -> Option<Val> {
        let open = match self.lang {
            Language::Python => "{",
            Language::Js => "${",
            Language::Ruby => "#{",
            _ => return None,
        };
        // Text the lexer could not read (`\N{…}`) stays unknown, as does a string
        // without a placeholder.
        if text.contains('\u{fffd}') || !text.contains(open) {
            return None;
        }
        // Every spelling the values make (a loop's names each), at most 16.
        let mut outs: Vec<String> = vec![String::new()];
        let mut rest = text;
        let mut left = 16;
        while let Some(at) = rest.find(open) {
            left -= 1;
            if left == 0 {
                return None;
            }
            for out in &mut outs {
                out.push_str(&rest[..at]);
            }
            let after = &rest[at + open.len()..];
            let end = after.find('}')?;
            let name = after[..end].trim();
            if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return None;
            }
            let values: Vec<String> = match self
                .vars
                .get(name)
                .cloned()
                .or_else(|| self.loop_over_literals(name, k))
            {
                Some(Val::Str(v)) => vec![v],
                Some(Val::OneOf(choices)) => choices,
                _ => return None,
            };
            if outs.len() * values.len() > 16 {
                return None;
            }
            outs = outs
                .iter()
                .flat_map(|o| values.iter().map(move |v| format!("{o}{v}")))
                .collect();
            rest = &after[end + 1..];
        }
        for out in &mut outs {
            out.push_str(rest);
        }
        Some(if outs.len() == 1 {
            Val::Str(outs.remove(0))
        } else {
            Val::OneOf(outs)
        })
    }

    /// `for n in ("a", "b"):` (`for (const n of ["a", "b"])`) before token `i`: `n` is
    /// one of the strings (or numbers) the code lists, each judged in turn where the name
    /// is used; tuples unpacked (`for name, part in (("train", a), ("val", b))`) give the
    /// name's place in each; a comprehension's loop stands after the name.
    fn loop_over_literals(&self, word: &str, i: usize) -> Option<Val> {
        let toks = self.toks;
        // Where the loop's targets start, for a `for` before the name or, in a
        // comprehension (`[os.remove(f) for f in (…)]`), after it in the same bracket.
        let heads = |k: usize| -> Option<(usize, usize)> {
            if ident(toks.get(k)) != Some("for") {
                return None;
            }
            if is(toks.get(k + 1), "(")
                && matches!(ident(toks.get(k + 2)), Some("const" | "let" | "var"))
                && ident(toks.get(k + 3)) == Some(word)
                && ident(toks.get(k + 4)) == Some("of")
            {
                return Some((usize::MAX, k + 5));
            }
            // `for a, b in`, `for (a, b) in`: which of the targets the name is.
            let mut j = k + 1;
            if is(toks.get(j), "(") {
                j += 1;
            }
            let mut position = None;
            let mut n = 0;
            while let Some(Tok::Ident(t)) = toks.get(j) {
                if t == word {
                    position = Some(n);
                }
                n += 1;
                j += 1;
                if is(toks.get(j), ")") {
                    j += 1;
                }
                if !is(toks.get(j), ",") {
                    break;
                }
                j += 1;
                if n > 8 {
                    return None;
                }
            }
            (ident(toks.get(j)) == Some("in") && n > 0)
                .then_some(())
                .and(position)
                .map(|p| (if n == 1 { usize::MAX } else { p }, j + 1))
        };
        let before = (i.saturating_sub(2048)..i).rev().find_map(heads);
        let inside = || self.in_enclosing_brackets(i, heads);
        let (position, from) = before.or_else(inside)?;
        let open = is(toks.get(from), "(") || is(toks.get(from), "[");
        if !open {
            return None;
        }
        let close = *self.close.get(from)?;
        if close == usize::MAX || close <= from + 1 {
            return None;
        }
        let known = |k: usize| match toks.get(k) {
            Some(Tok::Str { text, known: true } | Tok::Num(text)) => Some(text.as_str()),
            _ => None,
        };
        let mut items: Vec<&str> = Vec::new();
        let mut k = from + 1;
        while k < close {
            if position == usize::MAX {
                items.push(known(k)?);
                k += 1;
            } else {
                // A tuple: its element at the name's place.
                if !is(toks.get(k), "(") && !is(toks.get(k), "[") {
                    return None;
                }
                let end = *self.close.get(k)?;
                if end == usize::MAX || end >= close {
                    return None;
                }
                let mut element = 0;
                let mut depth = 0usize;
                let mut found = None;
                for m in k + 1..end {
                    match toks.get(m) {
                        Some(Tok::Punct("(" | "[" | "{")) => depth += 1,
                        Some(Tok::Punct(")" | "]" | "}")) => depth = depth.saturating_sub(1),
                        Some(Tok::Punct(",")) if depth == 0 => element += 1,
                        _ if depth == 0 && element == position && found.is_none() => {
                            found = Some(m);
                        }
                        _ => {}
                    }
                }
                let at = found?;
                let next_is_end = matches!(toks.get(at + 1), Some(Tok::Punct("," | ")" | "]")));
                if !next_is_end {
                    return None;
                }
                items.push(known(at)?);
                k = end + 1;
            }
            match toks.get(k) {
                Some(Tok::Punct(",")) => k += 1,
                _ if k >= close => {}
                _ => return None,
            }
            if items.len() > 64 {
                return None;
            }
        }
        match items.as_slice() {
            [] => None,
            [one] => Some(Val::Str((*one).to_owned())),
            // Each of them, judged in turn where the name is used.
            many => Some(Val::OneOf(many.iter().map(|t| (*t).to_owned()).collect())),
        }
    }

    /// What `found` finds after token `i` in the brackets around it, innermost first, a
    /// few levels out: a comprehension's `for` after the expression that uses its name.
    fn in_enclosing_brackets<T>(&self, i: usize, found: impl Fn(usize) -> Option<T>) -> Option<T> {
        let mut levels = 0;
        for open in (i.saturating_sub(512)..i).rev() {
            let Some(&close) = self.close.get(open) else {
                continue;
            };
            if close == usize::MAX || close <= i {
                continue;
            }
            if let Some(hit) = (i + 1..close.min(i + 512)).find_map(&found) {
                return Some(hit);
            }
            levels += 1;
            if levels >= 4 {
                break;
            }
        }
        None
    }

    /// `(base / "x").write_text(…)`, `(p).unlink()`: a path method called on what a
    /// bracket computes, at the `)` at `i`.
    fn bracketed_receiver(&mut self, i: usize) {
        let toks = self.toks;
        let Some(Tok::Ident(method)) = toks.get(i + 2) else {
            return;
        };
        if !is(toks.get(i + 1), ".")
            || !is(toks.get(i + 3), "(")
            || !RECEIVER_METHODS.iter().any(|(r, _)| r == method)
        {
            return;
        }
        let Some(open) = (0..i)
            .rev()
            .take(4096)
            .find(|&k| self.close.get(k) == Some(&i))
        else {
            return;
        };
        // A call's brackets (`Path(x).unlink()`) are read with the call's chain.
        if matches!(
            open.checked_sub(1).and_then(|k| toks.get(k)),
            Some(Tok::Ident(_))
        ) || self.lang != Language::Python
        {
            return;
        }
        let first = match toks.get(open + 1) {
            Some(Tok::Ident(w)) => w.as_str(),
            _ => "",
        };
        let base = if TEST_TEMP_NAMES.contains(&first) && !self.vars.contains_key(first) {
            Val::Str(temp_folder())
        } else {
            self.value(open + 1, i)
        };
        let receiver = match base {
            Val::Str(s) => Val::Str(s),
            Val::OneOf(paths) => Val::OneOf(paths),
            _ => Val::Unknown,
        };
        let f = member_of(receiver, method);
        let (args, _) = self.args_at(i + 3);
        self.call(&f, &args);
    }

    /// `import x as y`, `from m import a as b`, `import cp from 'child_process'`.
    fn imports(&mut self, i: usize, word: &str) {
        let toks = self.toks;
        let at = |k: usize| ident(toks.get(k));
        match word {
            "import" if self.lang == Language::Python => {
                let mut k = i + 1;
                let mut module = String::new();
                while let Some(w) = at(k) {
                    module.push_str(w);
                    if is(toks.get(k + 1), ".") {
                        module.push('.');
                        k += 2;
                    } else {
                        break;
                    }
                }
                if at(k + 1) == Some("as")
                    && let Some(alias) = at(k + 2)
                {
                    self.vars.insert(alias.to_owned(), Val::Name(module));
                }
            }
            "from" if self.lang == Language::Python => {
                let mut k = i + 1;
                let mut module = String::new();
                while let Some(w) = at(k) {
                    if w == "import" {
                        break;
                    }
                    module.push_str(w);
                    k += 1;
                    if is(toks.get(k), ".") {
                        module.push('.');
                        k += 1;
                    }
                }
                if at(k) != Some("import") {
                    return;
                }
                k += 1;
                if is(toks.get(k), "(") {
                    k += 1;
                }
                while let Some(name) = at(k) {
                    let (alias, next) = if at(k + 1) == Some("as") {
                        (at(k + 2).unwrap_or(name), k + 3)
                    } else {
                        (name, k + 1)
                    };
                    self.vars
                        .insert(alias.to_owned(), Val::Func(module.clone(), name.to_owned()));
                    if !is(toks.get(next), ",") {
                        break;
                    }
                    k = next + 1;
                }
            }
            "import" if self.lang == Language::Js => {
                // `import cp from 'm'`, `import * as cp from 'm'`, `import {a as b} from 'm'`.
                let end = (i + 1..toks.len().min(i + 64))
                    .find(|&k| at(k) == Some("from"))
                    .unwrap_or(i);
                let Some(Tok::Str { text: module, .. }) = toks.get(end + 1) else {
                    return;
                };
                let module = strip_node(module).to_owned();
                let mut k = i + 1;
                while k < end {
                    if let Some(name) = at(k) {
                        if at(k + 1) == Some("as") {
                            if let Some(alias) = at(k + 2) {
                                self.vars.insert(
                                    alias.to_owned(),
                                    Val::Func(module.clone(), name.to_owned()),
                                );
                            }
                            k += 3;
                            continue;
                        }
                        if name != "as" {
                            let braced = (i + 1..k).any(|j| is(toks.get(j), "{"));
                            let v = if braced {
                                Val::Func(module.clone(), name.to_owned())
                            } else {
                                Val::Name(module.clone())
                            };
                            self.vars.insert(name.to_owned(), v);
                        }
                    } else if is(toks.get(k), "*") && at(k + 1) == Some("as") {
                        if let Some(alias) = at(k + 2) {
                            self.vars
                                .insert(alias.to_owned(), Val::Name(module.clone()));
                        }
                        k += 3;
                        continue;
                    }
                    k += 1;
                }
            }
            _ => {}
        }
    }

    /// `name = value`: remembers what the value is when it is known. Also
    /// `const {a, b} = require('m')`.
    fn assignment(&mut self, at: usize) {
        let toks = self.toks;
        let Some(mut name) = ident(toks.get(at)) else {
            return;
        };
        let mut k = at;
        if matches!(name, "const" | "let" | "var" | "my" | "our" | "local") {
            k += 1;
            if is(toks.get(k), "{") {
                let close = self.close[k];
                if is(toks.get(close + 1), "=") {
                    let rhs = self.value(close + 2, self.statement_end(close + 2));
                    if let Val::Name(module) = rhs {
                        // `{a, b: c}`: `a` and `c` name the module's `a` and `b`.
                        let inner = toks.get(k + 1..close).unwrap_or(&[]);
                        let mut j = 0;
                        while j < inner.len() {
                            if let Tok::Ident(n) = &inner[j] {
                                let alias = match (inner.get(j + 1), inner.get(j + 2)) {
                                    (Some(Tok::Punct(":")), Some(Tok::Ident(a))) => {
                                        j += 2;
                                        a.clone()
                                    }
                                    _ => n.clone(),
                                };
                                self.vars
                                    .insert(alias, Val::Func(module.clone(), n.clone()));
                            }
                            j += 1;
                        }
                    }
                }
                return;
            }
            match ident(toks.get(k)) {
                Some(n) => name = n,
                None => return,
            }
        }
        // `src, dst = Path(a), Path(b)`, `a, b = (x, y)`: each name its own value.
        if self.lang == Language::Python
            && is(toks.get(k + 1), ",")
            && !is_member_op(k.checked_sub(1).and_then(|p| toks.get(p)))
            && !matches!(
                k.checked_sub(1).and_then(|p| toks.get(p)),
                Some(Tok::Punct(","))
            )
        {
            let mut names = vec![name.to_owned()];
            let mut j = k + 1;
            while is(toks.get(j), ",") {
                match ident(toks.get(j + 1)) {
                    Some(n) if names.len() < 16 => names.push(n.to_owned()),
                    _ => return,
                }
                j += 2;
            }
            if !is(toks.get(j), "=") || is(toks.get(j + 1), "=") {
                return;
            }
            let start = j + 1;
            let end = self.statement_end(start);
            let parts = self.split(start, end);
            let values: Vec<Val> = if parts.len() == names.len() {
                parts.iter().map(|&(a, b)| self.value(a, b)).collect()
            } else {
                match self.value(start, end) {
                    Val::List(items) if items.len() == names.len() => items,
                    _ => vec![Val::Unknown; names.len()],
                }
            };
            for (n, v) in names.into_iter().zip(values) {
                self.vars.insert(n, v);
            }
            return;
        }
        if !(is(toks.get(k + 1), "=") || is(toks.get(k + 1), "<-")) {
            return;
        }
        // The last name of `a, b = …` was bound with the others.
        if self.lang == Language::Python
            && matches!(
                k.checked_sub(1).and_then(|p| toks.get(p)),
                Some(Tok::Punct(","))
            )
            && !is(toks.get(k + 2), "=")
        {
            let mut p = k;
            while p >= 2 && is(toks.get(p - 1), ",") && ident(toks.get(p - 2)).is_some() {
                p -= 2;
            }
            let starts_statement = p == 0
                || matches!(toks.get(p - 1), Some(Tok::End | Tok::Punct(";")))
                || ident(toks.get(p - 1)) == Some("for");
            if starts_statement {
                return;
            }
        }
        let start = k + 2;
        let mut end = self.statement_end(start);
        // `fs = require('fs'), p = …` (the rest of a declaration list): this name's
        // value ends at the comma before the next `name =`.
        if let [first, second, ..] = self.split(start, end).as_slice()
            && ident(toks.get(second.0)).is_some()
            && is(toks.get(second.0 + 1), "=")
        {
            end = first.1;
        }
        let rhs = self.value(start, end);
        self.vars.insert(name.to_owned(), rhs);
    }

    /// Where the statement starting at `from` ends: `;`, a line end, an unmatched close.
    fn statement_end(&self, from: usize) -> usize {
        let toks = self.toks;
        let mut k = from;
        while k < toks.len() {
            match &toks[k] {
                Tok::End | Tok::Punct(")" | "]" | "}") => return k,
                Tok::Punct("(" | "[" | "{") => k = self.close[k],
                Tok::Ident(w) if k > from && STATEMENT_WORDS.contains(&w.as_str()) => return k,
                _ => {}
            }
            k += 1;
        }
        toks.len()
    }

    /// The arguments of a call whose bracket is at `open`: (argument ranges, index after).
    fn args_at(&self, open: usize) -> (Vec<(usize, usize)>, usize) {
        let close = self.close[open].min(self.toks.len());
        (self.split(open + 1, close), close + 1)
    }

    /// Splits `from..to` at top-level commas (and `=>` in Perl lists).
    fn split(&self, from: usize, to: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = from;
        let mut k = from;
        while k < to && out.len() < 64 {
            match &self.toks[k] {
                Tok::Punct("(" | "[" | "{") => k = self.close[k],
                Tok::Punct(",") => {
                    out.push((start, k));
                    start = k + 1;
                }
                Tok::Punct("=>") if self.lang == Language::Perl => {
                    out.push((start, k));
                    start = k + 1;
                }
                _ => {}
            }
            k += 1;
        }
        if start < to {
            out.push((start, to));
        }
        out
    }

    /// Follows a chain `a.b(…).c[…](…)` starting at `i`, judging every call in it.
    fn chain(&mut self, i: usize) {
        let toks = self.toks;
        let Some(first) = ident(toks.get(i)) else {
            return;
        };
        let mut cur = self
            .vars
            .get(first)
            .cloned()
            .unwrap_or_else(|| self.unassigned(first, i));
        // PHP's `$f(…)` calls the function a variable names.
        if self.lang == Language::Php && first.starts_with('$') && is(toks.get(i + 1), "(") {
            cur = if let Val::Str(name) = cur {
                Val::Func(String::new(), name)
            } else {
                self.push(Effect::Unknown(
                    "calls a function whose name the code computes".into(),
                ));
                return;
            };
        }
        let mut k = i + 1;
        let mut steps = 0;
        loop {
            steps += 1;
            if steps > 32 {
                return;
            }
            match toks.get(k) {
                Some(Tok::Punct("." | "::" | "->" | ":"))
                    if self.lang == Language::Lua || !is(toks.get(k), ":") =>
                {
                    if is(toks.get(k), ":") && self.lang != Language::Lua {
                        return;
                    }
                    match toks.get(k + 1) {
                        Some(Tok::Ident(name)) => {
                            cur = member_of(cur, name);
                            k += 2;
                        }
                        // `obj.(…)`, `$obj->{key}`.
                        _ => return,
                    }
                }
                Some(Tok::Punct("[")) if !matches!(cur, Val::Unknown) => {
                    let close = self.close[k];
                    let key = self.value(k + 1, close);
                    cur = match key {
                        Val::Str(name) => member_of(cur, &name),
                        _ => match &cur {
                            Val::Name(m) if module_of_power(m) => {
                                self.push(Effect::Unknown(format!(
                                    "picks a function of `{m}` by a computed name"
                                )));
                                Val::Unknown
                            }
                            _ => Val::Unknown,
                        },
                    };
                    k = close + 1;
                }
                Some(Tok::Punct("{"))
                    if self.lang == Language::Perl && matches!(cur, Val::Name(_)) =>
                {
                    // `$ENV{HOME}`.
                    let close = self.close[k];
                    let key = match toks.get(k + 1) {
                        Some(Tok::Ident(w)) if close == k + 2 => Val::Str(w.clone()),
                        _ => self.value(k + 1, close),
                    };
                    cur = match key {
                        Val::Str(name) => member_of(cur, &name),
                        _ => Val::Unknown,
                    };
                    k = close + 1;
                }
                Some(Tok::Punct("(")) => {
                    let (args, next) = self.args_at(k);
                    cur = self.call(&cur, &args);
                    k = next;
                }
                // Template tag: `` $`rm -rf x` ``.
                Some(Tok::Str { .. })
                    if self.lang == Language::Js
                        && matches!(&cur, Val::Name(n) if last(n) == "$") =>
                {
                    cur = self.call(&cur, &[(k, k + 1)]);
                    k += 1;
                }
                // A call without brackets: `system "ls"`, `unlink glob "~/*"`.
                Some(t) if bare_calls(self.lang) && starts_value(t) && self.is_capability(&cur) => {
                    let end = self.statement_end(k);
                    let args = self.split(k, end);
                    cur = self.call(&cur, &args);
                    k = end;
                }
                _ => {
                    self.handed_on(&cur, i, k, false);
                    return;
                }
            }
        }
    }

    /// A function that deletes or runs commands named without being called: handed to
    /// other code (`map(os.remove, paths)`, `each(&File.method(:delete))`), or, in Perl,
    /// called on `$_` (`unlink for glob "/srv/*"`). Whatever it is called on is not on
    /// the line.
    /// PHP names the function by a string (`array_map('unlink', …)`): `by_string`.
    fn handed_on(&mut self, cur: &Val, i: usize, k: usize, by_string: bool) {
        let toks = self.toks;
        let Val::Name(n) = cur else { return };
        let (qual, name) = n.rsplit_once('.').unwrap_or(("", n.as_str()));
        let Some(cap) = self.lookup(qual, name) else {
            return;
        };
        let before = i.checked_sub(1).and_then(|b| toks.get(b));
        // `map(shutil.copy, …)`, `Thread(target=shutil.copy)`, `setTimeout(fs.copyFileSync,
        // 0, …)`, `f = fs.copyFileSync`: any power of the table, handed on as a value.
        let argument = (!qual.is_empty() || by_string)
            && matches!(before, Some(Tok::Punct("(" | "," | "=" | ":" | "[")))
            && matches!(
                toks.get(k),
                Some(Tok::Punct(")" | "," | "]" | "}" | ";") | Tok::End) | None
            );
        let on_topic = self.lang == Language::Perl
            && qual.is_empty()
            && (matches!(toks.get(k), Some(Tok::End | Tok::Punct("}")) | None)
                || matches!(
                    ident(toks.get(k)),
                    Some("for" | "foreach" | "if" | "unless")
                ));
        if !(argument || on_topic) {
            return;
        }
        // `map(os.remove, glob("*.pyc"))`, `unlink for glob "tmp/*"`: the paths it is
        // handed, when the statement spells them out, are judged as deleted.
        // Only a pattern handed to a glob (`glob("*.pyc")`, `glob "tmp/*"`, `Dir["x"]`).
        let statement: Vec<&Tok> = toks
            .iter()
            .skip(k)
            .take_while(|t| !matches!(t, Tok::End))
            .take(32)
            .collect();
        let mut spelled: Vec<String> = Vec::new();
        for (j, t) in statement.iter().enumerate() {
            let Tok::Str { text, known: true } = t else {
                continue;
            };
            let globbed = statement[j.saturating_sub(2)..j]
                .iter()
                .any(|b| matches!(b, Tok::Ident(w) if last(w).ends_with("glob") || w == "Dir"));
            if globbed {
                spelled.push(text.clone());
            }
        }
        let deletes = matches!(cap, Cap::Tree(_) | Cap::Entry(_) | Cap::MaybeTree);
        if deletes && !spelled.is_empty() {
            for path in spelled {
                let junk =
                    crate::domain::guard::targets::junk(path.rsplit('/').next().unwrap_or(&path))
                        || crate::domain::guard::targets::remade(&path);
                if !junk {
                    self.target(Val::Str(path), Some(matches!(cap, Cap::Tree(_))));
                }
            }
            return;
        }
        self.push(Effect::Unknown(format!(
            "hands `{n}` to other code, which calls it on paths or commands nagger cannot see"
        )));
    }

    fn is_capability(&self, cur: &Val) -> bool {
        let (qual, name) = match cur {
            Val::Name(n) => match n.rsplit_once('.') {
                Some((q, f)) => (q, f),
                None => ("", n.as_str()),
            },
            Val::Func(q, f) => (q.as_str(), f.as_str()),
            _ => return false,
        };
        self.lookup(qual, name).is_some()
            || (bare_calls(self.lang) && matches!(name, "eval" | "glob") && qual.is_empty())
            || DISPATCH.iter().any(|(d, _)| *d == name)
    }

    fn lookup(&self, qual: &str, name: &str) -> Option<Cap> {
        let qual = self.resolve_qual(qual);
        let qual = strip_node(&qual);
        let mut fallback = None;
        for entry in TABLE
            .iter()
            .filter(|e| e.name == name && applies(e, self.lang))
        {
            if entry.quals.is_empty() {
                fallback = Some(entry.cap);
                continue;
            }
            let q_last = last(qual);
            if entry.quals.contains(&qual) || (!qual.is_empty() && entry.quals.contains(&q_last)) {
                return Some(entry.cap);
            }
            // `from subprocess import run; run(…)`, `use File::Path; rmtree(…)`.
            if qual.is_empty()
                && (entry.quals.contains(&"")
                    || entry
                        .quals
                        .iter()
                        .any(|q| !q.is_empty() && self.mentioned.contains(q)))
            {
                return Some(entry.cap);
            }
        }
        fallback
    }

    fn resolve_qual(&self, qual: &str) -> String {
        let head = qual.split('.').next().unwrap_or(qual);
        match self.vars.get(head) {
            Some(Val::Name(m)) => format!("{m}{}", &qual[head.len()..]),
            Some(Val::Func(q, f)) => format!("{q}.{f}{}", &qual[head.len()..]),
            _ => qual.to_owned(),
        }
    }

    /// Calls `callee` with the arguments at `args`: judges it, and tells what it returns.
    fn call(&mut self, callee: &Val, args: &[(usize, usize)]) -> Val {
        let whole = |n: &str| TABLE.iter().any(|e| e.name == n) || PATH_BUILDERS.contains(&n);
        let (qual, name) = match callee {
            // R's names hold dots: `file.remove`, `path.expand`.
            Val::Name(n) if self.lang == Language::R && whole(n) => (String::new(), n.clone()),
            Val::Name(n) => match n.rsplit_once('.') {
                Some((q, f)) => (q.to_owned(), f.to_owned()),
                None => (String::new(), n.clone()),
            },
            Val::Func(q, f) => (q.clone(), f.clone()),
            Val::Str(_) | Val::List(_) | Val::OneOf(_) | Val::Unknown => return Val::Unknown,
        };
        let (args, kw) = self.keywords(args);
        if UNPACK_METHODS.contains(&name.as_str())
            && (qual.starts_with(['\u{0}', '\u{1}']) || !module_of_power(&qual))
        {
            self.push(Effect::Writes(None));
            return Val::Unknown;
        }
        if qual == "\u{1}" {
            let tree = RECEIVER_METHODS
                .iter()
                .find(|(m, _)| *m == name)
                .and_then(|(_, t)| *t);
            self.target(Val::Unknown, tree);
            return Val::Unknown;
        }
        // A method of a path the code names: `Path('/x').unlink()`.
        if let Some(path) = qual.strip_prefix('\u{0}') {
            let receiver = if path.contains('\u{2}') {
                Val::OneOf(path.split('\u{2}').map(str::to_owned).collect())
            } else {
                Val::Str(path.to_owned())
            };
            if let Some((_, tree)) = RECEIVER_METHODS.iter().find(|(m, _)| *m == name) {
                self.target(receiver.clone(), *tree);
            }
            if PATH_BUILDERS.contains(&name.as_str()) {
                let mut parts = vec![receiver];
                parts.extend(args.iter().map(|&(a, b)| self.value(a, b)));
                return join(parts);
            }
            return Val::Unknown;
        }
        if let Some(&(_, at)) = DISPATCH.iter().find(|(d, _)| *d == name) {
            return self.dispatch(&qual, &name, &args, at);
        }
        if let Some(cap) = self.lookup(&qual, &name) {
            self.judge(cap, &qual, &name, &args, &kw);
            return Val::Unknown;
        }
        // Perl's `do FILE` runs the file; `do { … }` is a block.
        let perl_do = name == "do" && self.lang == Language::Perl && qual.is_empty();
        if perl_do {
            if let Some(Val::Str(file)) = args.first().map(|&(a, b)| self.value(a, b)) {
                self.push(Effect::Unknown(format!(
                    "runs the code of the file `{file}` (`do`), which is not read here"
                )));
            }
            return Val::Unknown;
        }
        if LOADERS.contains(&name.as_str()) && qual.is_empty() || name == "import_module" {
            // A path written out in Python or JavaScript is followed where the command
            // runs (`node -e "require('./lib/add')"` reads `lib/add.js`); one the code
            // computes is not.
            let followed = args.first().is_some_and(|&(a, b)| {
                b == a + 1 && matches!(self.toks.get(a), Some(Tok::Str { known: true, .. }))
            });
            return match args.first().map(|&(a, b)| self.value(a, b)) {
                // `require(process.cwd() + '/o.txt')`, `require "/tmp/x.pl"`, `dofile(f)`:
                // code loaded from a file by its path, not a module (JSON only reads).
                // Named outright in Perl, Ruby or Lua: judged as the interpreter run on
                // the file (Python's and JavaScript's are followed as modules).
                Some(Val::Str(m))
                    if followed
                        && (loads_a_file(&m) || name == "dofile")
                        && matches!(self.lang, Language::Perl | Language::Ruby | Language::Lua) =>
                {
                    self.runs_file(&m);
                    Val::Unknown
                }
                Some(Val::Str(m)) if !followed && (loads_a_file(&m) || name == "dofile") => {
                    self.push(Effect::Unknown(format!(
                        "loads code from the file `{m}` (`{name}`), which is not read here"
                    )));
                    Val::Unknown
                }
                // `import('fs').then(f => f.rmSync(…))`: a module of power loaded as the
                // code runs, used through names its callbacks give it.
                Some(Val::Str(m))
                    if name == "import" && self.lang == Language::Js && module_of_power(&m) =>
                {
                    self.push(Effect::Unknown(format!(
                        "loads `{m}` as it runs (`import()`), whose use cannot be followed"
                    )));
                    Val::Name(strip_node(&m).to_owned())
                }
                Some(Val::Str(m)) => Val::Name(strip_node(&m).to_owned()),
                Some(_) if self.lang != Language::Lua || name != "dofile" => {
                    self.push(Effect::Unknown(format!(
                        "loads a module whose name the code computes (`{name}`)"
                    )));
                    Val::Unknown
                }
                _ => Val::Unknown,
            };
        }
        if let Some((_, tree)) = RECEIVER_METHODS.iter().find(|(m, _)| *m == name)
            && !qual.is_empty()
            && !module_of_power(&qual)
        {
            // `p.unlink()` on a path the code computes.
            let receiver = self
                .vars
                .get(qual.as_str())
                .cloned()
                .unwrap_or(Val::Unknown);
            self.target(receiver, *tree);
            return Val::Unknown;
        }
        self.builder(&qual, &name, &args, &kw)
    }

    /// What a call that is no capability returns: paths, home, the environment.
    fn builder(
        &mut self,
        qual: &str,
        name: &str,
        args: &[(usize, usize)],
        kw: &[(String, (usize, usize))],
    ) -> Val {
        let ql = last(qual);
        if HOME_NAMES.contains(&name) {
            return Val::Str("~".into());
        }
        if CWD_NAMES.contains(&name) {
            return Val::Str(".".into());
        }
        // The system's temporary folder, and a new folder made in it (`tempfile.
        // gettempdir()`, `tempfile.mkdtemp()`, `os.tmpdir()`, `Dir.mktmpdir`): scratch
        // space, no file of nagger's.
        if TEMP_NAMES.contains(&name) {
            return Val::Str(temp_folder());
        }
        if ENV_NAMES.contains(&name) || ENV_NAMES.contains(&ql) && matches!(name, "get" | "fetch") {
            return match args.first().map(|&(a, b)| self.value(a, b)) {
                Some(Val::Str(k)) => env_value(&k),
                _ => Val::Unknown,
            };
        }
        if matches!(name, "c" | "list" | "array" | "Array") {
            return Val::List(args.iter().map(|&(a, b)| self.value(a, b)).collect());
        }
        if matches!(name, "parse" | "str2lang" | "str2expression") && self.lang == Language::R {
            let text = kw.iter().find(|(k, _)| k == "text").map(|(_, r)| *r);
            return match text.or(args.first().copied()) {
                Some((a, b)) => self.value(a, b),
                None => Val::Unknown,
            };
        }
        if qual.is_empty() && matches!(name, "join" | "implode") {
            // Perl's and PHP's `join(SEP, LIST)` and Tcl's `join LIST SEP` join strings,
            // not paths; a language not known may mean either.
            let parts: Vec<Val> = args.iter().map(|&(a, b)| self.value(a, b)).collect();
            match self.lang {
                Language::Perl | Language::Php => return string_join(parts, true),
                Language::Tcl => return string_join(parts, false),
                Language::Generic => return Val::Unknown,
                _ => {}
            }
        }
        if PATH_BUILDERS.contains(&name) || (name == "path" && ql == "file") {
            if name == "Path" && args.is_empty() {
                return Val::Str(".".into());
            }
            let parts: Vec<Val> = args.iter().map(|&(a, b)| self.value(a, b)).collect();
            return join(parts);
        }
        Val::Unknown
    }

    /// Splits keyword arguments (`shell=True`, `recursive = TRUE`, `exception: true`)
    /// from positional ones.
    fn keywords(&self, args: &[(usize, usize)]) -> (Vec<(usize, usize)>, Keywords) {
        let mut pos = Vec::new();
        let mut kw = Vec::new();
        for &(a, b) in args {
            if let Some(Tok::Ident(k)) = self.toks.get(a)
                && b > a + 1
                && matches!(self.toks.get(a + 1), Some(Tok::Punct("=" | ":" | "=>")))
            {
                kw.push((k.clone(), (a + 2, b)));
            } else if a < b {
                pos.push((a, b));
            }
        }
        (pos, kw)
    }

    fn dispatch(&mut self, qual: &str, name: &str, args: &[(usize, usize)], at: usize) -> Val {
        let pick = args.get(at).map(|&(a, b)| self.value(a, b));
        let Some(Val::Str(picked)) = pick else {
            if name == "get" && self.lang != Language::R {
                return Val::Unknown;
            }
            if name == "method" && args.is_empty() {
                return Val::Unknown;
            }
            self.push(Effect::Unknown(format!(
                "calls a function whose name the code computes (`{name}`)"
            )));
            return Val::Unknown;
        };
        let owner = match (name, at) {
            ("getattr" | "rawget", _) => match args.first().map(|&(a, b)| self.value(a, b)) {
                Some(Val::Name(m)) => m,
                Some(Val::Func(q, f)) => format!("{q}.{f}"),
                _ => String::new(),
            },
            _ => qual.to_owned(),
        };
        let owner = if matches!(
            name,
            "call_user_func" | "call_user_func_array" | "do.call" | "match.fun" | "get"
        ) {
            String::new()
        } else {
            owner
        };
        let func = Val::Func(owner, picked);
        match name {
            // These call at once, with the rest of the arguments.
            "send" | "public_send" | "__send__" | "call_user_func" => {
                let rest = args.get(1..).unwrap_or(&[]).to_vec();
                self.call(&func, &rest)
            }
            "call_user_func_array" | "do.call" => {
                let rest: Vec<(usize, usize)> = match args.get(1) {
                    Some(&(a, b)) if b > a + 1 => {
                        let (open, close) = match (&self.toks[a], self.toks.get(a + 1)) {
                            (Tok::Punct("[" | "("), _) => (a, self.close[a]),
                            (Tok::Ident(_), Some(Tok::Punct("("))) => (a + 1, self.close[a + 1]),
                            _ => (a, a),
                        };
                        if close > open {
                            self.split(open + 1, close.min(b))
                        } else {
                            Vec::new()
                        }
                    }
                    _ => Vec::new(),
                };
                self.call(&func, &rest)
            }
            _ => {
                let (q, f) = match &func {
                    Val::Func(q, f) => (q.clone(), f.clone()),
                    _ => unreachable!(),
                };
                if self.lookup(&q, &f).is_some() {
                    func
                } else {
                    Val::Name(if q.is_empty() { f } else { format!("{q}.{f}") })
                }
            }
        }
    }

    /// The value of the expression `from..to`.
    pub(super) fn value(&mut self, from: usize, to: usize) -> Val {
        if self.nest > 32 {
            return Val::Unknown;
        }
        self.nest += 1;
        let v = self.value_inner(from, to);
        self.nest -= 1;
        v
    }

    fn value_inner(&mut self, from: usize, to: usize) -> Val {
        let toks = self.toks;
        let to = to.min(toks.len());
        if from >= to {
            return Val::Unknown;
        }
        let mut parts: Vec<Val> = Vec::new();
        let mut joiner = "";
        let mut k = from;
        let mut first = true;
        while k < to {
            if matches!(toks[k], Tok::End) {
                k += 1;
                continue;
            }
            if !first {
                match &toks[k] {
                    // awk joins strings written side by side.
                    Tok::Str { .. } | Tok::Ident(_) if self.lang == Language::Awk => {
                        joiner = "";
                        k -= 1;
                    }
                    Tok::Punct("+") => joiner = "",
                    Tok::Punct(".") if matches!(self.lang, Language::Perl | Language::Php) => {
                        joiner = "";
                    }
                    Tok::Punct("..") if self.lang == Language::Lua => joiner = "",
                    Tok::Punct("&") if self.lang == Language::AppleScript => joiner = "",
                    Tok::Punct("/")
                        if matches!(self.lang, Language::Python | Language::Generic) =>
                    {
                        joiner = "/";
                    }
                    _ => return Val::Unknown,
                }
                k += 1;
                if k >= to {
                    // An operator with nothing after it (`'a' /` cut short).
                    return Val::Unknown;
                }
            }
            first = false;
            let (v, next) = self.operand(k, to);
            if joiner == "/" {
                parts.push(Val::Str("/".into()));
            }
            parts.push(v);
            k = next;
        }
        if parts.len() == 1 {
            return parts.pop().unwrap_or(Val::Unknown);
        }
        each_spelling(parts, |texts| {
            let mut s = String::new();
            for t in texts {
                if s.ends_with('/') && t == "/" {
                    continue;
                }
                s.push_str(&t);
            }
            Some(s)
        })
    }

    fn operand(&mut self, k: usize, to: usize) -> (Val, usize) {
        let toks = self.toks;
        match &toks[k] {
            Tok::Str { text, known } => {
                let v = if *known {
                    Val::Str(text.clone())
                } else {
                    self.interpolated(text, k).unwrap_or(Val::Unknown)
                };
                (v, k + 1)
            }
            Tok::Num(n) => (Val::Str(n.clone()), k + 1),
            Tok::Punct("[" | "(") => {
                let close = self.close[k].min(to);
                let items: Vec<Val> = self
                    .split(k + 1, close)
                    .into_iter()
                    .map(|(a, b)| self.value(a, b))
                    .collect();
                let v = if is(toks.get(k), "(") && items.len() == 1 && self.lang != Language::Perl {
                    items.into_iter().next().unwrap_or(Val::Unknown)
                } else {
                    Val::List(items)
                };
                (v, close + 1)
            }
            Tok::Ident(word) => {
                // A chain: evaluate it without judging (it was judged where it starts).
                let end = self.chain_end(k, to);
                (self.chain_value(k, end, word), end)
            }
            _ => (Val::Unknown, to),
        }
    }

    /// Where the chain starting at `k` ends.
    fn chain_end(&self, k: usize, to: usize) -> usize {
        let toks = self.toks;
        let mut j = k + 1;
        while j < to {
            match &toks[j] {
                Tok::Punct("." | "::" | "->")
                    if !matches!(self.lang, Language::Perl | Language::Php)
                        || !is(toks.get(j), ".") =>
                {
                    j += 2;
                }
                Tok::Punct("(" | "[") => j = self.close[j] + 1,
                Tok::Punct("{") if self.lang == Language::Perl => j = self.close[j] + 1,
                Tok::Str { .. }
                    if bare_calls(self.lang)
                        && matches!(ident(toks.get(j - 1)), Some("glob" | "expand_path")) =>
                {
                    j += 1;
                }
                _ => break,
            }
        }
        j.min(to)
    }

    fn chain_value(&mut self, k: usize, end: usize, word: &str) -> Val {
        let toks = self.toks;
        let mut cur = match word {
            "True" | "False" | "None" | "true" | "false" | "nil" | "null" | "undefined"
            | "TRUE" | "FALSE" => {
                return Val::Unknown;
            }
            _ => self.vars.get(word).cloned().unwrap_or_else(|| {
                if self.lang == Language::Python && TEST_TEMP_NAMES.contains(&word) {
                    Val::Str(temp_folder())
                } else if let Some(each) = self.loop_over_literals(word, k) {
                    each
                } else if let Some(found) = (self.lang == Language::Python)
                    .then(|| self.loop_over_files(word, k))
                    .flatten()
                {
                    found
                } else {
                    Val::Name(word.to_owned())
                }
            }),
        };
        let mut j = k + 1;
        let saved = self.out.len();
        while j < end {
            match &toks[j] {
                Tok::Punct("." | "::" | "->") => {
                    if let Some(Tok::Ident(n)) = toks.get(j + 1) {
                        cur = member_of(cur, n);
                    }
                    j += 2;
                }
                Tok::Punct("(") => {
                    let (args, next) = self.args_at(j);
                    cur = self.call(&cur, &args);
                    j = next;
                }
                Tok::Punct("[" | "{") => {
                    let close = self.close[j];
                    let key = match toks.get(j + 1) {
                        Some(Tok::Ident(w)) if close == j + 2 && is(toks.get(j), "{") => {
                            Val::Str(w.clone())
                        }
                        _ => self.value(j + 1, close),
                    };
                    cur = match key {
                        Val::Str(n) => member_of(cur, &n),
                        _ => Val::Unknown,
                    };
                    j = close + 1;
                }
                Tok::Str { .. } => {
                    cur = self.call(&cur, &[(j, j + 1)]);
                    j += 1;
                }
                _ => break,
            }
        }
        // Effects were already reported where the chain itself was scanned.
        self.out.truncate(saved);
        match cur {
            Val::Name(n) if n == "__dirname" => Val::Str(".".into()),
            Val::Name(n) if last(&n) == "HOME" => Val::Str("~".into()),
            Val::Func(q, s) if q.starts_with('\u{0}') => {
                let _ = s;
                Val::Unknown
            }
            other => other,
        }
    }

    /// Judges a call of a capability.
    fn judge(
        &mut self,
        cap: Cap,
        qual: &str,
        name: &str,
        args: &[(usize, usize)],
        kw: &[(String, (usize, usize))],
    ) {
        let vals: Vec<Val> = args.iter().map(|&(a, b)| self.value(a, b)).collect();
        let what = if qual.is_empty() {
            format!("`{name}`")
        } else {
            format!("`{}.{name}`", strip_node(qual))
        };
        match cap {
            Cap::Shell | Cap::ShellAfter(_) => {
                let skip = if let Cap::ShellAfter(n) = cap { n } else { 0 };
                let vals = vals.get(skip..).unwrap_or(&[]);
                let several = matches!(self.lang, Language::Perl | Language::Ruby);
                // Ruby's `system({"X" => "1"}, "ls")`: an environment first.
                let vals: Vec<Val> = vals
                    .iter()
                    .skip_while(|v| several && matches!(v, Val::Unknown) && vals.len() > 1)
                    .cloned()
                    .collect();
                let line = match vals.as_slice() {
                    [] => return,
                    [Val::Str(s)] => Some(s.clone()),
                    // One of several command lines (built from a loop's names): each.
                    [Val::OneOf(lines)] => Some(lines.join("\n")),
                    [Val::List(l)] => words(l),
                    [first, ..] if !several => match first {
                        Val::Str(s) => Some(s.clone()),
                        Val::List(l) => words(l),
                        _ => None,
                    },
                    all => words(all),
                };
                self.command(line, &what);
            }
            Cap::Argv => {
                let line = match (vals.first(), vals.get(1)) {
                    (Some(Val::List(l)), _) => words(l),
                    // The program as written (a command line in PHP's `proc_open`), then its
                    // arguments word by word.
                    (Some(Val::Str(s)), Some(Val::List(l))) => match words(l) {
                        Some(rest) => Some(format!("{s} {rest}")),
                        None if l.is_empty() => Some(s.clone()),
                        None => None,
                    },
                    (Some(Val::Str(s)), Some(Val::Unknown)) => {
                        // `new Deno.Command("rm", {args: […]})`: the list in the options.
                        match self.object_list(args.get(1), &["args", "cmd"]) {
                            Some(l) => {
                                let mut all = vec![Val::Str(s.clone())];
                                all.extend(l);
                                words(&all)
                            }
                            None => None,
                        }
                    }
                    (Some(Val::Str(s)), _) => Some(s.clone()),
                    (Some(Val::Unknown), _) => self
                        .object_list(args.first(), &["cmd", "args"])
                        .and_then(|l| words(&l)),
                    _ => kw
                        .iter()
                        .find(|(k, _)| k == "args")
                        .and_then(|(_, (a, b))| match self.value(*a, *b) {
                            Val::List(l) => words(&l),
                            Val::Str(s) => Some(s),
                            _ => None,
                        }),
                };
                self.command(line, &what);
            }
            Cap::ExecL(at) => {
                let at = if at == usize::MAX { 0 } else { at };
                let mut all = vec![vals.get(at).cloned().unwrap_or(Val::Unknown)];
                let skip = if matches!(cap, Cap::ExecL(usize::MAX)) {
                    1
                } else {
                    2
                };
                all.extend(vals.iter().skip(at + skip).cloned());
                self.command(words(&all), &what);
            }
            Cap::ExecV(at) => {
                let prog = vals.get(at).cloned().unwrap_or(Val::Unknown);
                let line = match (prog, vals.get(at + 1)) {
                    (Val::List(l), _) => words(&l),
                    (p, Some(Val::List(l))) => {
                        let mut all = vec![p];
                        // os.execv's list starts with argv[0]; R's system2 and pcntl_exec's do not.
                        let skip = usize::from(self.lang == Language::Python);
                        all.extend(l.iter().skip(skip).cloned());
                        words(&all)
                    }
                    (p, None) => {
                        let extra = kw
                            .iter()
                            .find(|(k, _)| k == "args")
                            .map(|(_, (a, b))| self.value(*a, *b));
                        match extra {
                            Some(Val::List(l)) => {
                                let mut all = vec![p];
                                all.extend(l);
                                words(&all)
                            }
                            Some(Val::Str(s)) => {
                                words(&[p, Val::Str(s)]).map(|w| w.replace('\'', ""))
                            }
                            Some(_) => None,
                            None => words(&[p]),
                        }
                    }
                    (p, Some(Val::Str(s))) => words(&[p]).map(|w| format!("{w} {s}")),
                    _ => None,
                };
                self.command(line, &what);
            }
            Cap::Tree(at) | Cap::Entry(at) => {
                let tree = matches!(cap, Cap::Tree(_));
                // Options (`{force: true}`) name no path.
                let paths: Vec<Val> = vals
                    .into_iter()
                    .zip(args)
                    .skip(at)
                    .filter(|(_, (a, _))| !is(self.toks.get(*a), "{"))
                    .map(|(v, _)| v)
                    .collect();
                for v in paths {
                    self.target(v, Some(tree));
                }
            }
            Cap::MaybeTree => {
                let recursive = args
                    .iter()
                    .flat_map(|&(a, b)| self.toks[a..b].iter())
                    .chain(kw.iter().flat_map(|(k, _)| std::iter::once(k)).map(|_| &Tok::End))
                    .any(|t| matches!(t, Tok::Ident(w) | Tok::Str { text: w, .. } if w == "recursive"))
                    || kw.iter().any(|(k, _)| k == "recursive");
                self.target(
                    vals.into_iter().next().unwrap_or(Val::Unknown),
                    Some(recursive),
                );
            }
            Cap::Write(positions) => {
                for &p in positions {
                    if let Some(v) = vals.get(p) {
                        self.write(v.clone());
                    } else if let Some((_, (a, b))) = kw
                        .iter()
                        .find(|(k, _)| matches!(k.as_str(), "con" | "file" | "dst" | "path"))
                    {
                        let v = self.value(*a, *b);
                        self.write(v);
                    }
                }
            }
            Cap::Open => self.open(&vals, kw),
            Cap::Eval => {
                if args
                    .first()
                    .is_some_and(|&(a, _)| is(self.toks.get(a), "{"))
                {
                    return; // Perl's `eval { … }` is a block.
                }
                let code = if name == "Function" {
                    vals.last()
                } else {
                    vals.first()
                };
                match code {
                    None => {}
                    Some(Val::Str(code)) => {
                        let code = code.clone();
                        let nested = (self.nested)(&code, self.lang, self.depth + 1);
                        for e in nested {
                            self.push(e);
                        }
                    }
                    Some(_) => self.push(Effect::Unknown(format!(
                        "runs code it builds at run time ({what})"
                    ))),
                }
            }
            Cap::Opaque(why) => self.push(Effect::Unknown(format!("{why} ({what})"))),
            Cap::Unpack => self.push(Effect::Writes(None)),
        }
    }

    fn command(&mut self, line: Option<String>, what: &str) {
        if line.as_deref().is_some_and(reads_commands) {
            self.push(Effect::Unknown(format!(
                "feeds commands it writes to a shell or interpreter ({what})"
            )));
        }
        match line {
            Some(l) if !l.trim().is_empty() => self.push(Effect::Shell(l)),
            Some(_) => {}
            None => self.push(Effect::Unknown(format!(
                "runs a command the code computes ({what})"
            ))),
        }
    }

    /// `{args: […]}` in the options at `arg`.
    fn object_list(&mut self, arg: Option<&(usize, usize)>, keys: &[&str]) -> Option<Vec<Val>> {
        let &(a, b) = arg?;
        if !is(self.toks.get(a), "{") {
            return None;
        }
        let close = self.close[a].min(b);
        for (x, y) in self.split(a + 1, close) {
            let key = match self.toks.get(x) {
                Some(Tok::Ident(k) | Tok::Str { text: k, .. }) => k.clone(),
                _ => continue,
            };
            if keys.contains(&key.as_str())
                && is(self.toks.get(x + 1), ":")
                && let Val::List(l) = self.value(x + 2, y)
            {
                return Some(l);
            }
        }
        None
    }

    /// A path deleted: whole trees when `tree`, else entries (globs count as trees).
    fn target(&mut self, v: Val, tree: Option<bool>) {
        match v {
            Val::Str(path) => {
                if let Some(tree) = tree {
                    let reach = if tree || path.contains('*') {
                        Reach::Tree
                    } else {
                        Reach::Entry
                    };
                    if let Some(what) = dangerous_target(&path, reach) {
                        self.push(Effect::Deletes(format!("deletes {what}")));
                    }
                    if let Some(removal) = super::model::removal_away(&path, reach == Reach::Tree) {
                        self.push(removal);
                    }
                }
                self.push(Effect::Writes(Some(path)));
            }
            Val::List(items) => {
                for item in items {
                    self.target(item, tree);
                }
            }
            Val::OneOf(paths) => {
                for path in paths {
                    self.target(Val::Str(path), tree);
                }
            }
            _ => self.push(Effect::Writes(None)),
        }
    }

    fn write(&mut self, v: Val) {
        self.target(v, None);
    }

    fn open(&mut self, vals: &[Val], kw: &[(String, (usize, usize))]) {
        let s = |v: Option<&Val>| match v {
            Some(Val::Str(s)) => Some(s.clone()),
            _ => None,
        };
        if matches!(
            self.lang,
            Language::Perl | Language::Ruby | Language::Generic
        ) {
            // Pipes: `open(FH, "|cmd")`, `open("|cmd")`, `open(FH, "-|", "cmd", …)`.
            for (k, v) in vals.iter().enumerate() {
                let Val::Str(text) = v else { continue };
                let t = text.trim();
                if t == "-|" || t == "|-" {
                    let rest = vals.get(k + 1..).unwrap_or(&[]);
                    let line = if rest.len() == 1 {
                        s(rest.first())
                    } else {
                        words(rest)
                    };
                    self.command(line, "`open`");
                    return;
                }
                if let Some(cmd) = t.strip_prefix('|').or_else(|| t.strip_suffix('|')) {
                    self.push(Effect::Shell(cmd.trim().to_owned()));
                    return;
                }
            }
        }
        if self.lang == Language::Perl {
            let mode = s(vals.get(1));
            match (mode, vals.get(2)) {
                (Some(m), Some(path)) if m.trim_start().starts_with(['>', '+']) => {
                    self.write(path.clone());
                }
                (Some(m), None) if m.trim_start().starts_with(['>', '+']) => {
                    self.write(Val::Str(m.trim_start_matches(['>', '+', ' ']).to_owned()));
                }
                (None, _) if vals.len() >= 2 && !matches!(vals.get(1), Some(Val::Str(_))) => {
                    self.push(Effect::Writes(None));
                }
                _ => {}
            }
            return;
        }
        let mode = kw
            .iter()
            .find(|(k, _)| matches!(k.as_str(), "mode" | "flags"))
            .map(|(_, (a, b))| self.value(*a, *b));
        let mode = match mode {
            Some(Val::Str(m)) => Some(m),
            Some(_) => return self.write(vals.first().cloned().unwrap_or(Val::Unknown)),
            None => s(vals.get(1)),
        };
        // `tarfile.open(p, "w:gz")`, `"w|bz2"`: the mode before its compression.
        let mode = mode.map(|m| m.split([':', '|']).next().unwrap_or_default().to_owned());
        if let Some(m) = mode
            && m.len() <= 4
            && m.chars().all(|c| "rwaxbtU+".contains(c))
            && m.contains(['w', 'a', 'x', '+'])
        {
            self.write(vals.first().cloned().unwrap_or(Val::Unknown));
        }
        // A mode or flags the code computes (`os.O_WRONLY | os.O_CREAT`): written, to
        // the path it names.
        if matches!(vals.get(1), Some(Val::Unknown)) && self.lang == Language::Python {
            self.write(vals.first().cloned().unwrap_or(Val::Unknown));
        }
    }
}

/// Whether a command line is a shell or interpreter reading its program from its input
/// (`sh`, `bash -s`, `python3 -`), so what the code writes to it runs.
/// Whether a loader's argument is a file's path rather than a module's name (`./o.txt`,
/// `/tmp/x.pl`, `lib/x.rb`), leaving JSON out: `require('./package.json')` only reads.
fn loads_a_file(name: &str) -> bool {
    let pathlike = name.starts_with(['.', '/', '~']) || name.contains('/') && name.contains('.');
    let scoped_package = name.starts_with('@');
    let json = std::path::Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    pathlike && !scoped_package && !json && !name.starts_with("node:")
}

pub(super) fn reads_commands(line: &str) -> bool {
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    let name = first.rsplit('/').next().unwrap_or(first);
    let name = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    matches!(
        name,
        "sh" | "bash"
            | "zsh"
            | "dash"
            | "ksh"
            | "fish"
            | "python"
            | "perl"
            | "ruby"
            | "node"
            | "php"
            | "lua"
            | "tclsh"
            | "osascript"
    ) && words.all(|w| matches!(w, "-" | "-s" | "-i" | "-x" | "-e" | "-u"))
}

fn starts_value(t: &Tok) -> bool {
    match t {
        Tok::Str { .. } | Tok::Cmd { .. } | Tok::Num(_) => true,
        Tok::Ident(w) => {
            !STATEMENT_WORDS.contains(&w.as_str())
                && !matches!(w.as_str(), "x" | "eq" | "ne" | "lt" | "gt")
        }
        Tok::Punct("(" | "[") => false,
        _ => false,
    }
}

/// The value of the environment variable `key` as a path: `HOME` is `~`.
fn env_value(key: &str) -> Val {
    match key {
        "HOME" | "USERPROFILE" => Val::Str("~".into()),
        "PWD" => Val::Str(".".into()),
        _ => Val::Unknown,
    }
}

/// A pattern of paths (`src/**/*.py`) as a value, when what it may match lies below a
/// named folder of the project: a pattern from the project's root, a hidden folder, a
/// parent, the home or an absolute path may match nagger's own files, so it is none.
fn below_a_folder(pattern: &Val) -> Option<Val> {
    let Val::Str(pattern) = pattern else {
        return None;
    };
    let first = pattern.split('/').next().unwrap_or("");
    let named = !first.is_empty()
        && !first.starts_with(['.', '~', '$'])
        && !first.contains(['*', '?', '[', '{'])
        && pattern.contains('/');
    named.then(|| Val::Str(pattern.clone()))
}

/// The temporary folders test runners hand a test (pytest's fixtures).
const TEST_TEMP_NAMES: &[&str] = &["tmp_path", "tmpdir", "tmp_path_factory", "tmpdir_factory"];

/// Calls that stand for the temporary folder or a new folder made in it.
const TEMP_NAMES: &[&str] = &[
    "gettempdir",
    "mkdtemp",
    "tmpdir",
    "mktmpdir",
    "TemporaryDirectory",
    "tempdir",
    "temp_dir",
];

/// The temporary folder as a path: `$TMPDIR` when it is one, else `/tmp`, with a name
/// of its own in it (`mkdtemp` makes a new folder there).
fn temp_folder() -> String {
    let base = std::env::var("TMPDIR")
        .ok()
        .filter(|t| t.starts_with('/'))
        .unwrap_or_else(|| "/tmp".into());
    format!("{}/nagger-scratch", base.trim_end_matches('/'))
}

/// Joins path pieces the way `os.path.join` does; unknown when any piece is.
fn join(parts: Vec<Val>) -> Val {
    each_spelling(parts, |texts| {
        let mut out = String::new();
        for s in texts {
            if s.starts_with('/') {
                out = s;
            } else if out.is_empty() || out.ends_with('/') {
                out.push_str(&s);
            } else {
                out.push('/');
                out.push_str(&s);
            }
        }
        (!out.is_empty()).then_some(out)
    })
}

/// `combine` over every spelling of `parts`: a part that is one of several strings (a
/// loop's names) gives one spelling each, at most 16 in all; unknown when a part is.
fn each_spelling(parts: Vec<Val>, combine: impl Fn(Vec<String>) -> Option<String>) -> Val {
    let mut spellings: Vec<Vec<String>> = vec![Vec::new()];
    for p in parts {
        let choices: Vec<String> = match p {
            Val::Str(s) => vec![s],
            Val::OneOf(choices) if !choices.is_empty() => choices,
            _ => return Val::Unknown,
        };
        if spellings.len() * choices.len() > 16 {
            return Val::Unknown;
        }
        spellings = spellings
            .into_iter()
            .flat_map(|s| {
                choices.iter().map(move |c| {
                    let mut next = s.clone();
                    next.push(c.clone());
                    next
                })
            })
            .collect();
    }
    let mut out: Vec<String> = Vec::new();
    for spelling in spellings {
        match combine(spelling) {
            Some(s) => out.push(s),
            None => return Val::Unknown,
        }
    }
    if out.len() == 1 {
        out.pop().map_or(Val::Unknown, Val::Str)
    } else {
        Val::OneOf(out)
    }
}

/// Joins strings with a separator: given first (`join(SEP, LIST)`) or last
/// (`join LIST SEP`, a space when left out); unknown when any piece is.
fn string_join(parts: Vec<Val>, separator_first: bool) -> Val {
    let mut parts = parts;
    let sep = if separator_first {
        if parts.is_empty() {
            return Val::Unknown;
        }
        parts.remove(0)
    } else if parts.len() > 1 {
        parts.pop().unwrap_or(Val::Unknown)
    } else {
        Val::Str(" ".into())
    };
    let Val::Str(sep) = sep else {
        return Val::Unknown;
    };
    let mut pieces = Vec::new();
    for p in parts {
        match p {
            Val::Str(s) => pieces.push(s),
            Val::List(items) => {
                for i in items {
                    let Val::Str(s) = i else {
                        return Val::Unknown;
                    };
                    pieces.push(s);
                }
            }
            _ => return Val::Unknown,
        }
    }
    Val::Str(pieces.join(&sep))
}

/// A shell command line running the words of an argument list; `None` when any is unknown.
fn words(items: &[Val]) -> Option<String> {
    // Each word's choices: one, or several for a name a loop lists (a list inside the
    // list of words), or none known.
    let mut slots: Vec<Vec<Option<String>>> = Vec::new();
    for v in items {
        match v {
            Val::Str(s) => slots.push(vec![Some(s.clone())]),
            Val::List(l) => {
                for i in l {
                    match i {
                        Val::Str(s) => slots.push(vec![Some(s.clone())]),
                        Val::OneOf(choices) if !choices.is_empty() => {
                            slots.push(choices.iter().cloned().map(Some).collect());
                        }
                        _ => slots.push(vec![None]),
                    }
                }
            }
            Val::OneOf(choices) if !choices.is_empty() => {
                slots.push(choices.iter().cloned().map(Some).collect());
            }
            _ => slots.push(vec![None]),
        }
    }
    if slots.is_empty() {
        return None;
    }
    let mut lines: Vec<Vec<Option<String>>> = vec![Vec::new()];
    for slot in slots {
        if lines.len() * slot.len() > 8 {
            return None;
        }
        lines = lines
            .into_iter()
            .flat_map(|line| {
                slot.iter().map(move |w| {
                    let mut next = line.clone();
                    next.push(w.clone());
                    next
                })
            })
            .collect();
    }
    let lines: Option<Vec<String>> = lines.into_iter().map(one_line).collect();
    Some(lines?.join("\n"))
}

/// One command line of words, some of them unknown (see [`words`]).
fn one_line(out: Vec<Option<String>>) -> Option<String> {
    if out.iter().all(Option::is_some) {
        let known: Vec<String> = out.into_iter().flatten().collect();
        return Some(quote_words(&known));
    }
    // `['python3', 'train.py', '--seed', str(seed)]`: a script named outright, run by an
    // interpreter, with arguments the code computes. The script is read as it would be
    // on a command line, the arguments standing as values only known as it runs.
    let interpreter = out.first().and_then(Option::as_deref).is_some_and(|p| {
        let name = p.rsplit('/').next().unwrap_or(p);
        name.starts_with("python")
            || matches!(
                name,
                "node" | "ruby" | "perl" | "php" | "bash" | "sh" | "Rscript"
            )
    });
    let script = out
        .get(1)
        .and_then(Option::as_deref)
        .is_some_and(|s| !s.starts_with('-') && std::path::Path::new(s).extension().is_some());
    if !interpreter || !script {
        return None;
    }
    let line: Vec<String> = out
        .into_iter()
        .map(|w| match w {
            Some(w) => quote_words(&[w]),
            None => format!("\"${COMPUTED_ARGUMENT}\""),
        })
        .collect();
    Some(format!(
        "{COMPUTED_ARGUMENT}=$(computed-by-the-code); {}",
        line.join(" ")
    ))
}

/// The variable an argument the code computes stands as, in a command line the code runs.
const COMPUTED_ARGUMENT: &str = "NAGGER_COMPUTED_ARGUMENT";

fn module_of_power(m: &str) -> bool {
    let m = strip_node(m);
    [
        "child_process",
        "os",
        "subprocess",
        "shutil",
        "fs",
        "Kernel",
        "_G",
        "globalThis",
    ]
    .contains(&m)
        || [
            "globals",
            "locals",
            "vars",
            "__builtins__",
            "__dict__",
            "builtins",
        ]
        .contains(&last(m))
}

/// `cur.name`.
fn member_of(cur: Val, name: &str) -> Val {
    match cur {
        Val::Name(m) => {
            let lm = last(&m);
            let variable = name
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
            if (ENV_NAMES.contains(&lm) || lm == "env") && variable {
                return env_value(name);
            }
            if matches!(
                lm,
                "globals" | "locals" | "vars" | "__builtins__" | "builtins" | "__dict__" | "_G"
            ) {
                return Val::Name(name.to_owned());
            }
            if HOME_NAMES.contains(&name) && matches!(lm, "Dir" | "Path" | "Pathname") {
                return Val::Str("~".into());
            }
            if name == "pwd" && lm == "Dir" {
                return Val::Str(".".into());
            }
            Val::Name(format!("{m}.{name}"))
        }
        Val::Str(s) if matches!(name, "parent" | "name" | "stem" | "suffix") => {
            let _ = s;
            Val::Unknown
        }
        Val::Str(s) => Val::Func(format!("\u{0}{s}"), name.to_owned()),
        // One of several paths (a loop's names): each, kept apart by `\u{2}`.
        Val::OneOf(paths)
            if (RECEIVER_METHODS.iter().any(|(m, _)| *m == name)
                || PATH_BUILDERS.contains(&name))
                && !paths.is_empty()
                && paths.len() <= 16 =>
        {
            Val::Func(format!("\u{0}{}", paths.join("\u{2}")), name.to_owned())
        }
        Val::Func(q, f) => Val::Name(format!("{q}.{f}.{name}")),
        // `Path(sys.argv[1]).write_text(…)`: a path the code computes.
        _ if RECEIVER_METHODS.iter().any(|(m, _)| *m == name) => {
            Val::Func("\u{1}".into(), name.to_owned())
        }
        _ => Val::Unknown,
    }
}
