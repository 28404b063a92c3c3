//! The recipes `make` runs: its Makefile read (GNUmakefile, makefile or Makefile, `-f FILE`,
//! `-f -` from the line's here-document), its variables resolved as far as the file and
//! the command line tell, and the recipes of the goals and what they depend on handed back
//! as shell scripts. A variable or function only known when make runs leaves a shell
//! variable in its place, which the checks treat as unknown.

use std::collections::{HashMap, HashSet};

use super::super::finding::Finding;
use super::super::paths::normalize;
use super::super::programs::{feeders, printed_text};
use super::super::protect::{Cwd, resolve};
use super::super::shell::{self, Parsed};
use super::files::{Content, Ran, View, read_named};

/// Most targets whose recipes are followed from the goals.
const MAX_TARGETS: usize = 256;
/// Most levels of variables inside variables that are expanded.
const MAX_EXPANSION: usize = 16;
/// Most bytes one expansion may grow to.
const MAX_EXPANDED: usize = 64 * 1024;
/// Most `include`d Makefiles read.
const MAX_INCLUDES: usize = 8;

/// Marks a recipe line make runs even when told not to run recipes (`+cmd`).
const FORCED: char = '\u{3}';

/// How `make` was called.
#[derive(Default)]
struct Call {
    files: Vec<String>,
    dirs: Vec<String>,
    goals: Vec<String>,
    vars: HashMap<String, String>,
    /// Variables make finds in its environment (`DB=x make`, `export DB=x; make`): a
    /// Makefile's `?=` keeps them, its `=` and `:=` replace them (unless `-e`).
    env: HashMap<String, String>,
    /// `-e`: the environment's variables win over the Makefile's.
    env_first: bool,
    evals: Vec<String>,
    /// `-n`, `-q`, `-t`: recipes are printed or checked, not run.
    dry: bool,
}

/// `value` (a word of make's command line) with the shell's variables in it (`$HOME`,
/// `${PWD}`), which the shell expands before make sees the word, kept for the recipe's
/// shell to read (`$$HOME` to make), rather than read by make as its own (`$H` then
/// `OME`). Make's own references (`$(X)`) stay as they are.
fn shell_variables_kept(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '$'
            && chars
                .peek()
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == '_' || *n == '{')
        {
            out.push('$');
        }
    }
    out
}

fn read_call(args: &[String]) -> Call {
    let mut call = Call::default();
    let mut k = 0;
    let mut operands_only = false;
    while let Some(arg) = args.get(k) {
        k += 1;
        if operands_only || !arg.starts_with('-') || arg == "-" {
            match arg.split_once('=') {
                Some((name, value)) if !name.is_empty() && !name.contains('/') => {
                    let name = name.trim_end_matches([':', '?', '+', '!']);
                    call.vars
                        .insert(name.to_owned(), shell_variables_kept(value));
                }
                _ => call.goals.push(arg.clone()),
            }
            continue;
        }
        if arg == "--" {
            operands_only = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (long, None),
            };
            let mut value = || {
                value.clone().or_else(|| {
                    k += 1;
                    args.get(k - 1).cloned()
                })
            };
            match name {
                "file" | "makefile" => call.files.extend(value()),
                "directory" => call.dirs.extend(value()),
                "eval" => call.evals.extend(value()),
                "include-dir" | "what-if" | "new-file" | "assume-new" | "old-file"
                | "assume-old" => {
                    value();
                }
                "just-print" | "dry-run" | "recon" | "question" | "touch" => call.dry = true,
                "environment-overrides" => call.env_first = true,
                _ => {}
            }
            continue;
        }
        let flags = &arg[1..];
        for (pos, flag) in flags.char_indices() {
            let rest = &flags[pos + 1..];
            let mut value = || {
                if rest.is_empty() {
                    k += 1;
                    args.get(k - 1).cloned()
                } else {
                    Some(rest.to_owned())
                }
            };
            match flag {
                'f' => {
                    call.files.extend(value());
                    break;
                }
                'C' => {
                    call.dirs.extend(value());
                    break;
                }
                // `-E TEXT`: `--eval`'s short form.
                'E' => {
                    call.evals.extend(value());
                    break;
                }
                'I' | 'o' | 'W' => {
                    value();
                    break;
                }
                'j' | 'l' | 'O' => {
                    // An optional value: attached, or the next word when it is a number.
                    if rest.is_empty()
                        && flag != 'O'
                        && args.get(k).is_some_and(|n| {
                            !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                        })
                    {
                        k += 1;
                    }
                    break;
                }
                'n' | 'q' | 't' => call.dry = true,
                'e' => call.env_first = true,
                _ => {}
            }
        }
    }
    call
}

/// The recipes `make`, command `index` of `parsed`, runs in `cwd`.
pub(super) fn runs(parsed: &Parsed, index: usize, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let command = &parsed.commands[index];
    let mut call = read_call(command.args());
    call.env = environment(parsed, index);
    // `MAKEFLAGS="OUT=/x"`: make reads its options and variables from there too.
    if call.env.get("MAKEFLAGS").is_some_and(|f| f == COMPUTED) {
        out.push(Ran::Finding(crate::domain::guard::finding::Finding::ask(
            "guard:computed-command",
            "runs make with options and variables from `MAKEFLAGS`, which the line computes".into(),
            "Give make its variables on its command line, or ask the user.",
        )));
        call.env.remove("MAKEFLAGS");
    }
    if let Some(flags) = call.env.get("MAKEFLAGS").cloned() {
        for (k, word) in flags.split_whitespace().enumerate() {
            if let Some((name, value)) = word.split_once('=') {
                // The shell's variables in it stay the shell's (`OUT=$HOME`), for the
                // recipe's shell to read; make reads them as its own otherwise.
                let value = if value == COMPUTED {
                    value.to_owned()
                } else {
                    value.replace('$', "$$")
                };
                call.vars
                    .entry(name.trim_end_matches([':', '?', '+', '!']).to_owned())
                    .or_insert(value);
            } else if k == 0 && !word.starts_with('-') && word.contains(['n', 'q', 't'])
                || matches!(word, "-n" | "-q" | "-t" | "--dry-run" | "--just-print")
            {
                call.dry = true;
            } else if word == "-e" {
                call.env_first = true;
            }
        }
    }
    let mut dir = cwd.clone();
    for d in &call.dirs {
        dir = match resolve(&dir, d) {
            Some(path) => Cwd::Known(normalize(&path)),
            None => return,
        };
    }
    let mut texts: Vec<(String, String)> = Vec::new();
    if call.files.is_empty() {
        for name in ["GNUmakefile", "makefile", "Makefile"] {
            let content = files.read(&dir, name);
            if !matches!(content, Content::Absent) {
                let shown = shown_path(&call.dirs, name);
                texts.extend(read_named(content, &shown, out));
                break;
            }
        }
    }
    // `MAKEFILES=rules.mk make`: files make reads before the others, from its
    // environment.
    // Set earlier on the line (`export MAKEFILES=x; make`) too; set to a value the line
    // does not show, which files it names is not known.
    let mut from_env: Vec<String> = command
        .env
        .iter()
        .filter_map(|e| e.strip_prefix("MAKEFILES="))
        .chain(call.vars.get("MAKEFILES").map(String::as_str))
        .flat_map(str::split_whitespace)
        .map(str::to_owned)
        .collect();
    for set in parsed.assignments.iter().filter(|a| a.name == "MAKEFILES") {
        match &set.value {
            Some(value) => from_env.extend(value.split_whitespace().map(str::to_owned)),
            None => out.push(Ran::Finding(crate::domain::guard::finding::Finding::ask(
                "guard:unseen-script",
                "runs the Makefiles `MAKEFILES` names, set to a value the line computes".into(),
                "Name the Makefile with `-f`, so it can be read.",
            ))),
        }
    }
    for file in from_env.iter().chain(&call.files) {
        if file == "-" || file == "/dev/stdin" {
            // `make -f - <<EOF`, `printf 'all:\n\t…' | make -f -`.
            let mut stdin = command.stdin_texts.clone();
            for j in feeders(parsed, index) {
                let feeder = &parsed.commands[j];
                if matches!(feeder.name(), "echo" | "printf") {
                    stdin.push(printed_text(feeder));
                }
            }
            texts.extend(
                stdin
                    .into_iter()
                    .map(|t| (t, "the Makefile on standard input".to_owned())),
            );
        } else {
            let file = &super::values::with_line_values(parsed, index, file);
            if !super::files::unresolved(file, out) {
                let shown = shown_path(&call.dirs, file);
                texts.extend(read_named(files.read(&dir, file), &shown, out));
            }
        }
    }
    if texts.is_empty() && call.evals.is_empty() {
        return;
    }
    let mut text = String::new();
    let mut via = Vec::new();
    for (t, v) in texts {
        text.push_str(&t);
        text.push('\n');
        via.push(v);
    }
    for e in &call.evals {
        text.push_str(e);
        text.push('\n');
    }
    // `make --eval 'x:;@…'`, `make -f - <<EOF`: the rules are the line's own text.
    if !call.evals.is_empty()
        || from_env
            .iter()
            .chain(&call.files)
            .any(|f| f == "-" || f == "/dev/stdin")
    {
        files.mark_fresh();
    }
    let via = if via.is_empty() {
        "`make --eval`".to_owned()
    } else {
        via.join(" and ")
    };
    judge(&text, &via, &call, &dir, files, out);
}

/// The variables the line puts in the environment of command `index` (see
/// [`super::values::environment`]), with one the line computes (`OUT="$(dirname
/// "$PWD")" make`) standing as computed.
fn environment(parsed: &Parsed, index: usize) -> HashMap<String, String> {
    super::values::environment(parsed, index)
        .into_iter()
        .map(|(name, value)| {
            let value = if value.contains("$(") || value.contains('`') {
                COMPUTED.to_owned()
            } else {
                value
            };
            (name, value)
        })
        .collect()
}

/// A Makefile run by its `#!/usr/bin/make -f` line, with `args`.
pub(super) fn from_text(
    text: &str,
    via: &str,
    args: &[String],
    cwd: &Cwd,
    files: &View,
    out: &mut Vec<Ran>,
) {
    judge(text, via, &read_call(args), cwd, files, out);
}

fn shown_path(dirs: &[String], name: &str) -> String {
    if dirs.is_empty() || name.starts_with('/') {
        return name.to_owned();
    }
    normalize(&format!("{}/{name}", dirs.join("/")))
}

/// The recipes that running `call` on Makefile `text` runs in `dir`, pushed onto `out`.
fn judge(text: &str, via: &str, call: &Call, dir: &Cwd, files: &View, out: &mut Vec<Ran>) {
    // `make -n`, `-q`, `-t` run no recipe line but those marked `+` and those that run
    // `$(MAKE)`; the Makefile's `$(shell …)` runs as it is read, whatever the options.
    let mut makefile = Makefile::default();
    makefile.read(text);
    let mut includes = 0;
    while let Some(line) = makefile.includes.pop() {
        if includes >= MAX_INCLUDES {
            break;
        }
        let vars = Vars {
            makefile: &makefile,
            call,
            dir,
        };
        // `include $(wildcard mk/*.mk)`: every file the pattern matches.
        let line = without_wildcard(&line);
        let expanded = vars.expand(&line, &Auto::default(), 0);
        // `include conf/$(shell echo ext).mk`: a name only make's reading computes.
        if expanded.contains('$') {
            out.push(Ran::Finding(Finding::ask(
                "guard:computed-command",
                format!(
                    "includes `{}` ({via}), a Makefile whose name make computes as it reads: \
                     which file it reads, and what that runs, cannot be told now",
                    crate::base::text::one_line(&line, 120)
                ),
                "Name the included file, or ask the user.",
            )));
            continue;
        }
        let mut paths: Vec<String> = Vec::new();
        for word in expanded.split_whitespace() {
            if word.contains(['*', '?', '[']) {
                let (folder, name) = word.rsplit_once('/').unwrap_or(("", word));
                let shown = if folder.is_empty() { "." } else { folder };
                let mut matched: Vec<String> = files
                    .list(dir, shown, MAX_INCLUDES * 4)
                    .into_iter()
                    .filter(|entry| super::super::paths::wildcard(name, entry))
                    .map(|entry| {
                        if folder.is_empty() {
                            entry
                        } else {
                            format!("{folder}/{entry}")
                        }
                    })
                    .collect();
                matched.sort();
                paths.extend(matched);
            } else {
                paths.push(word.to_owned());
            }
        }
        let mut texts = Vec::new();
        for path in paths {
            if includes >= MAX_INCLUDES {
                break;
            }
            includes += 1;
            match files.read(dir, &path) {
                Content::Text { text, .. } => texts.push(text),
                // Missing, and a rule makes it: make makes it, then reads it.
                _ if !files.is_file(dir, &path) && makes(&makefile, &vars, &path) => {
                    out.push(Ran::Finding(generated(&path, "includes", via)));
                }
                _ => {}
            }
        }
        for text in texts {
            makefile.read(&text);
        }
    }
    let vars = Vars {
        makefile: &makefile,
        call,
        dir,
    };
    // `$(file >PATH,TEXT)`, `$(file >>PATH)`: make writes PATH itself as it reads the
    // Makefile (or runs a recipe holding it): judged as the shell writing it.
    for (op, path) in file_writes(text) {
        let path = vars.expand(path, &Auto::default(), 0);
        out.push(Ran::Script(
            format!(": {op} {}", shell_quote_path(&path)),
            format!("`$(file {op}…)` in {via}"),
            Some(dir.clone()),
        ));
    }
    for shell in &makefile.shells {
        let script = vars.expand(shell, &Auto::default(), 0);
        out.push(Ran::Script(
            script,
            format!("`$(shell …)` in {via}"),
            Some(dir.clone()),
        ));
    }
    let goals: Vec<String> = if call.goals.is_empty() {
        let default = makefile
            .vars
            .get(".DEFAULT_GOAL")
            .map(|v| vars.expand(v, &Auto::default(), 0))
            .filter(|g| !g.trim().is_empty())
            .or_else(|| makefile.default_goal.clone());
        default.into_iter().collect()
    } else {
        call.goals.clone()
    };
    let mut queue: Vec<String> = goals;
    queue.reverse();
    let mut seen = HashSet::new();
    while let Some(target) = queue.pop() {
        if seen.len() >= MAX_TARGETS || !seen.insert(target.clone()) {
            continue;
        }
        let explicit: Vec<&Rule> = makefile
            .rules
            .iter()
            .filter(|r| {
                r.targets
                    .iter()
                    .any(|t| vars.expand(t, &Auto::default(), 0) == target)
            })
            .collect();
        let has_recipe = explicit.iter().any(|r| !r.recipe.is_empty());
        let mut runs: Vec<(&Rule, Auto)> = Vec::new();
        let prereqs_of = |rule: &Rule, auto: &Auto| -> Vec<String> {
            rule.prereqs
                .iter()
                .flat_map(|p| {
                    vars.expand(p, auto, 0)
                        .split_whitespace()
                        .filter(|w| *w != "|")
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        let mut all_prereqs: Vec<String> = Vec::new();
        for rule in &explicit {
            let auto = Auto {
                target: Some(target.clone()),
                ..Auto::default()
            };
            all_prereqs.extend(prereqs_of(rule, &auto));
        }
        for rule in explicit {
            let auto = Auto {
                target: Some(target.clone()),
                prereqs: all_prereqs.clone(),
                stem: None,
            };
            runs.push((rule, auto));
        }
        if !has_recipe {
            // A pattern rule that makes it: `%.o: %.c`.
            if let Some((rule, stem)) = makefile.rules.iter().find_map(|r| {
                r.targets.iter().find_map(|t| {
                    let stem = matches_pattern(t, &target)?;
                    (!r.recipe.is_empty()).then_some((r, stem))
                })
            }) {
                let mut auto = Auto {
                    target: Some(target.clone()),
                    prereqs: Vec::new(),
                    stem: Some(stem.clone()),
                };
                let prereqs: Vec<String> = prereqs_of(rule, &auto)
                    .into_iter()
                    .map(|p| p.replacen('%', &stem, 1))
                    .collect();
                auto.prereqs = prereqs;
                runs.push((rule, auto));
            }
        }
        for (rule, auto) in runs {
            queue.extend(auto.prereqs.iter().rev().cloned());
            if rule.recipe.is_empty() {
                continue;
            }
            let script: Vec<String> = rule
                .recipe
                .iter()
                .filter(|line| {
                    !call.dry
                        || line.starts_with(FORCED)
                        || line.contains("$(MAKE)")
                        || line.contains("${MAKE}")
                })
                .map(|line| vars.expand(line.trim_start_matches(FORCED), &auto, 0))
                .collect();
            if script.is_empty() {
                continue;
            }
            // `sh gen.sh` where a rule of the file makes `gen.sh`: what it runs is only
            // written as make runs.
            for line in &script {
                let line = line.trim_start_matches(['@', '-', '+']);
                for command in shell::parse(line).commands {
                    let program = shell::program_file(&command.argv)
                        .map(|j| command.argv[j].clone())
                        .or_else(|| command.argv.first().filter(|a| a.contains('/')).cloned());
                    if let Some(program) = program
                        && !files.is_file(dir, &program)
                        && makes(&makefile, &vars, &program)
                    {
                        out.push(Ran::Finding(generated(&program, "runs", via)));
                    }
                }
            }
            out.push(Ran::Script(
                script.join("\n"),
                format!("the recipe for `{target}` in {via}"),
                Some(dir.clone()),
            ));
        }
    }
}

/// `text` with `$(wildcard P)` and `${wildcard P}` as the patterns `P`.
fn without_wildcard(text: &str) -> String {
    let mut out = text.to_owned();
    for open in ["$(wildcard ", "${wildcard "] {
        while let Some(at) = out.find(open) {
            let close = if open.starts_with("$(") { ')' } else { '}' };
            let Some(end) = out[at..].find(close) else {
                break;
            };
            let inner = out[at + open.len()..at + end].to_owned();
            out.replace_range(at..=at + end, &inner);
        }
    }
    out
}

/// Compilers and linkers: what they make is a compiled program, which nagger does not
/// read whenever it is made.
const COMPILERS: &[&str] = &[
    "cc", "gcc", "g++", "c++", "clang", "clang++", "ld", "lld", "rustc", "cargo", "go", "javac",
    "as", "ar", "nvcc", "zig", "swiftc", "ghc", "gfortran", "strip", "$(CC)", "$(CXX)",
];

/// Whether a rule of `makefile` makes `path` (an explicit target or a pattern one) with
/// a recipe that writes text (copies, prints, generates), not only compiles.
fn makes(makefile: &Makefile, vars: &Vars, path: &str) -> bool {
    let path = path.trim_start_matches("./");
    makefile.rules.iter().any(|r| {
        !r.recipe.is_empty()
            && !r.recipe.iter().all(|line| {
                let line = vars.expand(line, &Auto::default(), 0);
                let first = line.trim_start_matches(['@', '-', '+', ' ', '\t', FORCED]);
                let first = first.split_whitespace().next().unwrap_or("");
                COMPILERS.contains(&shell::basename(first))
            })
            && r.targets.iter().any(|t| {
                let t = vars.expand(t, &Auto::default(), 0);
                t.split_whitespace().any(|t| {
                    t.trim_start_matches("./") == path || matches_pattern(t, path).is_some()
                })
            })
    })
}

/// A file make writes from a rule of its own and then `how` (includes, runs): what it
/// holds is only known as make runs.
fn generated(path: &str, how: &str, via: &str) -> Finding {
    Finding::ask(
        "guard:computed-command",
        format!(
            "{how} `{path}` ({via}), which make writes from one of its rules as it runs: \
             what it holds then cannot be read now"
        ),
        "Build the file first, read it, then run make.",
    )
}

/// `target` against a pattern target (`%.o`, `build/%`): the stem when it matches.
fn matches_pattern(pattern: &str, target: &str) -> Option<String> {
    let (prefix, suffix) = pattern.split_once('%')?;
    let stem = target.strip_prefix(prefix)?.strip_suffix(suffix)?;
    (!stem.is_empty()).then(|| stem.to_owned())
}

/// A rule: its targets and prerequisites as written, and its recipe lines (the leading
/// tab and `@`, `-`, `+` taken off).
struct Rule {
    targets: Vec<String>,
    prereqs: Vec<String>,
    recipe: Vec<String>,
}

#[derive(Default)]
struct Makefile {
    vars: HashMap<String, String>,
    /// The variables it sets only when they are not set (`?=`).
    defaults: std::collections::HashSet<String>,
    rules: Vec<Rule>,
    default_goal: Option<String>,
    /// The texts of `$(shell …)` and `!=`: run while make reads the file.
    shells: Vec<String>,
    includes: Vec<String>,
}

impl Makefile {
    fn read(&mut self, text: &str) {
        let mut in_rule = false;
        let mut define: Option<(String, Vec<String>)> = None;
        let mut lines = text.lines();
        while let Some(first) = lines.next() {
            let mut line = first.to_owned();
            while line.ends_with('\\') && !line.ends_with("\\\\") {
                line.pop();
                match lines.next() {
                    Some(next) => {
                        line.push(' ');
                        line.push_str(next.trim_start());
                    }
                    None => break,
                }
            }
            if let Some((name, body)) = define.as_mut() {
                if line.trim() == "endef" {
                    self.vars.insert(std::mem::take(name), body.join("\n"));
                    define = None;
                } else {
                    body.push(line);
                }
                continue;
            }
            if let Some(recipe) = line.strip_prefix('\t')
                && in_rule
            {
                let bare = recipe.trim_start_matches(|c: char| {
                    matches!(c, '@' | '-' | '+') || c.is_whitespace()
                });
                let forced = recipe[..recipe.len() - bare.len()].contains('+');
                if let Some(rule) = self.rules.last_mut()
                    && !bare.is_empty()
                {
                    rule.recipe.push(if forced {
                        format!("{FORCED}{bare}")
                    } else {
                        bare.to_owned()
                    });
                }
                continue;
            }
            self.collect_shells(&line);
            let code = strip_comment(&line);
            let trimmed = code.trim();
            if trimmed.is_empty() {
                continue;
            }
            let word = trimmed.split_whitespace().next().unwrap_or("");
            match word {
                "ifeq" | "ifneq" | "ifdef" | "ifndef" | "else" | "endif" => continue,
                "include" | "-include" | "sinclude" => {
                    self.includes.push(trimmed[word.len()..].trim().to_owned());
                    continue;
                }
                "define" => {
                    let name = trimmed[word.len()..]
                        .trim()
                        .trim_end_matches(['=', ':', '?', '+', '!', ' '])
                        .trim()
                        .to_owned();
                    define = Some((name, Vec::new()));
                    in_rule = false;
                    continue;
                }
                "vpath" | "unexport" => continue,
                _ => {}
            }
            let trimmed = trimmed
                .strip_prefix("override ")
                .or_else(|| trimmed.strip_prefix("export "))
                .map_or(trimmed, str::trim_start);
            if let Some((name, op, value)) = assignment(trimmed) {
                in_rule = false;
                let value = value.trim().to_owned();
                if op == "!=" {
                    self.shells.push(value.clone());
                }
                match op {
                    "+=" => {
                        let entry = self.vars.entry(name.to_owned()).or_default();
                        if !entry.is_empty() {
                            entry.push(' ');
                        }
                        entry.push_str(&value);
                    }
                    "?=" => {
                        if !self.vars.contains_key(name) {
                            self.defaults.insert(name.to_owned());
                            self.vars.insert(name.to_owned(), value);
                        }
                    }
                    _ => {
                        self.defaults.remove(name);
                        self.vars.insert(name.to_owned(), value);
                    }
                }
                continue;
            }
            let Some(colon) = rule_colon(trimmed) else {
                in_rule = false;
                continue;
            };
            let targets: Vec<String> = trimmed[..colon]
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            let after = trimmed[colon..].trim_start_matches(':');
            // `target: VAR = value` sets a variable for the target.
            if after.contains('=') && !after.contains(';') {
                in_rule = true;
                continue;
            }
            let (prereqs, inline) = match after.split_once(';') {
                Some((p, r)) => (p, Some(r.trim())),
                None => (after, None),
            };
            // `objs: %.o: %.c`: the prerequisites follow the last colon.
            let prereqs = prereqs.rsplit(':').next().unwrap_or(prereqs);
            let mut rule = Rule {
                targets,
                prereqs: prereqs.split_whitespace().map(str::to_owned).collect(),
                recipe: Vec::new(),
            };
            if let Some(r) = inline.filter(|r| !r.is_empty()) {
                let bare = r.trim_start_matches(['@', '-', '+']);
                rule.recipe
                    .push(if r[..r.len() - bare.len()].contains('+') {
                        format!("{FORCED}{bare}")
                    } else {
                        bare.to_owned()
                    });
            }
            if self.default_goal.is_none()
                && let Some(first) = rule.targets.first()
                && (!first.starts_with('.') || first.contains('/'))
                && !first.contains(['%', '$'])
            {
                self.default_goal = Some(first.clone());
            }
            self.rules.push(rule);
            in_rule = true;
        }
    }

    /// `$(shell …)` texts in a line outside recipes.
    fn collect_shells(&mut self, line: &str) {
        let mut rest = line;
        while let Some(at) = rest.find("$(shell") {
            // From the opening bracket: `(shell …)`.
            let body = &rest[at + 1..];
            let Some(end) = closing(body, b'(', b')') else {
                // Unclosed: make reads on to the end of the line.
                self.shells.push(body["(shell".len()..].trim().to_owned());
                break;
            };
            let inner = &body["(shell".len()..end];
            if inner.starts_with(char::is_whitespace) {
                self.shells.push(inner.trim().to_owned());
            }
            rest = &body[end..];
        }
    }
}

/// A line's text before its comment.
fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    for (k, b) in bytes.iter().enumerate() {
        if *b == b'#' && (k == 0 || bytes[k - 1] != b'\\') {
            return &line[..k];
        }
    }
    line
}

/// `NAME = value`, `NAME := value`, `NAME ?= value`, `NAME += value`, `NAME != command`.
fn assignment(line: &str) -> Option<(&str, &str, &str)> {
    let eq = line.find('=')?;
    let before = &line[..eq];
    let op_start = before.trim_end_matches([':', '?', '+', '!']).len();
    let name = before[..op_start].trim();
    if name.is_empty() || name.contains([' ', '\t', ':', '(', ')', '$']) && !name.starts_with("$(")
    {
        return None;
    }
    if name.contains(char::is_whitespace) {
        return None;
    }
    let op = &line[op_start..=eq];
    let op = op.trim();
    let op = if op.len() == 1 { "=" } else { op };
    Some((name, op, &line[eq + 1..]))
}

/// The colon that ends a rule's targets, outside `$(…)`.
fn rule_colon(line: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (k, b) in line.bytes().enumerate() {
        match b {
            b'(' | b'{' => depth += 1,
            b')' | b'}' => depth = depth.saturating_sub(1),
            b':' if depth == 0 => return Some(k),
            _ => {}
        }
    }
    None
}

/// The index of the bracket closing the one `text` starts with.
fn closing(text: &str, open: u8, close: u8) -> Option<usize> {
    let mut depth = 0usize;
    for (k, b) in text.bytes().enumerate() {
        if b == open {
            depth += 1;
        } else if b == close {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

/// Automatic variables of one recipe.
#[derive(Default, Clone)]
struct Auto {
    target: Option<String>,
    prereqs: Vec<String>,
    stem: Option<String>,
}

/// What a variable reference expands to.
struct Vars<'a> {
    makefile: &'a Makefile,
    call: &'a Call,
    dir: &'a Cwd,
}

impl Vars<'_> {
    fn expand(&self, text: &str, auto: &Auto, depth: usize) -> String {
        if !text.contains('$') {
            return text.to_owned();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let Some(next) = after.chars().next() else {
                out.push('$');
                rest = after;
                break;
            };
            let (reference, used) = match next {
                '$' => {
                    out.push('$');
                    rest = &after[1..];
                    continue;
                }
                '(' | '{' => {
                    let (open, close) = if next == '(' {
                        (b'(', b')')
                    } else {
                        (b'{', b'}')
                    };
                    match closing(after, open, close) {
                        Some(end) => (&after[1..end], end + 1),
                        None => (&after[1..], after.len()),
                    }
                }
                c => (&after[..c.len_utf8()], c.len_utf8()),
            };
            rest = &after[used..];
            let value = if depth >= MAX_EXPANSION || out.len() > MAX_EXPANDED {
                None
            } else {
                self.reference(reference, auto, depth)
            };
            match value {
                Some(v) => out.push_str(&v),
                None => out.push_str(&unknown(reference)),
            }
        }
        out.push_str(rest);
        out
    }

    /// The value of one `$(…)` reference, when it is known.
    fn reference(&self, reference: &str, auto: &Auto, depth: usize) -> Option<String> {
        let target = || auto.target.clone();
        match reference {
            "@" => return target(),
            "<" => return auto.prereqs.first().cloned(),
            "^" | "+" | "?" => return Some(auto.prereqs.join(" ")),
            "*" => return auto.stem.clone(),
            "@D" => {
                return target().map(|t| match t.rsplit_once('/') {
                    Some((d, _)) => d.to_owned(),
                    None => ".".to_owned(),
                });
            }
            "@F" => return target().map(|t| t.rsplit('/').next().unwrap_or(&t).to_owned()),
            _ => {}
        }
        if reference.contains([' ', '\t', ':', '$', ',']) {
            // A text function make works out the same way every time (`$(subst …)`,
            // `$(patsubst …)`, `$(notdir …)`); any other function (`$(shell …)`,
            // `$(call …)`), a substitution reference or a computed name is only known
            // when make runs, and is marked as computed.
            return Some(
                self.function(reference, auto, depth)
                    .unwrap_or_else(|| COMPUTED.to_owned()),
            );
        }
        if let Some(value) = self.call.vars.get(reference) {
            return Some(self.expand(value, auto, depth + 1));
        }
        // The environment's value, where the Makefile only sets a default or nothing.
        if let Some(value) = self.call.env.get(reference)
            && (self.call.env_first
                || self.makefile.defaults.contains(reference)
                || !self.makefile.vars.contains_key(reference))
        {
            return Some(value.clone());
        }
        if let Some(value) = self.makefile.vars.get(reference) {
            return Some(self.expand(value, auto, depth + 1));
        }
        match reference {
            "MAKE" | "MAKE_COMMAND" => Some("make".into()),
            "RM" => Some("rm -f".into()),
            "SHELL" => Some("/bin/sh".into()),
            "MAKEFLAGS" | "MFLAGS" | "MAKECMDGOALS" => Some(String::new()),
            "CURDIR" => match self.dir {
                Cwd::Known(d) if d.is_empty() => Some("$PWD".into()),
                Cwd::Known(d) if d.starts_with(['/', '~']) => Some(d.clone()),
                Cwd::Known(d) => Some(format!("$PWD/{d}")),
                Cwd::Unknown => None,
            },
            _ => None,
        }
    }
}

/// The writes of make's `file` function in `text`: (`>` or `>>`, the path as written).
fn file_writes(text: &str) -> Vec<(&'static str, &str)> {
    let mut out = Vec::new();
    for open in ["$(file", "${file"] {
        let mut rest = text;
        while let Some(at) = rest.find(open) {
            let body = &rest[at + open.len()..];
            rest = body;
            let Some(body) = body.strip_prefix([' ', '\t']) else {
                continue;
            };
            let body = body.trim_start();
            let (op, after) = if let Some(a) = body.strip_prefix(">>") {
                (">>", a)
            } else if let Some(a) = body.strip_prefix('>') {
                (">", a)
            } else {
                continue;
            };
            let end = after.find([',', ')', '}', '\n']).unwrap_or(after.len());
            // A path with references of its own ends at the bracket closing them.
            let path = if after[..end].contains("$(") || after[..end].contains("${") {
                let mut depth = 0usize;
                let mut stop = after.len();
                for (k, c) in after.char_indices() {
                    match c {
                        '(' | '{' => depth += 1,
                        ')' | '}' if depth == 0 => {
                            stop = k;
                            break;
                        }
                        ')' | '}' => depth -= 1,
                        ',' | '\n' if depth == 0 => {
                            stop = k;
                            break;
                        }
                        _ => {}
                    }
                }
                &after[..stop]
            } else {
                &after[..end]
            };
            if out.len() < 16 {
                out.push((op, path.trim()));
            }
        }
    }
    out
}

/// `path` quoted for a shell line, a computed part left to expand.
fn shell_quote_path(path: &str) -> String {
    if path.contains("$(") {
        format!("\"{path}\"")
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}

/// What a make reference only known when make runs becomes in a recipe: a command
/// substitution, which the checks take as a value computed as the line runs.
const COMPUTED: &str = "$(make-computed)";

impl Vars<'_> {
    /// The value of a text function on text it can work out: `subst`, `patsubst`,
    /// `strip`, `addprefix`, `addsuffix`, `notdir`, `dir`, `basename`, `suffix`,
    /// `firstword`, `lastword`, `sort`, `filter`, `filter-out`, `join`, `words`, `word`,
    /// and substitution references (`$(SRC:.c=.o)`).
    fn function(&self, reference: &str, auto: &Auto, depth: usize) -> Option<String> {
        let (name, rest) = reference.split_once([' ', '\t']).unwrap_or((reference, ""));
        if rest.is_empty() {
            // `$(SRC:.c=.o)`: the variable's words with the suffix replaced.
            let (var, spec) = reference.split_once(':')?;
            let (from, to) = spec.split_once('=')?;
            if var.contains(['$', ' ']) {
                return None;
            }
            // Of a variable make takes from the environment: as unknown as it is.
            let Some(value) = self.reference(var, auto, depth + 1) else {
                return Some(unknown(var));
            };
            let (from, to) = if from.contains('%') {
                (from.to_owned(), to.to_owned())
            } else {
                (format!("%{from}"), format!("%{to}"))
            };
            return Some(patsubst(&from, &to, &value));
        }
        let args: Vec<String> = split_args(rest)
            .into_iter()
            .map(|a| self.expand(a, auto, depth + 1))
            .collect();
        if args.iter().any(|a| a.contains(COMPUTED)) {
            return None;
        }
        let arg = |k: usize| args.get(k).map_or("", String::as_str);
        let words = |k: usize| {
            arg(k)
                .split_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        let each = |f: &dyn Fn(&str) -> String| {
            Some(words(0).iter().map(|w| f(w)).collect::<Vec<_>>().join(" "))
        };
        match (name, args.len()) {
            ("subst", 3) => Some(if arg(0).is_empty() {
                arg(2).to_owned()
            } else {
                arg(2).replace(arg(0), arg(1))
            }),
            ("patsubst", 3) => Some(patsubst(arg(0), arg(1), arg(2))),
            // The names a pattern matches, as the shell's glob of it matches them.
            ("wildcard", 1) => Some(words(0).join(" ")),
            ("strip", 1) => Some(words(0).join(" ")),
            ("addprefix" | "addsuffix", 2) => Some(
                words(1)
                    .iter()
                    .map(|w| {
                        if name == "addprefix" {
                            format!("{}{w}", arg(0))
                        } else {
                            format!("{w}{}", arg(0))
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            ("notdir", 1) => each(&|w| w.rsplit('/').next().unwrap_or(w).to_owned()),
            ("dir", 1) => each(&|w| match w.rsplit_once('/') {
                Some((d, _)) => format!("{d}/"),
                None => "./".to_owned(),
            }),
            ("basename", 1) => each(&|w| match w.rsplit_once('.') {
                Some((b, _)) if !b.ends_with('/') && !b.is_empty() => b.to_owned(),
                _ => w.to_owned(),
            }),
            ("suffix", 1) => each(&|w| {
                w.rsplit_once('.')
                    .filter(|(_, s)| !s.contains('/'))
                    .map_or(String::new(), |(_, s)| format!(".{s}"))
            }),
            ("firstword", 1) => Some(words(0).first().cloned().unwrap_or_default()),
            ("lastword", 1) => Some(words(0).last().cloned().unwrap_or_default()),
            ("words", 1) => Some(words(0).len().to_string()),
            ("word", 2) => {
                let n: usize = arg(0).trim().parse().ok()?;
                Some(words(1).get(n.checked_sub(1)?).cloned().unwrap_or_default())
            }
            ("sort", 1) => {
                let mut w = words(0);
                w.sort();
                w.dedup();
                Some(w.join(" "))
            }
            ("filter" | "filter-out", 2) => {
                let patterns = words(0);
                let keep = name == "filter";
                Some(
                    words(1)
                        .into_iter()
                        .filter(|w| {
                            patterns.iter().any(|p| {
                                p == w || (p.contains('%') && matches_pattern(p, w).is_some())
                            }) == keep
                        })
                        .collect::<Vec<_>>()
                        .join(" "),
                )
            }
            ("join", 2) => {
                let (a, b) = (words(0), words(1));
                let n = a.len().max(b.len());
                Some(
                    (0..n)
                        .map(|k| {
                            format!(
                                "{}{}",
                                a.get(k).map_or("", String::as_str),
                                b.get(k).map_or("", String::as_str)
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(" "),
                )
            }
            _ => None,
        }
    }
}

/// A function's arguments: split at the commas outside brackets (the last argument
/// keeps its commas for functions of fewer arguments, as make does for `subst` only at
/// three; close enough for the names these build).
fn split_args(rest: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (k, c) in rest.char_indices() {
        match c {
            '(' | '{' => depth += 1,
            ')' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(&rest[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    out.push(&rest[start..]);
    out
}

/// `$(patsubst FROM,TO,TEXT)`: each word of TEXT matching FROM (one `%` at most)
/// replaced by TO, with the `%` of TO standing for what the `%` of FROM matched. Words
/// that do not match stay as they are.
fn patsubst(from: &str, to: &str, text: &str) -> String {
    let one = |w: &str| -> Option<String> {
        match from.split_once('%') {
            Some((pre, post)) => {
                let stem = w.strip_prefix(pre)?.strip_suffix(post)?;
                Some(to.replacen('%', stem, 1))
            }
            None => (w == from).then(|| to.to_owned()),
        }
    };
    text.split_whitespace()
        .map(|w| one(w).unwrap_or_else(|| w.to_owned()))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A shell variable standing for a make reference only known when make runs: treated as
/// unknown by the checks, and as possibly empty, as make would expand it.
fn unknown(reference: &str) -> String {
    let name: String = reference
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let valid =
        !name.is_empty() && !name.as_bytes()[0].is_ascii_digit() && name.len() == reference.len();
    if valid {
        format!("${{{name}}}")
    } else {
        "${MAKE_EXPANSION}".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_make_gets_is_what_the_line_exports() {
        let env = |line: &str| {
            let parsed = crate::domain::guard::shell::parse(line);
            let at = parsed
                .commands
                .iter()
                .position(|c| c.name() == "make")
                .expect("a make");
            let mut got: Vec<(String, String)> = environment(&parsed, at).into_iter().collect();
            got.sort();
            got
        };
        let one = |n: &str, v: &str| vec![(n.to_owned(), v.to_owned())];
        assert_eq!(env("DB=/x make db-reset"), one("DB", "/x"));
        assert_eq!(env("env DB=/x make db-reset"), one("DB", "/x"));
        assert_eq!(env("export DB=/x; make db-reset"), one("DB", "/x"));
        assert_eq!(env("DB=/x; export DB; make db-reset"), one("DB", "/x"));
        assert_eq!(env("set -a; DB=/x; make db-reset"), one("DB", "/x"));
        assert!(env("DB=/x; make db-reset").is_empty());
        assert!(env("set -o pipefail; DB=/x; make db-reset").is_empty());
    }

    fn recipes(text: &str, args: &[&str]) -> Vec<String> {
        let call = read_call(&args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>());
        let dir = tempfile::tempdir().unwrap();
        let files = super::super::files::Files::new(dir.path());
        let view = View::new(&files, &|_, _| None);
        let mut out = Vec::new();
        judge(
            text,
            "`Makefile`",
            &call,
            &Cwd::Known(String::new()),
            &view,
            &mut out,
        );
        out.into_iter()
            .filter_map(|r| match r {
                Ran::Script(s, _, _) => Some(s),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_goals_and_their_prerequisites_run() {
        let text = "BUILD := out\n\
                    .PHONY: all clean\n\
                    all: lib\n\t@echo done\n\
                    lib: gen\n\t-cc -o $@ x.c\n\
                    gen:\n\t+python3 gen.py > $(BUILD)/g.c\n\
                    clean:\n\trm -rf $(BUILD)\n";
        assert_eq!(
            recipes(text, &[]),
            ["echo done", "cc -o lib x.c", "python3 gen.py > out/g.c"]
        );
        assert_eq!(recipes(text, &["clean"]), ["rm -rf out"]);
        assert_eq!(recipes(text, &["clean", "BUILD=/"]), ["rm -rf /"]);
        assert!(recipes(text, &["-n", "clean"]).is_empty());
        assert!(recipes(text, &["missing"]).is_empty());
    }

    #[test]
    fn unknown_references_stay_unknown_words() {
        let text = "OBJ = $(SRC:.c=.o)\nx:\n\trm -rf $(OBJ) $(OUT)/ $(wildcard *.o)\n";
        assert_eq!(recipes(text, &[]), ["rm -rf ${SRC} ${OUT}/ *.o"]);
    }

    #[test]
    fn pattern_rules_defines_and_shell_calls() {
        let text = "define CLEAN\nrm -rf $(1)\nendef\n\
                    V != echo hi\n\
                    all: a.o\n\
                    %.o: %.c\n\t$(CC) -c $< -o $@\n";
        let got = recipes(text, &[]);
        assert!(got.contains(&"echo hi".to_owned()), "{got:?}");
        for (line, shell) in [
            ("X := $(shell rm -rf ~)\nall:\n\techo\n", "rm -rf ~"),
            (
                "$(shell rm -rf .claude-nagger)\nall:\n\techo\n",
                "rm -rf .claude-nagger",
            ),
            (
                "Y = $(foo $(shell\tsh -c 'echo $$(id)'))\nall:\n",
                "sh -c 'echo $(id)'",
            ),
        ] {
            let got = recipes(line, &[]);
            assert!(got.contains(&shell.to_owned()), "{line:?}: {got:?}");
        }
        assert!(got.contains(&"${CC} -c a.c -o a.o".to_owned()), "{got:?}");
    }
}
