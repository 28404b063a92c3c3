//! `find … -delete` and `find … -exec`, judged by what its expression does to nagger's
//! own files. The command line is read as find reads it (start points, global options,
//! an expression of tests, actions and operators) and the expression is evaluated, in
//! three values (true, false, not known before it runs), on each protected path that lies
//! under a start point: the project's `.claude-nagger` folder and its files (listed on
//! disk, bounded), Claude Code's project, user and managed settings, nagger's trust copy
//! and the nagger program. A change it reaches for certain (`-delete`, or an `-exec`
//! whose program deletes, moves, writes or locks up the path, or a whole folder above it)
//! is refused; one it reaches only if a test it cannot evaluate holds (`-mtime`,
//! `-newer`, `-empty` …) is asked about, and so is one from a start point only known when
//! the shell runs. What it reaches and leaves alone (`-name '*.pyc'`, `src`) passes.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::super::finding::Finding;
use super::super::paths::normalize;
use super::super::shell::{
    self, SimpleCommand, basename, has_flag, is_interpreter, is_shell, shell_c_script, shell_quote,
    short_cluster,
};

/// Most words of one expression read; past it the command is asked about.
const MAX_WORDS: usize = 256;
/// Deepest nesting of `(`, `!` and `-not`.
const MAX_NESTING: usize = 32;
/// Most protected paths judged for one command.
const MAX_CANDIDATES: usize = 128;
/// Most entries read from one protected folder on disk.
const MAX_LISTED: usize = 64;
/// Deepest folder level listed under a protected folder.
const MAX_LIST_DEPTH: usize = 3;
/// Most folders from a start point down to a protected path.
const MAX_CHAIN: usize = 32;
/// Most `-exec` programs read for one command.
const MAX_RUNS: usize = 256;
/// Longest pattern of `-name`, `-path` or `-regex` matched.
const MAX_PATTERN: usize = 1024;
/// Most entries of `PATH` looked at for the nagger program.
const MAX_PATH_DIRS: usize = 64;

/// Files nagger keeps in a project's `.claude-nagger` folder, whether or not they exist yet.
const NAGGER_FILES: &[&str] = &[
    "config.toml",
    "state.db",
    "state.db-wal",
    "state.db-shm",
    "trusted.json",
];

const ASK_ADVICE: &str = "Keep the search off them (`-not -path './.claude*'`, or a start \
                          folder that holds none of them), or run it yourself.";

/// What the evaluator needs from self-protection, handed in by it.
pub(super) struct Place<'a> {
    /// The project root, which relative paths start from.
    pub(super) root: &'a Path,
    /// The folder the command runs in: relative to the root (`""` for it), absolute or
    /// `~/…`; `None` when only known when the shell runs.
    pub(super) cwd: Option<&'a str>,
    /// The nagger program that runs as the hook, when known.
    pub(super) binary: Option<&'a str>,
    /// Whether `*` matches dot names too (`dotglob` on, in whatever form).
    pub(super) dot_names: bool,
    /// What a path is, when it is in the protected set (lexically).
    pub(super) protected: &'a dyn Fn(&str) -> Option<&'static str>,
    /// What a written path is, when it is in the protected set (through links on disk).
    pub(super) judge: &'a dyn Fn(&str) -> Option<&'static str>,
    /// The paths a simple command changes, and the folders it writes into.
    pub(super) changed: &'a dyn Fn(&SimpleCommand) -> Vec<String>,
    /// The refusal for what a command does to a protected path.
    pub(super) refuse: &'a dyn Fn(&str) -> Finding,
    /// Whether a folder (absolute) is protected or holds nagger's files or Claude Code's
    /// settings.
    pub(super) holds: &'a dyn Fn(&str) -> bool,
}

/// The refusal or question for a `find` whose expression reaches a protected path with a
/// change, or writes one with `-fprint`.
pub(super) fn reached(command: &SimpleCommand, place: &Place) -> Option<Finding> {
    if !matches!(command.name(), "find" | "gfind") {
        return None;
    }
    let args = command.args();
    let acts = args.iter().any(|a| {
        a == "-delete"
            || a.starts_with("-exec")
            || a.starts_with("-ok")
            || a.starts_with("-fprint")
            || a == "-fls"
    });
    if !acts {
        return None;
    }
    let line = parse(args);
    let base = place.cwd.and_then(|cwd| absolute(place, cwd, None));
    for (option, file) in &line.writes {
        if let Some(full) = resolved(place, file, base.as_deref())
            && let Some(what) = (place.judge)(&full)
        {
            return Some((place.refuse)(&format!(
                "writes `{file}` with `{option}`, {what}"
            )));
        }
    }
    if line.actions.is_empty() {
        return None;
    }
    let mut starts = starts(place, &line, base.as_deref());
    if let Some(feeder) = command
        .prefixes
        .iter()
        .find(|p| *p == "xargs" || *p == "parallel")
    {
        // Start points handed over from the input.
        starts.push(Start::Computed(format!("what `{feeder}` hands it")));
    }
    let candidates = candidates(place, &starts);
    if candidates.is_empty() {
        // Found paths joined under a folder holding protected files.
        return composed_write(&line, place, base.as_deref(), false)
            .map(|word| composed_finding(&word));
    }
    let mut judge = Judging {
        place,
        line: &line,
        base: base.as_deref(),
        runs: HashMap::new(),
    };
    let mut unsure = None;
    for start in &starts {
        for candidate in &candidates {
            match judge.candidate(start, candidate) {
                Some(Outcome::Sure(harm)) => return Some((place.refuse)(&harm)),
                Some(Outcome::Unsure(harm)) if unsure.is_none() => unsure = Some(harm),
                _ => {}
            }
        }
    }
    if unsure.is_none()
        && let Some(word) = composed_write(&line, place, base.as_deref(), true)
    {
        return Some(composed_finding(&word));
    }
    unsure.map(|harm| Finding::ask("guard:self-protect-unsure", harm, ASK_ADVICE))
}

/// A word of an `-exec` program that joins `{}` with other text (`{}.json`, `out/{}`) and
/// that the program writes, when the name it makes may be a protected one: text after
/// `{}` that a protected name ends with, or text before it naming a protected folder.
fn composed_write(
    line: &Line,
    place: &Place,
    base: Option<&str>,
    finds_protected: bool,
) -> Option<String> {
    const FOUND: &str = "nagger-found-path";
    for action in &line.actions {
        let Action::Run { argv, .. } = action else {
            continue;
        };
        if !argv.iter().any(|w| w.contains("{}")) {
            continue;
        }
        let filled: Vec<String> = argv.iter().map(|w| w.replace("{}", FOUND)).collect();
        // `sh -c 'mv "$1" "$1.json"' _ {}`: the script with its parameters filled in.
        let text = match shell::shell_c_script(&filled) {
            Some((script, params)) => shell::with_positional(script, params),
            None => filled
                .iter()
                .map(|w| shell_quote(w))
                .collect::<Vec<_>>()
                .join(" "),
        };
        let parsed = shell::parse(&text);
        for run in &parsed.commands {
            // `rename.ul .new '' {} +`: the names it makes are the names found, changed by
            // its expression: any name where find reaches nagger's files.
            if finds_protected
                && matches!(
                    run.name(),
                    "rename" | "rename.ul" | "prename" | "file-rename" | "perl-rename"
                )
                && run.args().iter().any(|a| a.contains(FOUND))
            {
                return Some(run.argv.join(" ").replace(FOUND, "{}"));
            }
            let mut paths = (place.changed)(run);
            paths.extend(super::composed::composed(run).paths);
            for path in paths {
                let Some(at) = path.find(FOUND) else {
                    continue;
                };
                let before = &path[..at];
                let after = &path[at + FOUND.len()..];
                let after = after.split(FOUND).next().unwrap_or(after);
                if before.is_empty() && after.is_empty() {
                    continue;
                }
                // Text after the path that a protected name ends with, where find reaches
                // protected files.
                let by_suffix = finds_protected
                    && !after.is_empty()
                    && !after.contains('/')
                    && super::composed::FILE_NAMES
                        .iter()
                        .any(|n| n.ends_with(after) && *n != after);
                // A path found joined under a folder that is protected or holds nagger's
                // files or Claude Code's settings (`cp --parents {} ..`, `mv {} ../{}`).
                let by_folder = !before.is_empty()
                    && resolved(place, before.trim_end_matches('/'), base)
                        .is_some_and(|dir| (place.judge)(&dir).is_some() || (place.holds)(&dir));
                if by_suffix || by_folder || finds_protected && after.contains('/') {
                    return Some(path.replace(FOUND, "{}"));
                }
            }
        }
    }
    None
}

fn composed_finding(word: &str) -> Finding {
    Finding::ask(
        "guard:self-protect-composed",
        format!(
            "writes `{word}`, a name made of each path it finds, which may be one of nagger's \
             files or Claude Code's settings"
        ),
        ASK_ADVICE,
    )
}

/// Three values: what a test or an expression is for one file, as far as it is known
/// before find runs. Ordered: `False < Unknown < True`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Tri {
    False,
    Unknown,
    True,
}

impl Tri {
    fn of(value: bool) -> Tri {
        if value { Tri::True } else { Tri::False }
    }

    fn and(self, other: Tri) -> Tri {
        self.min(other)
    }

    fn or(self, other: Tri) -> Tri {
        self.max(other)
    }

    fn not(self) -> Tri {
        match self {
            Tri::False => Tri::True,
            Tri::Unknown => Tri::Unknown,
            Tri::True => Tri::False,
        }
    }
}

/// A test of find's expression.
#[derive(Debug)]
enum Test {
    Const(bool),
    /// `-name`, `-iname`: a glob on the last part of the path.
    Name {
        pattern: String,
        fold: bool,
    },
    /// `-path`, `-wholename` and their `-i` forms: a glob on the whole path as shown.
    Path {
        pattern: String,
        fold: bool,
    },
    /// `-regex`, `-iregex` on the whole path; `None`: a regex nagger cannot read.
    Regex(Option<regex::Regex>, String),
    /// `-type` (`xtype: false`) or `-xtype` letters.
    Type {
        letters: String,
        xtype: bool,
    },
    /// A test only the file on disk answers (`-mtime +30`, `-newer x`, `-empty` …).
    Unknown(String),
}

#[derive(Debug)]
enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    List(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Test(Test),
    Prune,
    /// An action, by its index in [`Line::actions`].
    Act(usize),
}

/// An action of the expression that may change what it reaches.
#[derive(Debug)]
enum Action {
    Delete,
    /// `-exec`, `-execdir`, `-ok`, `-okdir`: the program with `{}` in it.
    Run {
        word: String,
        argv: Vec<String>,
        in_dir: bool,
        batch: bool,
    },
}

impl Action {
    fn display(&self) -> String {
        match self {
            Action::Delete => "-delete".to_owned(),
            Action::Run {
                word, argv, batch, ..
            } => {
                let words: Vec<String> = argv
                    .iter()
                    .map(|w| {
                        if w.is_empty()
                            || w.contains(|c: char| c.is_whitespace() || "'\"`$;&|".contains(c))
                        {
                            shell_quote(w)
                        } else {
                            w.clone()
                        }
                    })
                    .collect();
                format!(
                    "{word} {} {}",
                    words.join(" "),
                    if *batch { "+" } else { ";" }
                )
            }
        }
    }
}

/// Which regex dialect `-regex` speaks (`-regextype`, `-E`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    /// Emacs and POSIX basic: `\(`, `\|` group and choose, `(` is a letter.
    Basic,
    /// POSIX extended: `(`, `|` group and choose.
    Extended,
    /// One nagger does not read.
    Other,
}

/// find's command line as find reads it.
#[derive(Debug)]
struct Line {
    /// The start points as written (none given: `.`).
    starts: Vec<String>,
    /// Start points come from a file (`-files0-from`).
    starts_from_file: bool,
    expr: Expr,
    actions: Vec<Action>,
    /// Files written by `-fprint`, `-fprint0`, `-fprintf`, `-fls`: the option and the file.
    writes: Vec<(String, String)>,
    max_depth: Option<usize>,
    min_depth: usize,
    /// `-depth` or `-delete`: folders are acted on after their contents, and `-prune`
    /// stops nothing.
    depth_first: bool,
    /// `-L` or `-follow`: symbolic links are followed.
    follow: bool,
}

/// Reads find's arguments (after the program name). An expression nagger cannot read
/// (an unknown test, a missing argument, past the bounds) becomes one whose every action
/// may run, so what it can reach is asked about.
fn parse(args: &[String]) -> Line {
    let mut k = 0;
    let mut follow = false;
    let mut dialect = Dialect::Basic;
    let mut depth_first = false;
    while let Some(arg) = args.get(k) {
        match arg.as_str() {
            "-L" => follow = true,
            "-H" | "-P" | "-X" | "-x" | "-s" => {}
            "-E" => dialect = Dialect::Extended,
            "-d" => depth_first = true,
            "-D" => k += 1,
            a if a.starts_with("-O") && a[2..].bytes().all(|b| b.is_ascii_digit()) => {}
            "--" => {
                k += 1;
                break;
            }
            _ => break,
        }
        k += 1;
    }
    let mut starts = Vec::new();
    while let Some(arg) = args.get(k) {
        if (arg.starts_with('-') && arg.len() > 1) || arg == "(" || arg == "!" {
            break;
        }
        starts.push(arg.clone());
        k += 1;
    }
    let defaulted = starts.is_empty();
    let words = &args[k.min(args.len())..];
    let mut parser = Parser {
        words,
        at: 0,
        nesting: 0,
        dialect,
        actions: Vec::new(),
        writes: Vec::new(),
        max_depth: None,
        min_depth: 0,
        depth_first,
        follow,
        starts_from_file: false,
    };
    let expr = if words.len() > MAX_WORDS {
        Err(format!("longer than {MAX_WORDS} words"))
    } else if words.is_empty() {
        Ok(Expr::Test(Test::Const(true)))
    } else {
        parser.list().and_then(|e| match words.get(parser.at) {
            None => Ok(e),
            Some(w) => Err(format!("`{w}` where no word fits")),
        })
    };
    let expr = expr.unwrap_or_else(|why| parser.unreadable(&why));
    // No start given: `.`, unless they come from a file.
    if defaulted && !parser.starts_from_file {
        starts.push(".".to_owned());
    }
    let depth_first =
        parser.depth_first || parser.actions.iter().any(|a| matches!(a, Action::Delete));
    Line {
        starts,
        starts_from_file: parser.starts_from_file,
        expr,
        actions: parser.actions,
        writes: parser.writes,
        max_depth: parser.max_depth,
        min_depth: parser.min_depth,
        depth_first,
        follow: parser.follow,
    }
}

struct Parser<'w> {
    words: &'w [String],
    at: usize,
    nesting: usize,
    dialect: Dialect,
    actions: Vec<Action>,
    writes: Vec<(String, String)>,
    max_depth: Option<usize>,
    min_depth: usize,
    depth_first: bool,
    follow: bool,
    starts_from_file: bool,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.words.get(self.at).map(String::as_str)
    }

    fn next(&mut self) -> Option<&str> {
        let word = self.words.get(self.at)?;
        self.at += 1;
        Some(word.as_str())
    }

    /// `a , b`: both evaluated, the value is b's. Lowest precedence.
    fn list(&mut self) -> Result<Expr, String> {
        let mut left = self.or()?;
        while self.peek() == Some(",") {
            self.at += 1;
            let right = self.or()?;
            left = Expr::List(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut left = self.and()?;
        while matches!(self.peek(), Some("-o" | "-or")) {
            self.at += 1;
            let right = self.and()?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut left = self.not()?;
        loop {
            match self.peek() {
                None | Some(")" | "-o" | "-or" | ",") => break,
                Some("-a" | "-and") => self.at += 1,
                Some(_) => {}
            }
            let right = self.not()?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Expr, String> {
        if matches!(self.peek(), Some("!" | "-not")) {
            self.at += 1;
            self.nest()?;
            let inner = self.not();
            self.nesting -= 1;
            return Ok(Expr::Not(Box::new(inner?)));
        }
        self.primary()
    }

    fn nest(&mut self) -> Result<(), String> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(format!("nested deeper than {MAX_NESTING}"));
        }
        Ok(())
    }

    fn argument(&mut self, word: &str) -> Result<String, String> {
        self.next()
            .map(str::to_owned)
            .ok_or_else(|| format!("`{word}` without its argument"))
    }

    fn primary(&mut self) -> Result<Expr, String> {
        let Some(word) = self.next().map(str::to_owned) else {
            return Err("an operator without an operand".into());
        };
        let test = |t: Test| Ok(Expr::Test(t));
        let truth = || Ok(Expr::Test(Test::Const(true)));
        match word.as_str() {
            "(" => {
                self.nest()?;
                let inner = self.list();
                self.nesting -= 1;
                let inner = inner?;
                if self.next() != Some(")") {
                    return Err("a `(` without its `)`".into());
                }
                Ok(inner)
            }
            ")" | "-a" | "-and" | "-o" | "-or" | "," => Err(format!("`{word}` without an operand")),
            "-true" => truth(),
            "-false" => test(Test::Const(false)),
            "-name" | "-iname" => {
                let pattern = self.argument(&word)?;
                test(Test::Name {
                    pattern,
                    fold: word == "-iname",
                })
            }
            "-path" | "-wholename" | "-ipath" | "-iwholename" => {
                let pattern = self.argument(&word)?;
                test(Test::Path {
                    pattern,
                    fold: word.starts_with("-i"),
                })
            }
            "-regex" | "-iregex" => {
                let pattern = self.argument(&word)?;
                let compiled = compile_regex(&pattern, self.dialect, word == "-iregex");
                test(Test::Regex(compiled, format!("{word} {pattern}")))
            }
            "-type" | "-xtype" => {
                let letters = self.argument(&word)?;
                test(Test::Type {
                    letters,
                    xtype: word == "-xtype",
                })
            }
            "-maxdepth" | "-mindepth" => {
                let value = self.argument(&word)?;
                let n: usize = value
                    .parse()
                    .map_err(|_| format!("`{word} {value}`, not a depth"))?;
                if word == "-maxdepth" {
                    self.max_depth = Some(n);
                } else {
                    self.min_depth = n;
                }
                truth()
            }
            "-depth" | "-d" => {
                // BSD's `-depth n` is a test of the depth.
                if let Some(n) = self.peek()
                    && n.trim_start_matches(['+', '-']).parse::<usize>().is_ok()
                {
                    let n = n.to_owned();
                    self.at += 1;
                    return test(Test::Unknown(format!("{word} {n}")));
                }
                self.depth_first = true;
                truth()
            }
            "-follow" => {
                self.follow = true;
                truth()
            }
            "-xdev"
            | "-mount"
            | "-noleaf"
            | "-ignore_readdir_race"
            | "-noignore_readdir_race"
            | "-nowarn"
            | "-warn"
            | "-daystart"
            | "-help"
            | "--help"
            | "-version"
            | "--version"
            | "-print"
            | "-print0"
            | "-ls"
            | "-quit" => truth(),
            "-regextype" => {
                let kind = self.argument(&word)?;
                self.dialect = match kind.as_str() {
                    "emacs" | "findutils-default" | "posix-basic" | "grep" | "ed" | "sed"
                    | "gnu-awk" => Dialect::Basic,
                    "posix-extended" | "posix-egrep" | "egrep" | "awk" | "posix-awk" => {
                        Dialect::Extended
                    }
                    _ => Dialect::Other,
                };
                truth()
            }
            "-files0-from" => {
                self.argument(&word)?;
                self.starts_from_file = true;
                truth()
            }
            "-printf" => {
                self.argument(&word)?;
                truth()
            }
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                let file = self.argument(&word)?;
                if word == "-fprintf" {
                    self.argument(&word)?;
                }
                self.writes.push((word, file));
                truth()
            }
            "-prune" => Ok(Expr::Prune),
            "-delete" => {
                self.actions.push(Action::Delete);
                Ok(Expr::Act(self.actions.len() - 1))
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let from = self.at;
                let mut end = None;
                while let Some(w) = self.words.get(self.at) {
                    self.at += 1;
                    if w == ";" {
                        end = Some(false);
                        break;
                    }
                    if w == "+" && self.at >= 2 && self.words[self.at - 2] == "{}" {
                        end = Some(true);
                        break;
                    }
                }
                let Some(batch) = end else {
                    return Err(format!("`{word}` without its `;`"));
                };
                let argv = self.words[from..self.at - 1].to_vec();
                if argv.is_empty() {
                    return Err(format!("`{word}` without a program"));
                }
                self.actions.push(Action::Run {
                    in_dir: word.ends_with("dir"),
                    word,
                    argv,
                    batch,
                });
                Ok(Expr::Act(self.actions.len() - 1))
            }
            "-empty" | "-executable" | "-readable" | "-writable" | "-nouser" | "-nogroup"
            | "-acl" | "-xattr" | "-sparse" => test(Test::Unknown(word)),
            "-amin" | "-anewer" | "-atime" | "-cmin" | "-cnewer" | "-ctime" | "-mmin"
            | "-mtime" | "-newer" | "-used" | "-size" | "-user" | "-group" | "-uid" | "-gid"
            | "-links" | "-inum" | "-samefile" | "-lname" | "-ilname" | "-perm" | "-fstype"
            | "-context" | "-Bmin" | "-Btime" | "-Bnewer" | "-flags" | "-xattrname" => {
                let value = self.argument(&word)?;
                test(Test::Unknown(format!("{word} {value}")))
            }
            w if w.starts_with("-newer") && w.len() == 8 => {
                let value = self.argument(&word)?;
                test(Test::Unknown(format!("{word} {value}")))
            }
            _ => Err(format!("`{word}`, which nagger does not know")),
        }
    }

    /// An expression nagger could not read: every action it names may run.
    fn unreadable(&mut self, why: &str) -> Expr {
        self.actions.clear();
        let mut k = 0;
        while k < self.words.len() {
            let word = self.words[k].as_str();
            k += 1;
            match word {
                "-delete" => self.actions.push(Action::Delete),
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    let end = self.words[k..]
                        .iter()
                        .position(|w| w == ";" || w == "+")
                        .map_or(self.words.len(), |p| k + p);
                    self.actions.push(Action::Run {
                        word: word.to_owned(),
                        argv: self.words[k..end].to_vec(),
                        in_dir: word.ends_with("dir"),
                        batch: self.words.get(end).is_some_and(|w| w == "+"),
                    });
                    k = end + 1;
                }
                _ => {}
            }
            if self.actions.len() >= MAX_RUNS {
                break;
            }
        }
        let unknown = || {
            Expr::Test(Test::Unknown(format!(
                "an expression nagger cannot read ({why})"
            )))
        };
        (0..self.actions.len()).fold(unknown(), |e, k| {
            Expr::List(
                Box::new(e),
                Box::new(Expr::And(Box::new(unknown()), Box::new(Expr::Act(k)))),
            )
        })
    }
}

/// A regex of `-regex`, matched against the whole path; `None` when nagger cannot read
/// it in its dialect.
fn compile_regex(pattern: &str, dialect: Dialect, fold: bool) -> Option<regex::Regex> {
    if pattern.len() > MAX_PATTERN {
        return None;
    }
    let body = match dialect {
        Dialect::Basic => translate_basic(pattern)?,
        Dialect::Extended => translate_extended(pattern)?,
        Dialect::Other => return None,
    };
    regex::RegexBuilder::new(&format!("^(?s:{body})$"))
        .case_insensitive(fold)
        .size_limit(1 << 20)
        .build()
        .ok()
}

/// A bracket expression `[…]` starting at `chars[i]`, as a Rust class; the index after it.
fn bracket(chars: &[char], i: usize) -> Option<(String, usize)> {
    let mut out = String::from("[");
    let mut j = i + 1;
    if chars.get(j) == Some(&'^') {
        out.push('^');
        j += 1;
    }
    let mut first = true;
    loop {
        let c = *chars.get(j)?;
        if c == ']' && !first {
            out.push(']');
            return Some((out, j + 1));
        }
        first = false;
        if c == '[' && chars.get(j + 1) == Some(&':') {
            let close = (j + 2..chars.len().saturating_sub(1))
                .find(|&k| chars[k] == ':' && chars[k + 1] == ']')?;
            out.extend(&chars[j..close + 2]);
            j = close + 2;
            continue;
        }
        // POSIX brackets take `\` as a letter; Rust classes give `[`, `&`, `~`, `-`-runs
        // meanings of their own.
        if matches!(c, '\\' | '[' | '&' | '~' | ']') {
            out.push('\\');
        }
        out.push(c);
        j += 1;
    }
}

/// An Emacs or POSIX basic regex as Rust's syntax.
fn translate_basic(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let next = *chars.get(i + 1)?;
                match next {
                    '(' | ')' | '|' | '{' | '}' => out.push(next),
                    'w' | 'W' | 'b' | 'B' => {
                        out.push('\\');
                        out.push(next);
                    }
                    '`' => out.push_str("\\A"),
                    '\'' => out.push_str("\\z"),
                    c if c.is_ascii_alphanumeric() => return None,
                    c => out.push_str(&regex::escape(&c.to_string())),
                }
                i += 2;
                continue;
            }
            '(' | ')' | '|' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '[' => {
                let (class, next) = bracket(&chars, i)?;
                out.push_str(&class);
                i = next;
                continue;
            }
            _ => out.push(c),
        }
        i += 1;
    }
    Some(out)
}

/// A POSIX extended regex as Rust's syntax.
fn translate_extended(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let next = *chars.get(i + 1)?;
                if next.is_ascii_alphanumeric() && !matches!(next, 'w' | 'W' | 'b' | 'B') {
                    return None;
                }
                out.push('\\');
                out.push(next);
                i += 2;
                continue;
            }
            '[' => {
                let (class, next) = bracket(&chars, i)?;
                out.push_str(&class);
                i = next;
                continue;
            }
            _ => out.push(c),
        }
        i += 1;
    }
    Some(out)
}

/// find's glob (`fnmatch` without `FNM_PATHNAME` or `FNM_PERIOD`): `*` matches any
/// characters, `/` and a leading `.` included. `None` when the match took too long to tell.
fn glob(pattern: &str, text: &str, fold: bool) -> Option<bool> {
    let lower = |s: &str| {
        if fold {
            s.to_lowercase().chars().collect::<Vec<_>>()
        } else {
            s.chars().collect()
        }
    };
    let (p, t) = (lower(pattern), lower(text));
    let mut budget = 100_000usize;
    glob_at(&p, &t, &mut budget)
}

fn glob_at(p: &[char], t: &[char], budget: &mut usize) -> Option<bool> {
    let (mut pi, mut ti) = (0, 0);
    // The last `*` seen and where its text match started, for backtracking.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
                continue;
            }
            Some('?') => Some(pi + 1),
            Some('[') => match class_match(p, pi, t[ti]) {
                Some((true, next)) => Some(next),
                Some((false, _)) => None,
                // No closing `]`: the `[` is a letter.
                None => (t[ti] == '[').then_some(pi + 1),
            },
            Some('\\') if pi + 1 < p.len() => (p[pi + 1] == t[ti]).then_some(pi + 2),
            Some(c) => (*c == t[ti]).then_some(pi + 1),
            None => None,
        };
        match (step, star) {
            (Some(next), _) => {
                pi = next;
                ti += 1;
            }
            (None, Some((sp, st))) => {
                pi = sp + 1;
                ti = st + 1;
                star = Some((sp, st + 1));
            }
            (None, None) => return Some(false),
        }
    }
    Some(p[pi..].iter().all(|c| *c == '*'))
}

/// Whether the bracket expression at `p[at]` matches `c`, and the index after it; `None`
/// when it has no closing `]`.
fn class_match(p: &[char], at: usize, c: char) -> Option<(bool, usize)> {
    let mut j = at + 1;
    let negated = matches!(p.get(j), Some('!' | '^'));
    if negated {
        j += 1;
    }
    let mut hit = false;
    let mut first = true;
    loop {
        let x = *p.get(j)?;
        if x == ']' && !first {
            return Some((hit != negated, j + 1));
        }
        first = false;
        if x == '[' && p.get(j + 1) == Some(&':') {
            let close =
                (j + 2..p.len().saturating_sub(1)).find(|&k| p[k] == ':' && p[k + 1] == ']')?;
            let name: String = p[j + 2..close].iter().collect();
            hit |= match name.as_str() {
                "alpha" => c.is_alphabetic(),
                "digit" => c.is_ascii_digit(),
                "alnum" => c.is_alphanumeric(),
                "upper" => c.is_uppercase(),
                "lower" => c.is_lowercase(),
                "space" => c.is_whitespace(),
                "punct" => c.is_ascii_punctuation(),
                "xdigit" => c.is_ascii_hexdigit(),
                _ => false,
            };
            j = close + 2;
            continue;
        }
        let x = if x == '\\' {
            j += 1;
            *p.get(j)?
        } else {
            x
        };
        if p.get(j + 1) == Some(&'-') && p.get(j + 2).is_some_and(|e| *e != ']') {
            let end = p[j + 2];
            hit |= x <= c && c <= end;
            j += 3;
        } else {
            hit |= x == c;
            j += 1;
        }
    }
}

/// Where find starts, as far as it is known.
#[derive(Debug)]
enum Start {
    Known {
        /// As written (with `~` as the home): how find shows the paths under it.
        shown: String,
        /// Absolute, lexically normalised.
        path: String,
        /// The same folder through symbolic links on disk, when it differs.
        real: Option<String>,
    },
    /// Only known when the shell runs (`$DIR`, `$(…)`, a folder `cd` went to by a
    /// variable): what it is, in words.
    Computed(String),
}

impl Start {
    /// Whether find may reach `path` (absolute) from this start.
    fn holds(&self, path: &str) -> bool {
        match self {
            Start::Known { path: at, real, .. } => {
                under(path, at) || real.as_deref().is_some_and(|r| under(path, r))
            }
            Start::Computed(_) => true,
        }
    }
}

/// Whether `path` is `dir` or lies inside it (both absolute and normalised).
fn under(path: &str, dir: &str) -> bool {
    dir == "/"
        || path == dir
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

fn home() -> Option<String> {
    std::env::var("HOME")
        .ok()
        .filter(|h| h.starts_with('/'))
        .map(|h| normalize(&h))
}

/// `path` as an absolute, normalised path: `~` and `$HOME` are the home, `$PWD` and
/// relative paths are under `base` (the folder find runs in, absolute), or the project
/// root when `base` is `None` and `path` is where the line starts (`cwd`). `None` when
/// it holds anything else only known when the shell runs.
fn absolute(place: &Place, path: &str, base: Option<&str>) -> Option<String> {
    let root = place.root.to_string_lossy();
    let base_or_root = base.map_or_else(|| root.to_string(), str::to_owned);
    for (word, with) in [
        ("~", home()),
        ("$HOME", home()),
        ("${HOME}", home()),
        ("$CLAUDE_PROJECT_DIR", Some(root.to_string())),
        ("${CLAUDE_PROJECT_DIR}", Some(root.to_string())),
        ("$PWD", base.map(str::to_owned)),
        ("${PWD}", base.map(str::to_owned)),
    ] {
        if let Some(rest) = path.strip_prefix(word)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            let with = with?;
            if rest.contains(['$', '`']) {
                return None;
            }
            return Some(normalize(&format!("{with}{rest}")));
        }
    }
    if path.contains(['$', '`']) || path.starts_with('~') {
        return None;
    }
    if path.starts_with('/') {
        return Some(normalize(path));
    }
    Some(normalize(&format!("{base_or_root}/{path}")))
}

/// The start points of `line`, resolved against the folder find runs in (`base`).
fn starts(place: &Place, line: &Line, base: Option<&str>) -> Vec<Start> {
    let mut out = Vec::new();
    if line.starts_from_file {
        out.push(Start::Computed("the files `-files0-from` names".into()));
    }
    for word in &line.starts {
        let Some(path) = resolved(place, word, base) else {
            out.push(Start::Computed(
                if word.contains(['$', '`']) || word.starts_with('~') {
                    format!("`{word}`")
                } else {
                    format!("`{word}` in a folder")
                },
            ));
            continue;
        };
        if word.contains(['*', '?', '[']) {
            // A glob the shell expands: each protected folder it names is a start.
            out.extend(
                expanded(place, word, &path)
                    .into_iter()
                    .map(|(shown, path)| Start::Known {
                        shown,
                        path,
                        real: None,
                    }),
            );
            continue;
        }
        // The shell hands find `~` and variables filled in.
        let shown = if word.starts_with('~') || word.contains('$') {
            path.clone()
        } else {
            word.clone()
        };
        let real = real_start(place, &path);
        out.push(Start::Known { shown, path, real });
    }
    out
}

/// A start point through symbolic links on disk, written under the project root's or
/// the home's own spelling when it lies there.
fn real_start(place: &Place, path: &str) -> Option<String> {
    let real = std::fs::canonicalize(path).ok()?;
    let real = normalize(&real.to_string_lossy());
    if real == path {
        return None;
    }
    let root = normalize(&place.root.to_string_lossy());
    for spelled in [Some(root), home()].into_iter().flatten() {
        let Ok(canon) = std::fs::canonicalize(&spelled) else {
            continue;
        };
        let canon = normalize(&canon.to_string_lossy());
        if let Some(rest) = real.strip_prefix(&canon)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            let spelled = format!("{spelled}{rest}");
            return (spelled != path).then_some(spelled);
        }
    }
    Some(real)
}

/// The protected folders a glob start point (`.c*`, `*/.claude`) expands to, as the
/// shell expands it (`*` matches no leading `.` unless the pattern starts with one):
/// each as shown and absolute.
fn expanded(place: &Place, word: &str, pattern: &str) -> Vec<(String, String)> {
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    let mut out = Vec::new();
    for seed in seeds(place, &[]) {
        let names: Vec<&str> = seed.path.split('/').filter(|p| !p.is_empty()).collect();
        if names.len() < parts.len() {
            continue;
        }
        let hit = parts.iter().zip(&names).all(|(p, n)| {
            if p.contains(['*', '?', '[']) {
                // A dot name by a pattern that starts with a dot, or one made to reach
                // it (`[.]claude`), or any with `dotglob` on.
                (place.dot_names || p.starts_with(['.', '[', '?']) || !n.starts_with('.'))
                    && glob(p, n, false) == Some(true)
            } else {
                p == n
            }
        });
        if !hit {
            continue;
        }
        let path = format!("/{}", names[..parts.len()].join("/"));
        if out.iter().any(|(_, p)| *p == path) {
            continue;
        }
        // Shown as written, a glob in the last part replaced by the name it matched;
        // with globs further up, absolute.
        let shown = match word.rsplit_once('/') {
            _ if parts[..parts.len() - 1]
                .iter()
                .any(|p| p.contains(['*', '?', '['])) =>
            {
                path.clone()
            }
            Some((dir, _)) => format!("{dir}/{}", names[parts.len() - 1]),
            None => names[parts.len() - 1].to_owned(),
        };
        out.push((shown, path));
    }
    out
}

/// A protected path find may reach.
#[derive(Debug, Clone)]
struct Candidate {
    /// Absolute, normalised.
    path: String,
    /// `f`, `d`, `l` … as on disk, or as it would be made; `None` when not known.
    kind: Option<char>,
    /// The nagger program (a mode change must leave it runnable).
    program: bool,
}

/// Protected paths by where they are, before looking on disk: each with the kind it
/// has when made, and whether its contents are listed.
struct Seed {
    path: String,
    kind: char,
    list: bool,
    program: bool,
    /// Only a candidate when it exists (a `nagger` in a folder of `PATH`).
    must_exist: bool,
}

fn seed(path: String, kind: char) -> Seed {
    Seed {
        path,
        kind,
        list: false,
        program: false,
        must_exist: false,
    }
}

/// The protected paths of the project, the home, the machine and the program, with
/// those under each known start point that exist on disk.
fn seeds(place: &Place, starts: &[&str]) -> Vec<Seed> {
    let root = normalize(&place.root.to_string_lossy());
    let mut out = Vec::new();
    let settings_of = |dir: &str, out: &mut Vec<Seed>| {
        out.push(seed(format!("{dir}/.claude"), 'd'));
        for file in ["settings.json", "settings.local.json"] {
            out.push(seed(format!("{dir}/.claude/{file}"), 'f'));
        }
    };
    let nagger_of = |dir: &str, out: &mut Vec<Seed>| {
        let folder = format!("{dir}/.claude-nagger");
        for file in NAGGER_FILES {
            out.push(seed(format!("{folder}/{file}"), 'f'));
        }
        out.push(Seed {
            list: true,
            ..seed(folder, 'd')
        });
    };
    nagger_of(&root, &mut out);
    settings_of(&root, &mut out);
    // Another project's files, under a start point that holds them now.
    for start in starts.iter().filter(|s| **s != root) {
        let exists = |inner: &str| std::fs::symlink_metadata(format!("{start}/{inner}")).is_ok();
        if exists(".claude-nagger") {
            nagger_of(start, &mut out);
        }
        if exists(".claude") {
            settings_of(start, &mut out);
        }
    }
    if let Some(home) = home() {
        settings_of(&home, &mut out);
    }
    let state = std::env::var("XDG_STATE_HOME")
        .ok()
        .filter(|s| s.starts_with('/'))
        .map(|s| normalize(&s))
        .or_else(|| home().map(|h| format!("{h}/.local/state")));
    if let Some(state) = state {
        out.push(Seed {
            list: true,
            ..seed(format!("{state}/nagger"), 'd')
        });
        out.push(seed(format!("{state}/nagger/trusted"), 'd'));
    }
    for managed in [
        "/etc/claude-code",
        "/Library/Application Support/ClaudeCode",
    ] {
        out.push(Seed {
            list: true,
            ..seed(managed.to_owned(), 'd')
        });
        for file in ["managed-settings.json", "managed-mcp.json"] {
            out.push(seed(format!("{managed}/{file}"), 'f'));
        }
    }
    if let Some(binary) = place.binary.and_then(|b| absolute(place, b, None)) {
        out.push(Seed {
            program: true,
            ..seed(binary, 'f')
        });
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path)
            .take(MAX_PATH_DIRS)
            .filter(|d| d.is_absolute())
        {
            out.push(Seed {
                program: true,
                must_exist: true,
                ..seed(normalize(&dir.join("nagger").to_string_lossy()), 'f')
            });
        }
    }
    out
}

/// The protected paths under the start points, as they are on disk (bounded), and those
/// that are not there yet but would be protected when made.
fn candidates(place: &Place, starts: &[Start]) -> Vec<Candidate> {
    let known: Vec<&str> = starts
        .iter()
        .filter_map(|s| match s {
            Start::Known { path, .. } => Some(path.as_str()),
            Start::Computed(_) => None,
        })
        .collect();
    let mut out: Vec<Candidate> = Vec::new();
    let mut seen = HashSet::new();
    let mut listed = 0;
    let mut push = |out: &mut Vec<Candidate>, c: Candidate| {
        if out.len() < MAX_CANDIDATES && seen.insert(c.path.clone()) {
            out.push(c);
        }
    };
    for seed in seeds(place, &known) {
        if !starts.iter().any(|s| s.holds(&seed.path)) {
            continue;
        }
        let on_disk = std::fs::symlink_metadata(&seed.path).ok();
        if seed.must_exist && on_disk.is_none() {
            continue;
        }
        if (place.protected)(&seed.path).is_none() && !seed.program {
            continue;
        }
        let kind = on_disk
            .as_ref()
            .map_or(Some(seed.kind), |m| Some(kind_of(m.file_type())));
        push(
            &mut out,
            Candidate {
                path: seed.path.clone(),
                kind,
                program: seed.program,
            },
        );
        if seed.list && on_disk.is_some_and(|m| m.is_dir()) {
            list(place, &seed.path, 1, &mut listed, &mut |c| {
                push(&mut out, c);
            });
        }
    }
    // A start inside the protected set (`.claude-nagger/logs`): itself and what it holds.
    for start in known {
        if (place.protected)(start).is_none() {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(start) else {
            continue;
        };
        push(
            &mut out,
            Candidate {
                path: start.to_owned(),
                kind: Some(kind_of(meta.file_type())),
                program: false,
            },
        );
        if meta.is_dir() {
            list(place, start, 1, &mut listed, &mut |c| push(&mut out, c));
        }
    }
    out
}

fn kind_of(file_type: std::fs::FileType) -> char {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_symlink() {
        'l'
    } else if file_type.is_dir() {
        'd'
    } else if file_type.is_file() {
        'f'
    } else if file_type.is_fifo() {
        'p'
    } else if file_type.is_socket() {
        's'
    } else if file_type.is_block_device() {
        'b'
    } else {
        'c'
    }
}

/// The protected entries of the folder `dir`, bounded, never following a link or opening
/// anything but a folder.
fn list(
    place: &Place,
    dir: &str,
    depth: usize,
    listed: &mut usize,
    push: &mut dyn FnMut(Candidate),
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if *listed >= MAX_LISTED {
            return;
        }
        *listed += 1;
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        let path = format!("{dir}/{}", entry.file_name().to_string_lossy());
        if (place.protected)(&path).is_none() {
            continue;
        }
        push(Candidate {
            path: path.clone(),
            kind: Some(kind_of(file_type)),
            program: false,
        });
        if file_type.is_dir() && depth < MAX_LIST_DEPTH {
            list(place, &path, depth + 1, listed, push);
        }
    }
}

/// One file or folder find visits on its way to a protected path.
struct Node {
    /// As find shows it (what `{}` and `-path` see); `None` when only known when the shell
    /// runs.
    shown: Option<String>,
    /// Absolute.
    path: String,
    name: String,
    depth: Option<usize>,
    kind: Option<char>,
}

/// What is left of one expression evaluated on one node: how surely each action runs,
/// how surely the node is pruned, and the tests it could not decide.
struct Eval<'e> {
    node: &'e Node,
    follow: bool,
    reached: Vec<Tri>,
    pruned: Tri,
    unsure: Vec<String>,
}

impl Eval<'_> {
    fn note(&mut self, reach: Tri, why: &str) {
        if reach != Tri::False && self.unsure.len() < 3 && !self.unsure.iter().any(|u| u == why) {
            self.unsure.push(why.to_owned());
        }
    }

    fn eval(&mut self, expr: &Expr, line: &Line, reach: Tri) -> Tri {
        match expr {
            Expr::And(a, b) => {
                let left = self.eval(a, line, reach);
                let right = self.eval(b, line, reach.and(left));
                left.and(right)
            }
            Expr::Or(a, b) => {
                let left = self.eval(a, line, reach);
                let right = self.eval(b, line, reach.and(left.not()));
                left.or(right)
            }
            Expr::List(a, b) => {
                self.eval(a, line, reach);
                self.eval(b, line, reach)
            }
            Expr::Not(a) => self.eval(a, line, reach).not(),
            Expr::Prune => {
                self.pruned = self.pruned.or(reach);
                Tri::True
            }
            Expr::Act(k) => {
                self.reached[*k] = self.reached[*k].or(reach);
                match &line.actions[*k] {
                    Action::Run { .. } => {
                        let why = format!("the result of `{}`", line.actions[*k].display());
                        self.note(reach, &why);
                        Tri::Unknown
                    }
                    Action::Delete => Tri::True,
                }
            }
            Expr::Test(test) => {
                let (value, why) = self.test(test);
                if value == Tri::Unknown {
                    self.note(reach, &why);
                }
                value
            }
        }
    }

    fn test(&self, test: &Test) -> (Tri, String) {
        let node = self.node;
        match test {
            Test::Const(value) => (Tri::of(*value), String::new()),
            Test::Name { pattern, fold } if pattern.len() <= MAX_PATTERN => {
                match glob(pattern, &node.name, *fold) {
                    Some(hit) => (Tri::of(hit), String::new()),
                    None => (Tri::Unknown, format!("`-name {pattern}`")),
                }
            }
            Test::Path { pattern, fold } if pattern.len() <= MAX_PATTERN => {
                match node
                    .shown
                    .as_deref()
                    .map(|shown| glob(pattern, shown, *fold))
                {
                    Some(Some(hit)) => (Tri::of(hit), String::new()),
                    _ => (Tri::Unknown, format!("`-path {pattern}`")),
                }
            }
            Test::Regex(Some(re), word) => match &node.shown {
                Some(shown) => (Tri::of(re.is_match(shown)), String::new()),
                None => (Tri::Unknown, format!("`{word}`")),
            },
            Test::Regex(None, word) => (
                Tri::Unknown,
                format!("`{word}`, a regex nagger does not read"),
            ),
            Test::Type { letters, xtype } => {
                let word = if *xtype { "-xtype" } else { "-type" };
                let kind = match node.kind {
                    Some('l') if *xtype || self.follow => None,
                    other => other,
                };
                match kind {
                    Some(k) => (
                        Tri::of(letters.split(',').any(|l| l == k.to_string())),
                        String::new(),
                    ),
                    None => (Tri::Unknown, format!("`{word} {letters}`")),
                }
            }
            Test::Unknown(word) => (Tri::Unknown, format!("`{word}`")),
            Test::Name { pattern, .. } | Test::Path { pattern, .. } => (
                Tri::Unknown,
                format!("a pattern of {} characters", pattern.len()),
            ),
        }
    }
}

/// What find does to one protected path.
enum Outcome {
    Sure(String),
    Unsure(String),
}

/// How an `-exec` program touches a node: not at all, perhaps, or surely.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    No,
    Maybe,
    Yes,
}

struct Judging<'p> {
    place: &'p Place<'p>,
    line: &'p Line,
    /// The folder find runs in, absolute, when known.
    base: Option<&'p str>,
    /// `-exec` programs already read: (action, node, whether the node is the protected
    /// path itself) → their effect.
    runs: HashMap<(usize, String, bool), Effect>,
}

/// The strongest change the actions reached on one node make to a protected path.
struct Change {
    /// The action, by its index.
    action: usize,
    /// Reached for certain, and changes it for certain.
    sure: bool,
    /// The program's effect is what is not known (rather than whether it runs).
    program_unknown: bool,
}

impl Judging<'_> {
    /// What find does to `candidate` from `start`, when it reaches it with a change.
    fn candidate(&mut self, start: &Start, candidate: &Candidate) -> Option<Outcome> {
        let what = (self.place.protected)(&candidate.path).unwrap_or("nagger's own files");
        match start {
            Start::Known { shown, path, real } => {
                let from = [Some(path), real.as_ref()]
                    .into_iter()
                    .flatten()
                    .find(|at| under(&candidate.path, at))?;
                let chain = chain(shown, from, candidate)?;
                let target = chain.last()?.shown.clone().unwrap_or_default();
                let mut visited = Tri::True;
                let mut unsure: Option<String> = None;
                for (i, node) in chain.iter().enumerate() {
                    if self.line.max_depth.is_some_and(|max| i > max) {
                        break;
                    }
                    let evaluated = i >= self.line.min_depth;
                    let reach = if evaluated { visited } else { Tri::False };
                    let eval = self.evaluate(node, reach);
                    let last = i + 1 == chain.len();
                    if let Some(change) = self.change(&eval, node, last, candidate) {
                        let harm = self.tell(&change, &eval, node, last, &target, what);
                        if change.sure {
                            return Some(Outcome::Sure(harm));
                        }
                        unsure.get_or_insert(harm);
                    }
                    if node.kind == Some('d') && !self.line.depth_first && evaluated {
                        visited = visited.and(eval.pruned.not());
                    }
                    if visited == Tri::False {
                        break;
                    }
                }
                unsure.map(Outcome::Unsure)
            }
            Start::Computed(word) => {
                // The start may be any folder above it: each is evaluated, its depth and
                // the path find shows not known.
                let mut at = candidate.path.as_str();
                let mut last = true;
                for _ in 0..MAX_CHAIN {
                    let node = Node {
                        shown: None,
                        path: at.to_owned(),
                        name: basename(at).to_owned(),
                        depth: None,
                        kind: if last { candidate.kind } else { Some('d') },
                    };
                    let eval = self.evaluate(&node, Tri::Unknown);
                    if let Some(change) = self.change(&eval, &node, last, candidate) {
                        let act = self.line.actions[change.action].display();
                        return Some(Outcome::Unsure(format!(
                            "may change `{}`, {what}: it starts at {word}, only known when the \
                             shell runs, and its `{act}` can reach it",
                            candidate.path
                        )));
                    }
                    match at.rsplit_once('/') {
                        Some(("", _)) | None => break,
                        Some((up, _)) => at = up,
                    }
                    last = false;
                }
                None
            }
        }
    }

    fn evaluate<'n>(&self, node: &'n Node, reach: Tri) -> Eval<'n> {
        let mut eval = Eval {
            node,
            follow: self.line.follow,
            reached: vec![Tri::False; self.line.actions.len()],
            pruned: Tri::False,
            unsure: Vec::new(),
        };
        let bounded = self.line.max_depth.is_some() || self.line.min_depth > 0;
        let reach = if node.depth.is_none() && bounded {
            eval.note(reach, "its depth below the start");
            reach.and(Tri::Unknown)
        } else {
            reach
        };
        eval.eval(&self.line.expr, self.line, reach);
        eval
    }

    /// The strongest change the actions reached on `node` make to `candidate` (`node`
    /// itself when `last`, else a folder above it).
    fn change(
        &mut self,
        eval: &Eval,
        node: &Node,
        last: bool,
        candidate: &Candidate,
    ) -> Option<Change> {
        let mut best: Option<Change> = None;
        for (k, action) in self.line.actions.iter().enumerate() {
            let reach = eval.reached[k];
            if reach == Tri::False {
                continue;
            }
            let effect = match action {
                // A folder goes only when empty: what it held is judged on its own.
                Action::Delete if last && node.kind != Some('d') => Effect::Yes,
                Action::Delete => Effect::No,
                Action::Run { .. } => self.run_effect(k, node, last, candidate),
            };
            let change = match (reach, effect) {
                (_, Effect::No) => continue,
                (Tri::True, Effect::Yes) => {
                    return Some(Change {
                        action: k,
                        sure: true,
                        program_unknown: false,
                    });
                }
                (_, effect) => Change {
                    action: k,
                    sure: false,
                    program_unknown: effect == Effect::Maybe,
                },
            };
            best.get_or_insert(change);
        }
        best
    }

    /// The harm of `change` in words.
    fn tell(
        &self,
        change: &Change,
        eval: &Eval,
        node: &Node,
        last: bool,
        target: &str,
        what: &str,
    ) -> String {
        let action = &self.line.actions[change.action];
        let act = action.display();
        let node_shown = node.shown.as_deref().unwrap_or(&node.path);
        if change.sure {
            return match (action, last) {
                (Action::Delete, _) => {
                    format!("deletes `{target}`, which its expression reaches, {what}")
                }
                (_, true) => {
                    format!("runs `{act}` on `{target}`, which its expression reaches, {what}")
                }
                (_, false) => format!(
                    "runs `{act}` on `{node_shown}`, which its expression reaches, and so \
                     changes `{target}` inside it, {what}"
                ),
            };
        }
        let verb = if matches!(action, Action::Delete) {
            "delete"
        } else {
            "change"
        };
        let through = if last {
            String::new()
        } else {
            format!(" through `{node_shown}`")
        };
        if change.program_unknown {
            format!(
                "may {verb} `{target}`, {what}: its expression reaches it{through} with \
                 `{act}`, whose effect on it cannot be followed"
            )
        } else {
            let tests = if eval.unsure.is_empty() {
                "its tests".to_owned()
            } else {
                eval.unsure.join(", ")
            };
            format!(
                "may {verb} `{target}`, {what}: its expression reaches it{through} with \
                 `{act}` depending on {tests}, which only the files on disk tell"
            )
        }
    }

    /// What the program of action `k` does to `node` (with `{}` filled in): changes it,
    /// perhaps, or not. Above the protected path (`last` false) only a change of the
    /// whole tree counts (`rm -r`, `mv`, `chmod -R`).
    fn run_effect(&mut self, k: usize, node: &Node, last: bool, candidate: &Candidate) -> Effect {
        let key = (k, node.path.clone(), last);
        if let Some(effect) = self.runs.get(&key) {
            return *effect;
        }
        let effect = if self.runs.len() >= MAX_RUNS {
            Effect::Maybe
        } else {
            self.read_run(k, node, last, candidate)
        };
        self.runs.insert(key, effect);
        effect
    }

    fn read_run(&self, k: usize, node: &Node, last: bool, candidate: &Candidate) -> Effect {
        let Action::Run { argv, in_dir, .. } = &self.line.actions[k] else {
            return Effect::No;
        };
        // `-execdir` runs from the node's folder with `./name`.
        let (filled, base) = if *in_dir {
            let parent = match node.path.rsplit_once('/') {
                Some(("", _)) | None => "/",
                Some((parent, _)) => parent,
            };
            (format!("./{}", node.name), Some(parent.to_owned()))
        } else {
            match &node.shown {
                Some(shown) => (shown.clone(), self.base.map(str::to_owned)),
                None => (node.path.clone(), None),
            }
        };
        let text = argv
            .iter()
            .map(|w| shell_quote(&w.replace("{}", &filled)))
            .collect::<Vec<_>>()
            .join(" ");
        let parsed = shell::parse(&text);
        if parsed.too_deep || parsed.truncated {
            return Effect::Maybe;
        }
        let is_node = |p: &str| {
            normalize(p) == normalize(&filled)
                || resolved(self.place, p, base.as_deref()).is_some_and(|full| full == node.path)
        };
        let mut effect = Effect::No;
        for run in &parsed.commands {
            let name = run.name();
            if run.argv.first().is_some_and(|p| p.contains(['$', '`'])) {
                effect = Effect::Maybe;
            }
            let handed = run.args().iter().any(|a| is_node(a));
            if handed
                && ((is_shell(name) && shell_c_script(&run.argv).is_none())
                    || matches!(name, "find" | "gfind"))
            {
                // A script file, or another find, given the path.
                effect = Effect::Maybe;
            }
            for path in (self.place.changed)(run) {
                if !is_node(&path) {
                    if path.contains(['$', '`']) {
                        effect = Effect::Maybe;
                    }
                    continue;
                }
                let access = node.kind == Some('d') || candidate.program;
                if name == "rmdir"
                    || (name == "chmod" && keeps_access(run.args(), access))
                    || (!last && !whole_tree(run))
                {
                    continue;
                }
                if is_interpreter(name) && !is_shell(name) && !edits_in_place(run) {
                    // What a program does with a file it is handed cannot be known.
                    effect = Effect::Maybe;
                    continue;
                }
                return Effect::Yes;
            }
        }
        effect
    }
}

/// `perl -pi`, `ruby -i.bak`: an interpreter editing the files it is given.
fn edits_in_place(run: &SimpleCommand) -> bool {
    matches!(run.name(), "perl" | "ruby")
        && run
            .args()
            .iter()
            .any(|a| short_cluster(a).is_some_and(|f| f.contains('i')))
}

/// `path` absolute, when it is: a relative path needs the folder it is relative to.
fn resolved(place: &Place, path: &str, base: Option<&str>) -> Option<String> {
    let relative = !(path.starts_with(['/', '~']) || path.starts_with('$'));
    if relative && base.is_none() {
        return None;
    }
    absolute(place, path, base)
}

/// The folders find passes from the start `shown` (absolute `from`) down to `candidate`,
/// each with its depth, as find shows it.
fn chain(shown: &str, from: &str, candidate: &Candidate) -> Option<Vec<Node>> {
    let rest = if from == "/" {
        candidate.path.strip_prefix('/')?
    } else {
        candidate
            .path
            .strip_prefix(from)?
            .strip_prefix('/')
            .unwrap_or("")
    };
    let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
    if parts.len() >= MAX_CHAIN {
        return None;
    }
    let trimmed = shown.trim_end_matches('/');
    let start_name = if trimmed.is_empty() {
        "/"
    } else {
        basename(trimmed)
    };
    let mut nodes = vec![Node {
        shown: Some(shown.to_owned()),
        path: from.to_owned(),
        name: start_name.to_owned(),
        depth: Some(0),
        kind: if parts.is_empty() {
            candidate.kind
        } else {
            Some('d')
        },
    }];
    let mut shown_at = shown.to_owned();
    let mut path_at = from.to_owned();
    for (i, part) in parts.iter().enumerate() {
        if !shown_at.ends_with('/') {
            shown_at.push('/');
        }
        shown_at.push_str(part);
        if !path_at.ends_with('/') {
            path_at.push('/');
        }
        path_at.push_str(part);
        nodes.push(Node {
            shown: Some(shown_at.clone()),
            path: path_at.clone(),
            name: (*part).to_owned(),
            depth: Some(i + 1),
            kind: if i + 1 == parts.len() {
                candidate.kind
            } else {
                Some('d')
            },
        });
    }
    Some(nodes)
}

/// Whether a program changes a whole folder, contents and all: moves it, or acts on it
/// recursively.
fn whole_tree(run: &SimpleCommand) -> bool {
    matches!(
        run.name(),
        "mv" | "trash" | "trash-put" | "gio" | "rsync" | "ditto"
    ) || has_flag(run.args(), "rR", &["recursive"])
}

/// Whether `chmod`'s mode leaves the owner reading and writing (and entering a folder or
/// running the program, `exec`): `644`, `u+rw`, `go-w`, `a+X` do; `000`, `-r`, `u=r` do not.
fn keeps_access(args: &[String], exec: bool) -> bool {
    let mut mode = None;
    for arg in args {
        if arg.starts_with("--") {
            if arg.starts_with("--reference") {
                return false;
            }
            continue;
        }
        if let Some(flags) = arg.strip_prefix('-')
            && !flags.is_empty()
            && flags.chars().all(|c| "RfvchHLP".contains(c))
        {
            continue;
        }
        mode = Some(arg.as_str());
        break;
    }
    let Some(mode) = mode else {
        return false;
    };
    if !mode.is_empty() && mode.len() <= 4 && mode.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        let value = u32::from_str_radix(mode, 8).unwrap_or(0);
        let owner = (value >> 6) & 7;
        return owner & 6 == 6 && (!exec || owner & 1 == 1);
    }
    mode.split(',').all(|clause| {
        let who: String = clause.chars().take_while(|c| "ugoa".contains(*c)).collect();
        let owner = who.is_empty() || who.contains(['u', 'a']);
        let mut ops = clause[who.len()..].chars().peekable();
        let mut ok = true;
        while let Some(op) = ops.next() {
            let mut perms = String::new();
            while let Some(p) = ops.next_if(|c| !matches!(c, '+' | '-' | '=')) {
                perms.push(p);
            }
            if perms.chars().any(|p| !"rwxXst".contains(p)) {
                return false;
            }
            ok &= match op {
                '+' => true,
                '-' => {
                    !owner || !(perms.contains(['r', 'w']) || (exec && perms.contains(['x', 'X'])))
                }
                '=' => {
                    !owner
                        || (perms.contains('r')
                            && perms.contains('w')
                            && (!exec || perms.contains(['x', 'X'])))
                }
                _ => false,
            };
        }
        ok && clause.len() > who.len()
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::finding::operands;
    use super::super::super::verdict::Severity;
    use super::*;

    /// A stand-in for the protected set: `.claude-nagger` and all in it, `.claude`, its
    /// settings files, nagger's state folder.
    fn protected_here(path: &str) -> Option<&'static str> {
        let parts: Vec<&str> = path.split('/').collect();
        if parts.contains(&".claude-nagger") || path.contains("/.local/state/nagger") {
            return Some("nagger's files");
        }
        match parts.as_slice() {
            [.., ".claude"] => Some("the settings folder"),
            [.., ".claude", "settings.json" | "settings.local.json"] => Some("the settings"),
            _ => None,
        }
    }

    /// A stand-in for what programs change: deleters, mode changers and `touch` their
    /// operands, `mv` its sources, `sed -i` its files, interpreters every operand, and
    /// every redirection target.
    fn changed_here(run: &SimpleCommand) -> Vec<String> {
        let args = run.args();
        let ops = operands(args);
        let mut out = run.writes_to.clone();
        match run.name() {
            "rm" | "rmdir" | "chmod" | "truncate" | "touch" | "shred" => {
                out.extend(ops.iter().map(|s| (*s).to_owned()));
            }
            "mv" => out.extend(
                ops[..ops.len().saturating_sub(1)]
                    .iter()
                    .map(|s| (*s).to_owned()),
            ),
            "sed" if args.iter().any(|a| a == "-i") => {
                out.extend(ops.iter().skip(1).map(|s| (*s).to_owned()));
            }
            "python3" => out.extend(ops.iter().map(|s| (*s).to_owned())),
            _ => {}
        }
        out
    }

    fn answer_in(root: &Path, cwd: Option<&str>, line: &str) -> Option<(Severity, String)> {
        let parsed = shell::parse(line);
        let command = parsed
            .commands
            .iter()
            .find(|c| c.name() == "find")
            .expect("a find");
        let refuse = |harm: &str| Finding::deny("guard:self-protect", harm.to_owned(), "");
        let place = Place {
            root,
            cwd,
            binary: None,
            dot_names: false,
            protected: &protected_here,
            judge: &protected_here,
            changed: &changed_here,
            refuse: &refuse,
            holds: &|dir| root.starts_with(dir),
        };
        reached(command, &place).map(|f| (f.severity, f.harm))
    }

    fn told(line: &str) -> Option<(Severity, String)> {
        answer_in(Path::new("/nonexistent/proj"), Some(""), line)
    }

    fn answer(line: &str) -> Option<Severity> {
        answer_in(Path::new("/nonexistent/proj"), Some(""), line).map(|(s, _)| s)
    }

    fn node(shown: &str, kind: char) -> Node {
        Node {
            shown: Some(shown.to_owned()),
            path: format!("/p/{shown}"),
            name: basename(shown).to_owned(),
            depth: Some(shown.matches('/').count()),
            kind: Some(kind),
        }
    }

    /// How surely each action of `expr` runs on `node`.
    fn reach(expr: &str, node: &Node) -> Vec<Tri> {
        let args: Vec<String> = expr.split(' ').map(str::to_owned).collect();
        let line = parse(&args);
        let mut eval = Eval {
            node,
            follow: false,
            reached: vec![Tri::False; line.actions.len()],
            pruned: Tri::False,
            unsure: Vec::new(),
        };
        eval.eval(&line.expr, &line, Tri::True);
        eval.reached
    }

    #[test]
    fn the_command_line_is_read_as_find_reads_it() {
        let words = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
        let line = parse(&words("-L a b -maxdepth 2 ( -name x -o -name y ) -delete"));
        assert_eq!(line.starts, ["a", "b"]);
        assert!(line.follow);
        assert_eq!(line.max_depth, Some(2));
        assert!(line.depth_first, "-delete implies -depth");
        assert_eq!(line.actions.len(), 1);
        let line = parse(&words("-name x -exec rm {} ; -o -exec mv {} + -fprint out"));
        assert_eq!(line.starts, ["."]);
        assert!(!line.depth_first);
        assert!(
            matches!(&line.actions[1], Action::Run { batch: true, argv, .. } if argv == &["mv", "{}"])
        );
        assert_eq!(line.writes, [("-fprint".to_owned(), "out".to_owned())]);
        // `+` only ends the program right after `{}`.
        let line = parse(&words("-exec sh -c x + {} ;"));
        assert!(
            matches!(&line.actions[0], Action::Run { batch: false, argv, .. } if argv.len() == 5)
        );
        // What cannot be read: every action may run.
        for broken in [
            "-bogus x -delete",
            "( -name x -delete",
            "-name",
            "-exec rm {}",
            "-name x -o",
        ] {
            let line = parse(&words(broken));
            let shown = format!("{:?}", line.expr);
            assert!(shown.contains("cannot read"), "{broken}: {shown}");
        }
    }

    #[test]
    fn operators_bind_as_in_find() {
        let a = node("./a", 'f');
        let b = node("./b", 'f');
        // `-a` binds tighter than `-o`: the action belongs to `-name b`.
        assert_eq!(reach("-name a -o -name b -delete", &a), [Tri::False]);
        assert_eq!(reach("-name a -o -name b -delete", &b), [Tri::True]);
        assert_eq!(reach("( -name a -o -name b ) -delete", &a), [Tri::True]);
        assert_eq!(reach("! -name a -delete", &a), [Tri::False]);
        assert_eq!(reach("-not -name a -delete", &b), [Tri::True]);
        // `,` evaluates both sides.
        assert_eq!(reach("-name b , -delete", &a), [Tri::True]);
        assert_eq!(reach("-false -a -delete", &a), [Tri::False]);
        assert_eq!(reach("-true -or -delete", &a), [Tri::False]);
    }

    #[test]
    fn tests_only_the_disk_answers_are_unknown() {
        let file = node("./.claude-nagger/config.toml", 'f');
        assert_eq!(reach("-mtime +30 -delete", &file), [Tri::Unknown]);
        assert_eq!(reach("-newer x -o -delete", &file), [Tri::Unknown]);
        assert_eq!(reach("-empty -name '*.pyc' -delete", &file), [Tri::False]);
        assert_eq!(reach("-type f -size +1k -delete", &file), [Tri::Unknown]);
        assert_eq!(reach("-type d -size +1k -delete", &file), [Tri::False]);
        // An -exec's result is not known: what follows it may run.
        assert_eq!(
            reach("-exec grep -q x {} ; -delete", &file),
            [Tri::True, Tri::Unknown]
        );
        assert_eq!(reach("-name '*.toml' -delete", &file), [Tri::False]);
        assert_eq!(reach("-name *.toml -delete", &file), [Tri::True]);
        assert_eq!(reach("-path ./.claude* -delete", &file), [Tri::True]);
        assert_eq!(
            reach("-regex .*/\\.claude-nagger/.* -delete", &file),
            [Tri::True]
        );
        assert_eq!(
            reach("-regex .*\\.\\(py\\|rs\\) -delete", &file),
            [Tri::False]
        );
        assert_eq!(reach("-regex .*\\(x\\)\\1 -delete", &file), [Tri::Unknown]);
        assert_eq!(
            reach(
                "-regextype posix-extended -regex .*(toml|json) -delete",
                &file
            ),
            [Tri::True]
        );
        assert_eq!(
            reach("-regextype foo -regex x -delete", &file),
            [Tri::Unknown]
        );
        assert_eq!(reach("-type f,d -delete", &file), [Tri::True]);
        assert_eq!(reach("-iname CONFIG.* -delete", &file), [Tri::True]);
    }

    #[test]
    fn globs_match_as_find_matches_them() {
        for (pattern, text, hit) in [
            ("*", ".claude", true),
            ("*.json", "settings.json", true),
            ("*claude*", "./.claude/settings.json", true),
            ("./*/settings.json", "./.claude/settings.json", true),
            ("settings.?son", "settings.json", true),
            ("[!.]*", ".claude", false),
            ("[.]c*", ".claude", true),
            ("[a-c]*", "claude", true),
            ("[[:alpha:]]*", ".x", false),
            ("\\*", "*", true),
            ("\\*", "x", false),
            ("*.pyc", ".claude", false),
            ("**a", "bba", true),
            ("[", "[", true),
        ] {
            assert_eq!(glob(pattern, text, false), Some(hit), "{pattern} {text}");
        }
        assert_eq!(glob("*SETTINGS*", "settings.json", true), Some(true));
        let long = format!("*{}b", "a".repeat(500));
        let text = "a".repeat(2000);
        assert_eq!(glob(&long, &text, false), None, "too long to tell");
    }

    #[test]
    fn changes_reached_on_protected_paths_are_refused() {
        for line in [
            "find . -name '*.toml' -delete",
            "find . -name settings.json -delete",
            "find . -path '*claude*' -exec rm {} +",
            "find . -type f -delete",
            "find .claude-nagger -type f -delete",
            "find . -mindepth 1 -delete",
            "find .claude -name '*.json' -exec rm {} \\;",
            "find . -name .claude -exec rm -rf {} +",
            "find . -maxdepth 1 -name '.c*' -exec rm -rf {} +",
            "find . -name settings.json -exec truncate -s0 {} \\;",
            "find . -name config.toml -exec sed -i s/a/b/ {} +",
            "find . -name settings.json -exec mv {} /tmp \\;",
            "find . -type f -exec chmod 000 {} +",
            "find . -name config.toml -exec sh -c 'rm \"$1\"' _ {} \\;",
            "find . -name config.toml -exec sh -c 'rm {}' \\;",
            "find . -name settings.json -execdir rm {} +",
            "find . -name '*.json' -exec sudo rm -f {} +",
            "find .c* -name '*.json' -delete",
            "find . -fprint .claude/settings.json",
            "find .. -name proj -exec rm -rf {} +",
            "find / -path '/nonexistent/proj/.claude*' -delete",
            "find . ! -name '*.py' -delete",
            "find . -name '*.py' -o -delete",
        ] {
            assert_eq!(answer(line), Some(Severity::Deny), "{line}");
        }
    }

    #[test]
    fn changes_that_depend_on_the_disk_are_asked_about() {
        for line in [
            "find . -newer x -delete",
            "find . -empty -delete",
            "find . -mtime +30 -exec rm {} \\;",
            "find . -type f -size 0 -delete",
            "find . -user root -exec chmod 000 {} +",
            "find . -exec test -s {} \\; -delete",
            "find \"$DIR\" -type f -delete",
            "find $(pwd) -name '*.toml' -delete",
            "find . -name '*.json' -exec sh -c 'for f; do rm \"$f\"; done' _ {} +",
            "find . -name '*.json' -exec python3 fix.py {} \\;",
            "find . -name '*.toml' -exec bash tidy.sh {} \\;",
            // -delete implies -depth: -prune does not keep it out.
            "find . -path ./.claude -prune -o -mtime +1 -delete",
            "find . -bogus x -delete",
            "echo . | xargs -I{} find {} -type f -delete",
            "find -files0-from list -name '*.toml' -delete",
        ] {
            assert_eq!(answer(line), Some(Severity::Ask), "{line}");
        }
    }

    #[test]
    fn searches_that_leave_protected_paths_alone_pass() {
        for line in [
            "find . -name '*.pyc' -delete",
            "find src -name '*.o' -delete",
            "find . -name node_modules -prune -exec rm -rf {} +",
            "find . -type f -name '*.log' -exec cat {} \\;",
            "find . -name '*.rs' -exec grep -l foo {} +",
            "find . -empty -type d -delete",
            "find . -type d -exec chmod 755 {} +",
            "find . -type f -exec chmod 644 {} \\;",
            "find . -type f -exec chmod u+rw,go-w {} +",
            "find . -type d -empty -exec rmdir {} +",
            "find . -maxdepth 1 -name settings.json -delete",
            "find . -path ./.claude -prune -o -path ./.claude-nagger -prune -o -type f -exec rm {} +",
            "find . -not -path './.claude*' -type f -delete",
            "find /tmp/x -delete",
            "find build -name settings.json -delete",
            "find \"$DIR\" -name '*.o' -delete",
            "find . -name '*.json' -exec cp {} /tmp/ \\;",
            "find . -name '*.json' -exec sh -c 'echo \"$1\"' _ {} \\;",
            "find . -type f -print",
            "find . -fprint /tmp/list -name '*.pyc'",
            "find . -maxdepth 0 -exec rm {} +",
            "find * -name settings.json -delete",
        ] {
            assert_eq!(answer(line), None, "{line}");
        }
    }

    #[test]
    fn depth_and_the_start_point_decide_what_is_reached() {
        assert_eq!(
            answer("find .claude -maxdepth 1 -name settings.json -delete"),
            Some(Severity::Deny)
        );
        assert_eq!(
            answer("find . -maxdepth 2 -name settings.json -delete"),
            Some(Severity::Deny)
        );
        assert_eq!(
            answer("find . -mindepth 3 -name settings.json -delete"),
            None
        );
        assert_eq!(
            answer("find .claude -mindepth 1 -maxdepth 1 -type f -delete"),
            Some(Severity::Deny)
        );
        // From another folder the same paths show differently.
        let root = Path::new("/nonexistent/proj");
        let from_src = answer_in(
            root,
            Some("src"),
            "find .. -path ../.claude/settings.json -delete",
        );
        assert_eq!(from_src.map(|(s, _)| s), Some(Severity::Deny));
        assert_eq!(answer_in(root, Some("src"), "find . -type f -delete"), None);
        // A folder only known when the shell runs: asked about when it can reach them.
        assert_eq!(
            answer_in(root, None, "find . -name settings.json -delete").map(|(s, _)| s),
            Some(Severity::Ask)
        );
        assert_eq!(answer_in(root, None, "find . -name '*.pyc' -delete"), None);
        let (_, harm) = told("find . -name settings.json -delete").expect("refused");
        assert!(harm.contains("`./.claude/settings.json`"), "{harm}");
        let (_, harm) =
            told("find . -maxdepth 1 -name .claude -exec rm -rf {} +").expect("refused");
        assert!(harm.contains("`./.claude`"), "{harm}");
        let (_, harm) = told("find . -mtime +3 -delete").expect("asked");
        assert!(harm.contains("`-mtime +3`"), "{harm}");
    }

    #[test]
    fn a_pruned_folder_keeps_find_out_of_it() {
        let line = "find . -name .claude -prune -o -type f -exec rm {} +";
        let (_, harm) = told(line).expect(".claude-nagger's files are reached");
        assert!(harm.contains(".claude-nagger"), "{harm}");
        assert_eq!(
            answer("find . \\( -name .claude -o -name .claude-nagger \\) -prune -o -exec rm {} +"),
            None
        );
        // Pruning under an unknown test: perhaps reached.
        assert_eq!(
            answer("find . -newer x -prune -o -type f -exec rm {} +"),
            Some(Severity::Ask)
        );
        // -depth makes -prune stop nothing.
        assert_eq!(
            answer(
                "find . -depth \\( -name .claude -o -name .claude-nagger \\) -prune -o -exec rm {} +"
            ),
            Some(Severity::Deny)
        );
    }

    #[test]
    fn nagger_folder_is_listed_on_disk_bounded() {
        let project = tempfile::tempdir().expect("a project");
        let root = project.path();
        std::fs::create_dir_all(root.join(".claude-nagger/logs")).expect("folders");
        std::fs::write(root.join(".claude-nagger/extra.yaml"), "x").expect("a file");
        std::fs::write(root.join(".claude-nagger/logs/a.log"), "x").expect("a log");
        std::fs::create_dir_all(root.join("sub/.claude")).expect("another project");
        let fifo = root.join(".claude-nagger/pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        let at = Some("");
        let deny = Some(Severity::Deny);
        let ask = |line: &str| answer_in(root, at, line).map(|(s, _)| s);
        assert_eq!(ask("find . -name '*.yaml' -delete"), deny);
        assert_eq!(ask("find . -name '*.log' -delete"), deny);
        assert_eq!(ask("find .claude-nagger/logs -type f -delete"), deny);
        assert_eq!(ask("find sub -name settings.json -delete"), deny);
        if made.is_ok_and(|s| s.success()) {
            assert_eq!(ask("find . -type p -delete"), deny);
        }
        assert_eq!(ask("find . -name '*.yml' -delete"), None);
        // Through a link on disk to a protected folder.
        std::fs::create_dir_all(root.join(".claude/agents")).expect(".claude");
        std::fs::write(root.join(".claude/agents/x.md"), "x").expect("an agent");
        std::os::unix::fs::symlink(".claude", root.join("c")).expect("a link");
        assert_eq!(ask("find c/ -name settings.json -delete"), deny);
        assert_eq!(ask("find .claude -name '*.md' -delete"), None);
        assert_eq!(ask("find .claude/agents -type f -delete"), None);
        for k in 0..100 {
            std::fs::write(root.join(format!(".claude-nagger/f{k}")), "").expect("many");
        }
        // Past the bound the known files are still judged.
        assert_eq!(ask("find . -name config.toml -delete"), deny);
    }

    #[test]
    fn mode_changes_that_keep_access_change_nothing() {
        let args = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
        for (mode, folder) in [
            ("644", false),
            ("0600", false),
            ("755", true),
            ("-R u+rwX", true),
            ("go-w", false),
            ("a+r", false),
            ("u=rw,go=r", false),
            ("-v 2775", true),
        ] {
            assert!(keeps_access(&args(mode), folder), "{mode}");
        }
        for (mode, folder) in [
            ("000", false),
            ("444", false),
            ("644", true),
            ("-r", false),
            ("u-w", false),
            ("a=r", false),
            ("=", false),
            ("--reference=x", false),
            ("u=rw", true),
            ("a-x", true),
        ] {
            assert!(!keeps_access(&args(mode), folder), "{mode}");
        }
    }
}
