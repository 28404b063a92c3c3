//! Programs handed to interpreters (`python3 -c`, `perl -e`, `node -e`, `ruby -e`, a
//! here-document into `python3`): the shell commands they start and the trees they
//! delete, the files they write and the strings they name (pieces joined as the code
//! joins them), found in their text without running anything.

use super::targets::{Reach, dangerous_target};

/// Most bytes of one program that are looked at.
const MAX_CODE: usize = 256 * 1024;
/// Most calls of one kind looked at, and most bytes of arguments read for one call.
const MAX_CALLS: usize = 64;
const MAX_ARGUMENTS: usize = 8 * 1024;

/// Calls that hand a string to a shell or start a program.
const SHELL_CALLS: &[&str] = &[
    "system(",
    "popen(",
    "Popen(",
    "exec(",
    "execSync(",
    "execFileSync(",
    "spawnSync(",
    "spawn(",
    "run(",
    "call(",
    "check_call(",
    "check_output(",
    "getoutput(",
    "getstatusoutput(",
    "qx(",
    "qx{",
    "%x(",
    "%x{",
    "exec!(",
];

/// Calls that delete a whole tree, and calls that delete one entry.
const TREE_DELETES: &[&str] = &[
    "rmtree(",
    "rm_rf(",
    "rm_r(",
    "remove_tree(",
    "rmSync(",
    "rmdirSync(",
    "rimraf(",
    "remove_dir_all(",
    "removedirs(",
    "fs.rm(",
    "rmdir(",
    "remove_entry_secure(",
];
const ENTRY_DELETES: &[&str] = &["unlink(", "remove(", "unlinkSync(", "rm("];

/// Calls that write, move, link, delete or change the mode of the files some of their
/// arguments name, with the positions of those arguments.
const WRITE_CALLS: &[(&str, &[usize])] = &[
    ("os.remove(", &[0]),
    ("os.unlink(", &[0]),
    ("os.rmdir(", &[0]),
    ("os.removedirs(", &[0]),
    ("os.rename(", &[0, 1]),
    ("os.renames(", &[0, 1]),
    ("os.replace(", &[0, 1]),
    ("os.symlink(", &[0, 1]),
    ("os.link(", &[0, 1]),
    ("os.chmod(", &[0]),
    ("os.chown(", &[0]),
    ("os.truncate(", &[0]),
    ("shutil.rmtree(", &[0]),
    ("shutil.copy(", &[1]),
    ("shutil.copy2(", &[1]),
    ("shutil.copyfile(", &[1]),
    ("shutil.copytree(", &[1]),
    ("shutil.move(", &[0, 1]),
    ("shutil.chown(", &[0]),
    ("shutil.unpack_archive(", &[1]),
    ("writeFileSync(", &[0]),
    ("writeFile(", &[0]),
    ("appendFileSync(", &[0]),
    ("appendFile(", &[0]),
    ("createWriteStream(", &[0]),
    ("unlinkSync(", &[0]),
    ("rmSync(", &[0]),
    ("rmdirSync(", &[0]),
    ("renameSync(", &[0, 1]),
    ("copyFileSync(", &[1]),
    ("cpSync(", &[1]),
    ("symlinkSync(", &[0, 1]),
    ("chmodSync(", &[0]),
    ("truncateSync(", &[0]),
    ("File.write(", &[0]),
    ("File.delete(", &[0]),
    ("File.unlink(", &[0]),
    ("File.rename(", &[0, 1]),
    ("File.symlink(", &[0, 1]),
    ("FileUtils.rm(", &[0]),
    ("FileUtils.rm_f(", &[0]),
    ("FileUtils.rm_r(", &[0]),
    ("FileUtils.rm_rf(", &[0]),
    ("FileUtils.mv(", &[0, 1]),
    ("FileUtils.cp(", &[1]),
    ("FileUtils.cp_r(", &[1]),
    ("FileUtils.ln_s(", &[0, 1]),
    ("FileUtils.touch(", &[0]),
];

/// Methods that write or delete the file of the path object they are called on
/// (`Path(p).write_text(…)`).
const PATH_METHODS: &[&str] = &[
    ".write_text(",
    ".write_bytes(",
    ".symlink_to(",
    ".hardlink_to(",
    ".touch(",
];

/// Names that build a path from strings without changing it (`os.path.join`, `Path`):
/// an argument made only of these and string literals is known.
const PATH_BUILDERS: &[&str] = &[
    "os",
    "path",
    "join",
    "expanduser",
    "abspath",
    "realpath",
    "resolve",
    "normpath",
    "Path",
    "pathlib",
    "PurePath",
    "File",
    "expand_path",
    "require",
    "fs",
    "home",
    "homedir",
    "Dir",
    "ENV",
    "environ",
    "HOME",
    "process",
    "env",
    "cwd",
    "getcwd",
    "__dirname",
];

/// What a program found in code does.
pub(super) enum Effect {
    /// A shell command line it runs (to be checked like any other).
    Shell(String),
    /// A deletion, described: "deletes the home directory".
    Deletes(String),
    /// A file written, moved or deleted: its path when the code spells it out, `None`
    /// when it is computed.
    Writes(Option<String>),
}

/// The shell commands and the dangerous deletions in `code`.
pub(super) fn effects(code: &str) -> Vec<Effect> {
    let code = &code[..floor_char_boundary(code, MAX_CODE)];
    let mut out = Vec::new();
    for call in SHELL_CALLS {
        for args in call_arguments(code, call) {
            if call.starts_with("qx") || call.starts_with("%x") {
                // Perl's `qx(…)` and Ruby's `%x(…)` quote a command line themselves.
                out.push(Effect::Shell(args.to_owned()));
                continue;
            }
            let words = literals(args);
            if !words.is_empty() {
                out.push(Effect::Shell(words.join(" ")));
            }
        }
    }
    for backtick in backtick_strings(code) {
        out.push(Effect::Shell(backtick.to_owned()));
    }
    for (calls, reach) in [(TREE_DELETES, Reach::Tree), (ENTRY_DELETES, Reach::Entry)] {
        for call in calls {
            for args in call_arguments(code, call) {
                if let Some(what) = deleted_target(first_argument(args), reach) {
                    out.push(Effect::Deletes(format!("deletes {what}")));
                }
            }
        }
    }
    out.extend(writes(code));
    out
}

/// The files `code` writes, moves, links or deletes by the calls it makes.
fn writes(code: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for (call, positions) in WRITE_CALLS {
        for args in call_arguments(code, call) {
            let args = arguments(args);
            for &k in *positions {
                if let Some(arg) = args.get(k) {
                    out.push(Effect::Writes(known_path(arg)));
                }
            }
        }
    }
    for args in call_arguments(code, "open(") {
        let args = arguments(args);
        let mode = |k: usize| args.get(k).and_then(|a| single_literal(a));
        let keyword = args.iter().find_map(|a| {
            let (key, value) = a.split_once('=')?;
            (key.trim() == "mode").then(|| single_literal(value))?
        });
        if let Some(m) = mode(1).filter(|m| m.trim_start().starts_with(['>', '+'])) {
            // Perl: `open(FH, '>', $path)`, or two arguments: `open(FH, '>path')`.
            let m = m.trim_start();
            match args.get(2) {
                Some(path) => out.push(Effect::Writes(known_path(path))),
                None => out.push(Effect::Writes(Some(
                    m.trim_start_matches(['>', '+', ' ']).to_owned(),
                ))),
            }
        } else if let Some(m) = keyword.or_else(|| mode(1))
            && m.len() <= 4
            && m.chars().all(|c| "rwaxbtU+".contains(c))
            && m.contains(['w', 'a', 'x', '+'])
        {
            out.extend(args.first().map(|a| Effect::Writes(known_path(a))));
        }
    }
    for method in PATH_METHODS {
        let mut from = 0;
        let mut seen = 0;
        while seen < MAX_CALLS
            && let Some(at) = code[from..].find(method)
        {
            seen += 1;
            let at = from + at;
            from = at + method.len();
            out.push(Effect::Writes(receiver_path(&code[..at])));
        }
    }
    out
}

/// The path object a method is called on, when the code spells it out:
/// `Path('x')`, `Path.home() / '.claude' / 'x'`.
fn receiver_path(before: &str) -> Option<String> {
    let bytes = before.as_bytes();
    let mut depth = 0i32;
    let mut i = bytes.len();
    let mut quote: Option<u8> = None;
    let floor = bytes.len().saturating_sub(MAX_ARGUMENTS);
    while i > floor {
        let b = bytes[i - 1];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'\'' | b'"' => quote = Some(b),
                b')' | b']' => depth += 1,
                b'(' | b'[' => {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
                b';' | b'\n' | b'=' | b',' if depth == 0 => break,
                _ => {}
            },
        }
        i -= 1;
    }
    while i < bytes.len() && !before.is_char_boundary(i) {
        i += 1;
    }
    known_path(&before[i..])
}

/// The arguments of a call, split at top-level commas.
fn arguments(args: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = args;
    while out.len() < MAX_CALLS && !rest.trim().is_empty() {
        let first = first_argument(rest);
        out.push(first);
        match rest.get(first.len() + 1..) {
            Some(next) => rest = next,
            None => break,
        }
    }
    out
}

/// The text of an argument that is one string literal and nothing else.
fn single_literal(arg: &str) -> Option<String> {
    let arg = arg.trim();
    let strings = literals(arg);
    let quoted = arg.starts_with(['\'', '"']) && arg.ends_with(['\'', '"']);
    (strings.len() == 1 && quoted).then(|| strings[0].clone())
}

/// The path an argument expression names when it is made of string literals and path
/// builders only (`os.path.join('.claude', 'x')`), else `None`.
pub(super) fn known_path(arg: &str) -> Option<String> {
    let arg = arg.trim();
    let pieces = strings(arg);
    if pieces.is_empty() {
        return None;
    }
    let mut rest = String::with_capacity(arg.len());
    let bytes = arg.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let q = bytes[i];
        if matches!(q, b'\'' | b'"' | b'`') {
            i += 1;
            while i < bytes.len() && bytes[i] != q {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            rest.push(' ');
        } else {
            rest.push(char::from(q));
            i += 1;
        }
    }
    let unknown = rest
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| !w.is_empty())
        .any(|w| !PATH_BUILDERS.contains(&w) && !w.bytes().all(|b| b.is_ascii_digit()));
    (!unknown).then(|| pieces.join("/"))
}

/// The strings `code` builds from literals: neighbours joined as the code joins them
/// (`'.claude' + '-nagger'` → `.claude-nagger`; `join('.claude', 'x')` and
/// `'.claude' / 'x'` → `.claude/x`).
pub(super) fn strings(code: &str) -> Vec<String> {
    let code = &code[..floor_char_boundary(code, MAX_CODE)];
    let bytes = code.as_bytes();
    let mut out: Vec<String> = Vec::new();
    let mut last_end: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() && out.len() < MAX_CALLS * 16 {
        let q = bytes[i];
        if !matches!(q, b'\'' | b'"' | b'`') {
            i += 1;
            continue;
        }
        let start = i;
        let mut text = Vec::new();
        i += 1;
        while i < bytes.len() && bytes[i] != q {
            if bytes[i] == b'\\' && i + 1 < bytes.len() {
                i += 1;
            }
            text.push(bytes[i]);
            i += 1;
        }
        i += 1;
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

/// The argument text of every call of `call` (which ends in its opening bracket), up to
/// the matching close, bounded.
fn call_arguments<'c>(code: &'c str, call: &str) -> Vec<&'c str> {
    let open = call.as_bytes()[call.len() - 1];
    let close = if open == b'{' { b'}' } else { b')' };
    let mut out = Vec::new();
    let mut from = 0;
    while out.len() < MAX_CALLS
        && let Some(at) = code[from..].find(call)
    {
        let start = from + at + call.len();
        from = start;
        // `os.system` but not `filesystem(`: the name must start a word or follow a dot.
        let before = code[..start - call.len()].bytes().last();
        if call.as_bytes()[0].is_ascii_alphabetic()
            && before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            continue;
        }
        let bytes = code.as_bytes();
        let mut depth = 1usize;
        let mut i = start;
        let mut quote: Option<u8> = None;
        let end = bytes.len().min(start + MAX_ARGUMENTS);
        while i < end {
            let b = bytes[i];
            match quote {
                Some(q) => {
                    if b == b'\\' {
                        i += 1;
                    } else if b == q {
                        quote = None;
                    }
                }
                None => match b {
                    b'\'' | b'"' | b'`' => quote = Some(b),
                    _ if b == open => depth += 1,
                    _ if b == close => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                },
            }
            i += 1;
        }
        let mut i = i.min(code.len());
        while !code.is_char_boundary(i) {
            i -= 1;
        }
        out.push(&code[start..i]);
    }
    out
}

/// The text of every string literal in `args`, in order.
fn literals(args: &str) -> Vec<String> {
    let bytes = args.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let q = bytes[i];
        if !matches!(q, b'\'' | b'"' | b'`') {
            i += 1;
            continue;
        }
        let mut text = Vec::new();
        i += 1;
        while i < bytes.len() && bytes[i] != q {
            if bytes[i] == b'\\' && i + 1 < bytes.len() {
                i += 1;
            }
            text.push(bytes[i]);
            i += 1;
        }
        i += 1;
        out.push(String::from_utf8_lossy(&text).into_owned());
    }
    out
}

/// `` `cmd` `` in Perl and Ruby code.
fn backtick_strings(code: &str) -> Vec<&str> {
    code.split('`').skip(1).step_by(2).take(MAX_CALLS).collect()
}

/// The first argument of a call: up to the first top-level comma.
fn first_argument(args: &str) -> &str {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    for (i, c) in args.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' | '`' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => return &args[..i],
                _ => {}
            },
        }
    }
    args
}

/// What deleting the path an argument expression names would destroy: a literal (maybe
/// wrapped in `Path(…)` or `expanduser(…)`) or an expression for the home directory.
fn deleted_target(argument: &str, reach: Reach) -> Option<String> {
    let argument = argument.trim();
    let strings = literals(argument);
    let lower = argument.to_ascii_lowercase();
    let names_home = lower.contains("home()")
        || lower.contains("homedir()")
        || lower.contains("dir.home")
        || lower.contains("get_home_dir")
        || strings.iter().any(|s| s == "HOME");
    if names_home && strings.iter().all(|s| s == "HOME") {
        return dangerous_target("~", reach);
    }
    let literal = strings.first()?;
    // The literal must be the whole value: nothing but closing brackets after it.
    let after = argument
        .rfind(['\'', '"', '`'])
        .map_or("", |q| &argument[q + 1..]);
    if strings.len() != 1 || !after.chars().all(|c| c == ')' || c.is_whitespace()) {
        return None;
    }
    dangerous_target(literal, reach)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(code: &str) -> Vec<String> {
        effects(code)
            .into_iter()
            .filter_map(|e| match e {
                Effect::Shell(s) => Some(s),
                Effect::Deletes(_) | Effect::Writes(_) => None,
            })
            .collect()
    }

    fn deletes(code: &str) -> Vec<String> {
        effects(code)
            .into_iter()
            .filter_map(|e| match e {
                Effect::Deletes(s) => Some(s),
                Effect::Shell(_) | Effect::Writes(_) => None,
            })
            .collect()
    }

    #[test]
    fn shell_strings_are_found() {
        assert_eq!(shell("import os; os.system('rm -rf /')"), ["rm -rf /"]);
        assert_eq!(
            shell("subprocess.run(['rm', '-rf', '/'], check=True)"),
            ["rm -rf /"]
        );
        assert_eq!(shell("require('child_process').execSync(\"ls\")"), ["ls"]);
        assert_eq!(shell("print `rm -rf ~`"), ["rm -rf ~"]);
        assert!(shell("print('rm -rf /')").is_empty());
        assert!(shell("filesystem('x')").is_empty());
    }

    #[test]
    fn deletions_of_trees_are_found() {
        assert_eq!(
            deletes("import shutil; shutil.rmtree('/')"),
            ["deletes the filesystem root"]
        );
        assert_eq!(
            deletes("shutil.rmtree(os.path.expanduser(\"~\"))"),
            ["deletes the home directory"]
        );
        assert_eq!(
            deletes("shutil.rmtree(Path.home())"),
            ["deletes the home directory"]
        );
        assert_eq!(
            deletes("require('fs').rmSync('/usr', {recursive: true})"),
            ["deletes the system directory /usr"]
        );
        assert_eq!(
            deletes("FileUtils.rm_rf(ENV['HOME'])"),
            ["deletes the home directory"]
        );
        assert_eq!(
            deletes("use File::Path; remove_tree('/etc')"),
            ["deletes the system directory /etc"]
        );
        for harmless in [
            "shutil.rmtree('build')",
            "shutil.rmtree(tmp)",
            "shutil.rmtree('/' + name)",
            "os.remove('/tmp/x')",
            "shutil.rmtree(os.path.join(os.environ['HOME'], '.cache', 'x'))",
        ] {
            assert!(deletes(harmless).is_empty(), "{harmless}");
        }
    }

    #[test]
    fn huge_or_unbalanced_code_is_bounded() {
        let code = "system(".repeat(100_000);
        let _ = effects(&code);
        let _ = effects("rmtree('");
        let _ = effects("é".repeat(MAX_CODE).as_str());
    }
}
