//! Command languages: Tcl and expect, debugger command lines (gdb, lldb), Vim's ex
//! commands, sed scripts, AppleScript's `do shell script`, and awk's pipes.

use super::lexer::{Tok, lex};
use super::model::{Effect, Language, MAX_DEPTH, MAX_EFFECTS, Nested, quote_words};
use crate::domain::guard::targets::{Reach, dangerous_target};

/// Most commands looked at in one script.
const MAX_COMMANDS: usize = 512;

/// A word of a Tcl command: its text, and whether substitutions make it unknown.
struct Word {
    text: String,
    known: bool,
    braced: bool,
}

/// Splits a Tcl script into commands of words; `[…]` substitutions are collected too.
fn tcl_commands(code: &str, nested: &mut Vec<String>) -> Vec<Vec<Word>> {
    let b = code.as_bytes();
    let mut out: Vec<Vec<Word>> = Vec::new();
    let mut cur: Vec<Word> = Vec::new();
    let mut i = 0;
    while i < b.len() && out.len() < MAX_COMMANDS {
        let c = b[i];
        if c == b'\n' || c == b';' {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() || (c == b'\\' && b.get(i + 1) == Some(&b'\n')) {
            i += if c == b'\\' { 2 } else { 1 };
            continue;
        }
        if c == b'#' && cur.is_empty() {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        let start = i;
        let (text, known, braced) = if c == b'{' {
            let end = balanced(b, i, b'{', b'}');
            (slice(code, i + 1, end), true, true)
        } else if c == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                if b[j] == b'\\' {
                    j += 1;
                } else if b[j] == b'[' {
                    let end = balanced(b, j, b'[', b']');
                    nested.push(slice(code, j + 1, end));
                    j = end;
                }
                j += 1;
            }
            let text = slice(code, i + 1, j);
            let known = !text.contains('$') && !text.contains('[');
            (unescape(&text), known, false)
        } else {
            let mut j = i;
            while j < b.len() && !b[j].is_ascii_whitespace() && b[j] != b';' {
                if b[j] == b'[' {
                    let end = balanced(b, j, b'[', b']');
                    nested.push(slice(code, j + 1, end));
                    j = end;
                } else if b[j] == b'\\' {
                    j += 1;
                }
                j += 1;
            }
            let text = slice(code, i, j.min(b.len()));
            let known = !text.contains('$') && !text.contains('[');
            (unescape(&text), known, false)
        };
        i = if c == b'{' {
            balanced(b, start, b'{', b'}') + 1
        } else if c == b'"' {
            let mut j = start + 1;
            while j < b.len() && b[j] != b'"' {
                if b[j] == b'\\' {
                    j += 1;
                } else if b[j] == b'[' {
                    j = balanced(b, j, b'[', b']');
                }
                j += 1;
            }
            j + 1
        } else {
            let mut j = start;
            while j < b.len() && !b[j].is_ascii_whitespace() && b[j] != b';' {
                if b[j] == b'[' {
                    j = balanced(b, j, b'[', b']');
                } else if b[j] == b'\\' {
                    j += 1;
                }
                j += 1;
            }
            j
        }
        .max(start + 1);
        cur.push(Word {
            text,
            known,
            braced,
        });
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn unescape(s: &str) -> String {
    s.replace("\\r", "\n")
        .replace("\\n", "\n")
        .replace("\\\"", "\"")
}

/// The index of the bracket closing the one at `at` (or the end).
fn balanced(b: &[u8], at: usize, open: u8, close: u8) -> usize {
    let mut depth = 0usize;
    let mut i = at;
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] == open {
            depth += 1;
        } else if b[i] == close {
            depth -= 1;
            if depth == 0 {
                return i;
            }
        }
        i += 1;
    }
    b.len()
}

fn slice(code: &str, from: usize, to: usize) -> String {
    let to = to.min(code.len());
    let from = from.min(to);
    code.get(from..to).unwrap_or("").to_owned()
}

fn words_line(words: &[Word]) -> Option<String> {
    if words.iter().any(|w| !w.known) {
        return None;
    }
    let texts: Vec<String> = words.iter().map(|w| w.text.clone()).collect();
    Some(quote_words(&texts))
}

/// [`command`], for where a local of that name hides it.
fn command_of(out: &mut Vec<Effect>, line: Option<String>, what: &str) {
    command(out, line, what);
}

fn command(out: &mut Vec<Effect>, line: Option<String>, what: &str) {
    if line.as_deref().is_some_and(super::analyze::reads_commands) {
        out.push(Effect::Unknown(format!(
            "feeds commands it writes to a shell or interpreter ({what})"
        )));
    }
    match line {
        Some(l) if !l.trim().is_empty() => out.push(Effect::Shell(l)),
        Some(_) => {}
        None => out.push(Effect::Unknown(format!(
            "runs a command the code computes ({what})"
        ))),
    }
}

fn delete(out: &mut Vec<Effect>, path: &str, tree: bool) {
    let reach = if tree || path.contains('*') {
        Reach::Tree
    } else {
        Reach::Entry
    };
    if let Some(what) = dangerous_target(path, reach) {
        out.push(Effect::Deletes(format!("deletes {what}")));
    }
    out.extend(super::model::removal_away(path, tree));
    out.push(Effect::Writes(Some(path.to_owned())));
}

/// Tcl and expect.
pub(super) fn tcl(code: &str, depth: usize, nested: Nested) -> Vec<Effect> {
    let mut substituted = Vec::new();
    let commands = tcl_commands(code, &mut substituted);
    let mut out = Vec::new();
    let mut shell_spawned = false;
    for words in &commands {
        if out.len() >= MAX_EFFECTS {
            break;
        }
        let Some(first) = words.first() else { continue };
        let args = &words[1..];
        match first.text.as_str() {
            "exec" => {
                let rest: Vec<&Word> = args
                    .iter()
                    .skip_while(|w| w.text.starts_with('-') && w.text != "--")
                    .skip_while(|w| w.text == "--")
                    .filter(|w| w.text != "&")
                    .collect();
                let owned: Vec<Word> = rest
                    .iter()
                    .map(|w| Word {
                        text: w.text.clone(),
                        known: w.known,
                        braced: w.braced,
                    })
                    .collect();
                command(&mut out, words_line(&owned), "`exec`");
            }
            "spawn" => {
                let rest: Vec<Word> = args
                    .iter()
                    .skip_while(|w| w.text.starts_with('-'))
                    .map(|w| Word {
                        text: w.text.clone(),
                        known: w.known,
                        braced: w.braced,
                    })
                    .collect();
                if let Some(prog) = rest.first() {
                    let name = prog.text.rsplit('/').next().unwrap_or("");
                    shell_spawned |=
                        matches!(name, "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish");
                }
                command(&mut out, words_line(&rest), "`spawn`");
            }
            "system" => {
                let line = args.iter().all(|w| w.known).then(|| {
                    args.iter()
                        .map(|w| w.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                });
                command(&mut out, line, "`system`");
            }
            "send" | "exp_send" if shell_spawned => {
                if let Some(w) = args.iter().rfind(|w| !w.text.starts_with('-')) {
                    let line = w.known.then(|| w.text.trim().to_owned());
                    command(&mut out, line, "`send` to a shell");
                }
            }
            "open" => {
                if let Some(w) = args.first() {
                    if let Some(cmd) = w.text.strip_prefix('|') {
                        command(&mut out, w.known.then(|| cmd.to_owned()), "`open |`");
                    } else if args.get(1).is_some_and(|m| {
                        m.text.contains(['w', 'a'])
                            || m.text.contains("WRONLY")
                            || m.text.contains("CREAT")
                    }) {
                        out.push(Effect::Writes(w.known.then(|| w.text.clone())));
                    }
                }
            }
            "file" => {
                let sub = args.first().map_or("", |w| w.text.as_str());
                let rest = args.get(1..).unwrap_or(&[]);
                let force = rest.iter().any(|w| w.text == "-force");
                let paths = rest.iter().filter(|w| !w.text.starts_with('-'));
                match sub {
                    "delete" => {
                        for p in paths {
                            if p.known {
                                delete(&mut out, &p.text, force);
                            } else {
                                out.push(Effect::Writes(None));
                            }
                        }
                    }
                    "rename" | "copy" | "link" | "mkdir" | "attributes" => {
                        for p in paths {
                            out.push(Effect::Writes(p.known.then(|| p.text.clone())));
                        }
                    }
                    _ => {}
                }
            }
            "eval" | "uplevel" | "subst" | "interp" | "namespace"
                if args.iter().any(|w| !w.known) =>
            {
                out.push(Effect::Unknown(format!(
                    "runs code it builds at run time (`{}`)",
                    first.text
                )));
            }
            "eval" | "uplevel" => {
                let script: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
                out.extend(nested(&script.join(" "), Language::Tcl, depth + 1));
            }
            "load" => out.push(Effect::Unknown("loads native code (`load`)".into())),
            // Named outright, the file is judged as `tclsh FILE`.
            "source" => match args.first() {
                Some(w) if w.known && !w.braced => out.push(Effect::Shell(format!(
                    "tclsh {}",
                    quote_words(std::slice::from_ref(&w.text))
                ))),
                _ => out.push(Effect::Unknown(
                    "runs the Tcl code of a file whose name it computes (`source`)".into(),
                )),
            },
            _ if !first.known => out.push(Effect::Unknown(
                "calls a command whose name the code computes".into(),
            )),
            _ => {}
        }
        // Bodies of `if`, `proc`, `foreach`, `expect { … }`: scripts of their own.
        for w in args.iter().filter(|w| w.braced && w.text.len() > 1) {
            out.extend(nested(&w.text, Language::Tcl, depth + 1));
        }
    }
    for piece in substituted.iter().take(32) {
        out.extend(nested(piece, Language::Tcl, depth + 1));
    }
    out
}

/// gdb and lldb command lines.
pub(super) fn debugger(code: &str, depth: usize, nested: Nested) -> Vec<Effect> {
    let mut out = Vec::new();
    let mut lines = code.lines().take(MAX_COMMANDS);
    while let Some(line) = lines.next() {
        let line = line.trim();
        let (head, rest) = match line.split_once(char::is_whitespace) {
            Some((h, r)) => (h, r.trim()),
            None => (line, ""),
        };
        if let Some(cmd) = line.strip_prefix('!') {
            command(&mut out, Some(cmd.trim().to_owned()), "`!`");
            continue;
        }
        match head {
            "shell" | "she" => command(&mut out, Some(rest.to_owned()), "`shell`"),
            "platform" if rest.starts_with("shell") => {
                let cmd = rest["shell".len()..].trim().trim_start_matches("--").trim();
                command(&mut out, Some(cmd.to_owned()), "`platform shell`");
            }
            "pipe" | "|" => {
                // `pipe CMD | SHELL_COMMAND`.
                let cmd = rest.split_once('|').map_or("", |(_, c)| c);
                command(&mut out, Some(cmd.trim().to_owned()), "`pipe`");
            }
            "python" | "py" | "python-interactive" | "pi" | "script" => {
                let code = if rest.is_empty() {
                    let mut block = Vec::new();
                    for l in lines.by_ref() {
                        if l.trim() == "end" {
                            break;
                        }
                        block.push(l);
                    }
                    block.join("\n")
                } else {
                    rest.to_owned()
                };
                out.extend(nested(&code, Language::Python, depth + 1));
            }
            "guile" | "gu" => out.push(Effect::Unknown("runs Guile code in the debugger".into())),
            "call" | "print" | "p" | "output" | "expr" | "expression" | "init-if-undefined" => {
                out.extend(nested(rest, Language::Generic, depth + 1));
            }
            // `set var x = f()`, `set $n = g()`: an expression, which may call code; `set
            // pagination off`, `set auto-load safe-path /`: a setting, except the files
            // logging and history write.
            "set" => {
                let words: Vec<&str> = rest.split_whitespace().collect();
                match words.as_slice() {
                    ["var" | "variable", ..] => {
                        let expr = rest.split_once(char::is_whitespace).map_or("", |(_, e)| e);
                        out.extend(nested(expr, Language::Generic, depth + 1));
                    }
                    ["logging", "file", file, ..] | ["history", "filename", file, ..] => {
                        out.push(Effect::Writes(
                            (!file.contains(['$', '`'])).then(|| (*file).to_owned()),
                        ));
                    }
                    [first, ..] if first.starts_with('$') || rest.contains('=') => {
                        out.extend(nested(rest, Language::Generic, depth + 1));
                    }
                    _ => {}
                }
            }
            // `source FILE`: a file named outright is read where the command runs; one
            // the debugger computes is not.
            "source" | "so" => {
                let file = rest
                    .split_whitespace()
                    .rfind(|w| !w.starts_with('-'))
                    .unwrap_or_default();
                if file.is_empty() || file.contains(['$', '`']) {
                    out.push(Effect::Unknown(format!(
                        "runs the debugger commands of a file it computes (`{head} {rest}`)"
                    )));
                } else {
                    // Judged as the same file given with `-x` (`-nx`: the start-up files
                    // that may source it are not read again).
                    out.push(Effect::Shell(format!(
                        "gdb -nx -batch -x {}",
                        quote_words(&[file.to_owned()])
                    )));
                }
            }
            "dump" | "append" | "restore" => out.push(Effect::Writes(None)),
            _ => {}
        }
    }
    out
}

/// Vim's ex commands (`vim -c`, `+cmd`, `ex` scripts).
pub(super) fn vim(code: &str, depth: usize, nested: Nested) -> Vec<Effect> {
    let mut out = Vec::new();
    let mut lines = code.lines().take(MAX_COMMANDS);
    while let Some(line) = lines.next() {
        if out.len() >= MAX_EFFECTS {
            break;
        }
        // A here-document of code: `py3 << EOF`.
        let trimmed = line.trim_start_matches([':', ' ', '\t']);
        let (head, rest) = split_ex(trimmed);
        if let Some(lang) = ex_language(head)
            && let Some(marker) = rest.trim().strip_prefix("<<")
        {
            let marker = marker.trim();
            let marker = if marker.is_empty() { "." } else { marker };
            let mut block = Vec::new();
            for l in lines.by_ref() {
                if l.trim() == marker {
                    break;
                }
                block.push(l);
            }
            out.extend(nested(&block.join("\n"), lang, depth + 1));
            continue;
        }
        ex_command(line, depth, nested, &mut out);
    }
    out
}

fn ex_language(head: &str) -> Option<Language> {
    Some(match head {
        "py" | "python" | "py3" | "python3" | "pyx" | "pythonx" | "pydo" | "py3do" => {
            Language::Python
        }
        "lua" | "luado" => Language::Lua,
        "perl" | "perldo" => Language::Perl,
        "ruby" | "rubydo" | "rub" => Language::Ruby,
        "tcl" | "tcldo" => Language::Tcl,
        _ => return None,
    })
}

/// The command name of an ex line and the rest.
fn split_ex(line: &str) -> (&str, &str) {
    let end = line
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(line.len());
    let (head, rest) = line.split_at(end);
    (head, rest.strip_prefix('!').unwrap_or(rest))
}

fn ex_command(line: &str, depth: usize, nested: Nested, out: &mut Vec<Effect>) {
    if depth > MAX_DEPTH {
        return;
    }
    // Ranges and modifiers: `:%`, `'<,'>`, `silent!`.
    let mut line = line.trim_start_matches([':', ' ', '\t']);
    line = line.trim_start_matches(|c: char| {
        c.is_ascii_digit()
            || matches!(
                c,
                '%' | '.' | '$' | ',' | ';' | '\'' | '<' | '>' | '+' | '-' | ' '
            )
    });
    loop {
        let (head, rest) = split_ex(line);
        if matches!(
            head,
            "sil"
                | "silent"
                | "keepalt"
                | "keepj"
                | "keepjumps"
                | "noautocmd"
                | "noa"
                | "vert"
                | "vertical"
                | "tab"
                | "topleft"
                | "botright"
                | "unsilent"
                | "lockmarks"
                | "keeppatterns"
                | "sandbox"
        ) {
            line = rest.trim_start();
        } else {
            break;
        }
    }
    if let Some(cmd) = line.strip_prefix('!') {
        command(out, Some(cmd.trim().to_owned()), "`:!`");
        return;
    }
    let (head, rest) = split_ex(line);
    let rest_t = rest.trim();
    if let Some(lang) = ex_language(head) {
        out.extend(nested(rest_t, lang, depth + 1));
        return;
    }
    match head {
        "r" | "read" | "w" | "write" | "wq" | "x" | "xit" | "up" | "update" | "sav" | "saveas"
        | "wa" | "wall" | "wqa" | "wqall" | "xa" | "xall" => {
            // `:w! file`, `:sav! file`: a bang against the command forces the write;
            // `:w !cmd` (after a space) and `:r!cmd` hand the text to a command.
            let forced = !head.starts_with('r') && rest.starts_with('!');
            let rest_t = if forced { rest[1..].trim() } else { rest_t };
            if let Some(cmd) = rest_t.strip_prefix('!').filter(|_| !forced) {
                command(out, Some(cmd.trim().to_owned()), "`:w !`");
            } else if !rest_t.is_empty() && !head.starts_with('r') {
                out.push(Effect::Writes(Some(rest_t.to_owned())));
            }
        }
        "ter" | "terminal" => command(
            out,
            Some(rest_t.trim_start_matches("++").to_owned()),
            "`:terminal`",
        ),
        "exe" | "execute" | "call" | "cal" | "echo" | "ec" | "let" | "if" | "elseif" | "while"
        | "return" => {
            let code = if head == "let" {
                rest_t.split_once('=').map_or("", |(_, v)| v)
            } else {
                rest_t
            };
            let effects = vimscript(code, depth, nested);
            if matches!(head, "exe" | "execute") {
                let lexed = lex(code, Language::Vim);
                let joined = join_strings(&lexed.toks);
                match joined {
                    Some(cmd) => ex_command(&cmd, depth + 1, nested, out),
                    None => out.push(Effect::Unknown(
                        "runs an ex command built at run time (`:execute`)".into(),
                    )),
                }
            }
            out.extend(effects);
        }
        "g" | "global" | "v" | "vglobal" => {
            let mut chars = rest.chars();
            if let Some(d) = chars.next() {
                let after = rest[d.len_utf8()..].split_once(d).map_or("", |x| x.1);
                ex_command(after, depth + 1, nested, out);
            }
        }
        "argdo" | "bufdo" | "windo" | "tabdo" | "cdo" | "ldo" | "cfdo" | "lfdo" | "folddoopen"
        | "folddoc" | "folddoclosed" | "norm" | "normal" => {
            if head.starts_with("norm") {
                if rest_t.contains(":!") || rest_t.contains("!!") {
                    out.push(Effect::Unknown(
                        "types commands into Vim (`:normal`)".into(),
                    ));
                }
            } else {
                ex_command(rest_t, depth + 1, nested, out);
            }
        }
        "s" | "substitute" if rest.contains("\\=") => {
            let expr = rest.split_once("\\=").map_or("", |(_, e)| e);
            out.extend(vimscript(expr, depth, nested));
        }
        "libcall" => out.push(Effect::Unknown("calls native code".into())),
        // `:source FILE`, `:runtime NAME`, `:pyfile F`: the commands or code of a file.
        "so" | "sou" | "sour" | "sourc" | "source" | "ru" | "run" | "runt" | "runti" | "runtim"
        | "runtime" | "pyf" | "pyfile" | "py3f" | "py3file" | "pyxf" | "pyxfile" | "luafile"
        | "rubyf" | "rubyfile" | "perlf" | "perlfile" | "tclf" | "tclfile" => {
            // `:source notes.vim` named outright is read where the command runs; through
            // `:execute`, from the runtime path, or by an expansion (`%`, `<sfile>`,
            // `$VAR`) it is not.
            let computed = depth > 0
                || head.starts_with("ru")
                || rest_t.is_empty()
                || rest_t.contains(['%', '#', '<', '$', '`', '(', '*']);
            if computed || !matches!(head, "so" | "sou" | "sour" | "sourc" | "source") {
                out.push(Effect::Unknown(format!(
                    "runs the commands of a file it loads (`:{head} {rest_t}`)"
                )));
            } else {
                // Judged as the same file given with `-S`.
                out.push(Effect::Shell(format!(
                    "vim -es -S {}",
                    quote_words(&[rest_t.to_owned()])
                )));
            }
        }
        _ => {}
    }
}

fn join_strings(toks: &[Tok]) -> Option<String> {
    let mut s = String::new();
    for t in toks {
        match t {
            Tok::Str { text, known: true } => s.push_str(text),
            Tok::Punct("." | "..") => {}
            Tok::End => {}
            _ => return None,
        }
    }
    Some(s)
}

/// A Vim script expression: `system(…)`, `delete(…, 'rf')`, `writefile(…)`.
fn vimscript(code: &str, depth: usize, nested: Nested) -> Vec<Effect> {
    let lexed = lex(code, Language::Vim);
    let toks = &lexed.toks;
    let mut out = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        let Tok::Ident(name) = t else { continue };
        if !matches!(toks.get(k + 1), Some(Tok::Punct("("))) {
            continue;
        }
        let name = name.rsplit(':').next().unwrap_or(name);
        let args = vim_args(&toks[k + 2..]);
        let first = args.first().cloned().flatten();
        match name {
            "system" | "systemlist" | "job_start" | "jobstart" | "termopen" | "term_start" => {
                command(&mut out, first, &format!("`{name}()`"));
            }
            "delete" => match first {
                Some(p) => {
                    let flags = args.get(1).cloned().flatten().unwrap_or_default();
                    delete(&mut out, &p, flags.contains("rf") || flags == "d");
                }
                None => out.push(Effect::Writes(None)),
            },
            "writefile" | "rename" => {
                let at = usize::from(name == "writefile");
                out.push(Effect::Writes(args.get(at).cloned().flatten()));
            }
            "libcall" | "libcallnr" => out.push(Effect::Unknown("calls native code".into())),
            "execute" | "eval" => match first {
                Some(cmd) if name == "execute" => ex_command(&cmd, depth + 1, nested, &mut out),
                Some(_) => {}
                None => out.push(Effect::Unknown(format!(
                    "runs code built at run time (`{name}()`)"
                ))),
            },
            "py3eval" | "pyeval" | "pyxeval" | "luaeval" | "perleval" | "rubyeval" => match first {
                Some(c) => {
                    let lang = match name {
                        "luaeval" => Language::Lua,
                        "perleval" => Language::Perl,
                        "rubyeval" => Language::Ruby,
                        _ => Language::Python,
                    };
                    out.extend(nested(&c, lang, depth + 1));
                }
                None => out.push(Effect::Unknown(format!(
                    "runs code built at run time (`{name}()`)"
                ))),
            },
            _ => {}
        }
    }
    out
}

/// The arguments of a Vim function call whose tokens start after its `(`: each a string
/// when it is one (literals joined by `.`), else `None`.
fn vim_args(toks: &[Tok]) -> Vec<Option<String>> {
    let mut out = Vec::new();
    let mut cur: Option<String> = Some(String::new());
    let mut depth = 0usize;
    let mut any = false;
    for t in toks.iter().take(4096) {
        match t {
            Tok::Punct("(" | "[" | "{") => {
                depth += 1;
                cur = None;
            }
            Tok::Punct(")" | "]" | "}") if depth == 0 => break,
            Tok::Punct(")" | "]" | "}") => depth -= 1,
            Tok::Punct(",") if depth == 0 => {
                out.push(cur.take().filter(|_| any));
                cur = Some(String::new());
                any = false;
            }
            Tok::Str { text, known: true } if depth == 0 => {
                if let Some(c) = cur.as_mut() {
                    c.push_str(text);
                }
                any = true;
            }
            Tok::Punct("." | "..") if depth == 0 => {}
            _ if depth == 0 => cur = None,
            _ => {}
        }
    }
    out.push(cur.filter(|_| any));
    out
}

/// A sed script: GNU's `e` command and the `e` flag of `s` run shell commands.
pub(super) fn sed(code: &str) -> Vec<Effect> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut steps = 0;
    let to_eol = |i: usize| {
        b[i..]
            .iter()
            .position(|&ch| ch == b'\n')
            .map_or(b.len(), |p| i + p)
    };
    while i < b.len() && steps < 4 * MAX_COMMANDS {
        steps += 1;
        let ch = b[i];
        match ch {
            b' ' | b'\t' | b'\n' | b';' | b'{' | b'}' | b'!' | b',' | b'$' | b'+' | b'~' => i += 1,
            b'0'..=b'9' => i += 1,
            b'#' => i = to_eol(i),
            b'/' | b'\\' => {
                // An address: `/re/` or `\cREc`.
                let delim = if ch == b'\\' {
                    i += 1;
                    b.get(i).copied().unwrap_or(b'/')
                } else {
                    ch
                };
                i += 1;
                while i < b.len() && b[i] != delim {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                while i < b.len() && matches!(b[i], b'I' | b'M') {
                    i += 1;
                }
            }
            b':' | b'b' | b't' | b'T' => {
                while i < b.len() && !matches!(b[i], b'\n' | b';') {
                    i += 1;
                }
            }
            b'a' | b'i' | b'c' | b'r' | b'R' => i = to_eol(i),
            b'w' | b'W' => {
                let end = to_eol(i);
                let file = code.get(i + 1..end).unwrap_or("").trim();
                out.push(Effect::Writes(Some(file.to_owned())));
                i = end;
            }
            b'e' => {
                let end = to_eol(i);
                let cmd = code.get(i + 1..end).unwrap_or("").trim();
                let cmd = cmd.split(';').next().unwrap_or("").trim();
                if cmd.is_empty() {
                    out.push(Effect::Unknown(
                        "runs the text it edits as shell commands (sed's `e`)".into(),
                    ));
                } else {
                    out.push(Effect::Shell(cmd.to_owned()));
                }
                i = end;
            }
            b's' | b'y' => {
                let Some(&delim) = b.get(i + 1) else { break };
                let mut parts = Vec::new();
                let mut j = i + 2;
                for _ in 0..2 {
                    let start = j;
                    while j < b.len() && b[j] != delim {
                        j += if b[j] == b'\\' { 2 } else { 1 };
                    }
                    parts.push(code.get(start..j.min(b.len())).unwrap_or("").to_owned());
                    j += 1;
                }
                let flags_start = j.min(b.len());
                while j < b.len() && (b[j].is_ascii_alphanumeric()) && b[j] != b'w' {
                    j += 1;
                }
                let flags = code.get(flags_start..j.min(b.len())).unwrap_or("");
                if ch == b's' && flags.contains('e') {
                    out.push(Effect::Unknown(
                        "runs the text it edits as shell commands (sed's `s///e`)".into(),
                    ));
                    let replacement = &parts[1];
                    if !replacement.contains('&') && !replacement.contains('\\') {
                        out.push(Effect::Shell(replacement.clone()));
                    }
                }
                if b.get(j) == Some(&b'w') {
                    let end = to_eol(j);
                    let file = code.get(j + 1..end).unwrap_or("").trim();
                    out.push(Effect::Writes(Some(file.to_owned())));
                    j = end;
                }
                i = j;
            }
            _ => i += 1,
        }
    }
    out
}

/// `ed` scripts: `!cmd`, `r !cmd`, `e !cmd`, `w !cmd` run shell commands; `w FILE`, `W
/// FILE` and `wq FILE` write a file.
pub(super) fn ed(code: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for line in code.lines().take(MAX_COMMANDS) {
        let b = line.as_bytes();
        let mut i = 0;
        // The address: numbers, marks, `.`, `$`, `,`, `;`, offsets, `/re/` and `?re?`.
        while i < b.len() {
            match b[i] {
                b'0'..=b'9' | b',' | b';' | b'.' | b'$' | b'+' | b'-' | b' ' | b'\t' | b'^' => {
                    i += 1;
                }
                b'\'' => i += 2,
                d @ (b'/' | b'?') => {
                    i += 1;
                    while i < b.len() && b[i] != d {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
                _ => break,
            }
        }
        let Some(&command) = b.get(i) else { continue };
        let mut rest = line.get(i + 1..).unwrap_or("");
        if command == b'!' {
            command_of(&mut out, Some(rest.trim().to_owned()), "ed's `!`");
            continue;
        }
        if !matches!(command, b'w' | b'W' | b'r' | b'e' | b'E') {
            continue;
        }
        if command == b'w' && rest.starts_with('q') {
            rest = &rest[1..];
        }
        let rest = rest.trim();
        if let Some(cmd) = rest.strip_prefix('!') {
            // `,w !sh`: the edited text handed to the command, a script when it reads one.
            command_of(&mut out, Some(cmd.trim().to_owned()), "ed's `w !`");
        } else if matches!(command, b'w' | b'W') && !rest.is_empty() {
            out.push(Effect::Writes(Some(rest.to_owned())));
        }
    }
    out
}

/// AppleScript: `do shell script "…"`; JavaScript for Automation: `doShellScript(…)`.
pub(super) fn applescript(code: &str, depth: usize, nested: Nested) -> Vec<Effect> {
    let lexed = lex(code, Language::AppleScript);
    let toks = &lexed.toks;
    let mut out = Vec::new();
    for k in 0..toks.len() {
        let is = |j: usize, w: &str| matches!(toks.get(j), Some(Tok::Ident(x)) if x == w);
        if is(k, "do") && is(k + 1, "shell") && is(k + 2, "script") {
            let mut s = String::new();
            let mut known = false;
            let mut j = k + 3;
            while let Some(t) = toks.get(j) {
                match t {
                    Tok::Str { text, known: true } => {
                        s.push_str(text);
                        known = true;
                    }
                    Tok::Punct("&") => {}
                    Tok::End => break,
                    Tok::Ident(w)
                        if matches!(
                            w.as_str(),
                            "with"
                                | "administrator"
                                | "privileges"
                                | "password"
                                | "user"
                                | "name"
                                | "altering"
                                | "line"
                                | "endings"
                        ) =>
                    {
                        break;
                    }
                    _ => {
                        known = false;
                        break;
                    }
                }
                j += 1;
            }
            command(&mut out, known.then_some(s), "`do shell script`");
        }
    }
    if code.contains("doShellScript") || code.contains("ObjC") {
        out.extend(nested(code, Language::Js, depth + 1));
        if code.contains("doShellScript") && !out.iter().any(|e| matches!(e, Effect::Shell(_))) {
            out.push(Effect::Unknown(
                "runs a command the code computes (`doShellScript`)".into(),
            ));
        }
    }
    out
}

/// awk's pipes: `print … | "cmd"`, `"cmd" | getline`, and `print > "file"`.
pub(super) fn awk_pipes(code: &str) -> Vec<Effect> {
    let lexed = lex(code, Language::Awk);
    let toks = &lexed.toks;
    let mut out = Vec::new();
    let ends = |t: &Tok| matches!(t, Tok::End | Tok::Punct("{" | "}" | ";"));
    let value = |range: &[Tok]| -> Option<String> {
        let mut s = String::new();
        let mut any = false;
        for t in range {
            match t {
                Tok::Str { text, known: true } => {
                    s.push_str(text);
                    any = true;
                }
                Tok::Punct("(" | ")") => {}
                _ => return None,
            }
        }
        any.then_some(s)
    };
    let mut statement_start = 0;
    let mut printing = false;
    for k in 0..toks.len() {
        let t = &toks[k];
        if ends(t) {
            statement_start = k + 1;
            printing = false;
            continue;
        }
        // `print` is a statement wherever it stands: first, or the body of `while (…)`,
        // `if (…)`, `for (…)` without braces.
        if matches!(t, Tok::Ident(w) if w == "print" || w == "printf") {
            printing = true;
        }
        match t {
            Tok::Punct("|" | "|&") => {
                if matches!(toks.get(k + 1), Some(Tok::Ident(w)) if w == "getline") {
                    // The command is the expression before the pipe.
                    let mut from = k;
                    while from > statement_start
                        && matches!(
                            toks[from - 1],
                            Tok::Str { .. } | Tok::Ident(_) | Tok::Punct("(" | ")")
                        )
                        && !matches!(&toks[from - 1], Tok::Ident(w) if w == "while" || w == "if")
                    {
                        from -= 1;
                    }
                    let cmd = value(&toks[from..k]);
                    command(&mut out, cmd, "`| getline`");
                } else if printing {
                    let end = (k + 1..toks.len())
                        .find(|&j| ends(&toks[j]))
                        .unwrap_or(toks.len());
                    let cmd = value(&toks[k + 1..end]);
                    command(&mut out, cmd, "`print |`");
                }
            }
            Tok::Punct(">") if printing => {
                let mut from = k + 1;
                if matches!(toks.get(from), Some(Tok::Punct(">"))) {
                    from += 1;
                }
                let end = (from..toks.len())
                    .find(|&j| ends(&toks[j]))
                    .unwrap_or(toks.len());
                out.push(Effect::Writes(value(&toks[from..end])));
                printing = false;
            }
            _ => {}
        }
        if out.len() >= MAX_EFFECTS {
            break;
        }
    }
    out
}
