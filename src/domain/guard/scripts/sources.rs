//! Programs that run a file of commands named by an option, a variable or their input
//! rather than as their program operand: `sed -f`, `gdb -x`, `lldb -s`, `vim -S`, `-u` and
//! `-s`, `bash --rcfile`, `ENV=`/`BASH_ENV=`, `PYTHONSTARTUP=`, `NODE_OPTIONS=--require`,
//! `m4` (whose input is its program), `dc -f`, and `parallel`, `at` and `batch` reading
//! command lines from a file or a pipe. Each file is read through the bounded reader of
//! [`super::files`] and its text checked as what the program makes of it.

use super::super::finding::Finding;
use super::super::protect::Cwd;
use super::super::rcfiles;
use super::super::shell::{self, Parsed, SimpleCommand, option_values};
use super::files::{Ran, View, piped_texts, read_named};

/// Most files read for one command here.
const MAX_FILES: usize = 8;
/// Most shell escapes taken out of one m4 or dc text.
const MAX_ESCAPES: usize = 64;

/// How a program reads a file it is given.
#[derive(Clone, Copy)]
enum As {
    /// Shell command lines.
    Script,
    /// Code for the interpreter named (its language as `Language::of` reads the name).
    Code(&'static str),
    /// A sed script: checked as the same script given with `-e` on the line, where the
    /// files its `w` commands write are judged from the command's folder.
    Sed,
    /// m4 input: `syscmd(…)` and `esyscmd(…)` run shell lines.
    M4,
    /// dc input: `!` runs the rest of its line in the shell.
    Dc,
}

/// What command `index` of `parsed` runs from files named this way, pushed onto `out`.
pub(super) fn runs(parsed: &Parsed, index: usize, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let command = &parsed.commands[index];
    let name = command.name();
    let mut wanted: Vec<(String, As, &'static str)> = Vec::new();
    let mut want = |files: Vec<&str>, how: As, what: &'static str| {
        wanted.extend(
            files
                .into_iter()
                .filter(|f| !f.is_empty() && *f != "-")
                .map(|f| (f.to_owned(), how, what)),
        );
    };
    let args = command.args();
    match name {
        "sed" | "gsed" => want(sed_files(args), As::Sed, "a sed script"),
        "gdb" | "gdb-multiarch" | "cgdb" => want(
            option_values(
                args,
                &[
                    "-x",
                    "-ix",
                    "-eix",
                    "-command",
                    "-init-command",
                    "-early-init-command",
                ],
                &[
                    "--command",
                    "--init-command",
                    "--eval-command-file",
                    "--early-init-command",
                ],
            ),
            As::Code("gdb"),
            "gdb commands",
        ),
        "lldb" => want(
            option_values(
                args,
                &["-s", "-S", "-K"],
                &["--source", "--source-before-file", "--source-on-crash"],
            ),
            As::Code("lldb"),
            "lldb commands",
        ),
        _ if shell::is_vim(name) => want(vim_files(name, args), As::Code("vim"), "Vim commands"),
        _ if shell::is_shell(name) => want(
            option_values(args, &[], &["--rcfile", "--init-file"]),
            As::Script,
            "a startup file",
        ),
        "m4" | "gm4" => {
            want(m4_files(args), As::M4, "m4 input");
            if m4_files(args).is_empty() {
                want(stdin_files(command), As::M4, "m4 input");
            }
        }
        "dc" => {
            let mut named = option_values(args, &["-f"], &["--file"]);
            named.extend(dc_operands(args));
            let none = named.is_empty();
            want(named, As::Dc, "dc input");
            if none {
                want(stdin_files(command), As::Dc, "dc input");
            }
        }
        "parallel" if runs_its_input(args) => {
            let mut named = option_values(args, &["-a"], &["--arg-file"]);
            named.extend(quad_files(args));
            let none = named.is_empty();
            want(named, As::Script, "command lines");
            if none {
                want(stdin_files(command), As::Script, "command lines");
            }
        }
        // `tmux load-buffer F; tmux paste-buffer`: the file is typed into a pane.
        "tmux" => want(tmux_loaded(args), As::Script, "text pasted into a terminal"),
        // `script` without `-c` runs a shell that reads its input.
        "script" if !runs_command(args) => {
            want(
                stdin_files(command),
                As::Script,
                "a terminal session's input",
            );
        }
        "at" | "batch" => {
            want(option_values(args, &["-f"], &[]), As::Script, "a job");
            want(stdin_files(command), As::Script, "a job");
        }
        _ => {}
    }
    // Files the shell or an interpreter reads at start because a variable names them.
    // Set before it (`X=v cmd`) or by a wrapper (`env X=v cmd`, `sudo X=v cmd`).
    let wrapped: &[String] = command.prefixed.as_deref().map_or(&[], |words| {
        &words[..words.len().saturating_sub(command.argv.len())]
    });
    let given = wrapped.iter().filter(|w| {
        w.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric())
        })
    });
    for assignment in command.env.iter().chain(given) {
        let Some((var, value)) = assignment.split_once('=') else {
            continue;
        };
        let value = value.trim_matches(['"', '\'']);
        match var {
            // Any program handed it may start a shell (`BASH_ENV=x make`).
            "ENV" | "BASH_ENV" => {
                want(vec![value], As::Script, "a startup file");
            }
            "PYTHONSTARTUP" if name.starts_with("python") => {
                want(vec![value], As::Code("python3"), "a startup file");
            }
            "NODE_OPTIONS" if matches!(name, "node" | "nodejs") => want(
                node_preloads(value),
                As::Code("node"),
                "a module loaded first",
            ),
            "RUBYOPT" if name.starts_with("ruby") => want(
                value
                    .split_whitespace()
                    .filter_map(|w| w.strip_prefix("-r"))
                    .filter(|m| {
                        m.contains('/')
                            || std::path::Path::new(m)
                                .extension()
                                .is_some_and(|e| e.eq_ignore_ascii_case("rb"))
                    })
                    .collect(),
                As::Code("ruby"),
                "a library loaded first",
            ),
            _ => {}
        }
    }
    // `export BASH_ENV=env.sh`, `BASH_ENV=env.sh; export BASH_ENV`: every shell the line
    // or the session starts later without a terminal reads the file first.
    let mut set = if matches!(
        name,
        "export" | "declare" | "typeset" | "readonly" | "local"
    ) {
        args.iter().map(String::as_str).collect::<Vec<_>>()
    } else if name.is_empty() {
        command.env.iter().map(String::as_str).collect()
    } else {
        Vec::new()
    };
    // `BASH_ENV=x.sh; export BASH_ENV; bash -c …`: set by the line before this command.
    let assigned: Vec<String> = parsed
        .assignments
        .iter()
        .filter(|a| a.at == index && matches!(a.name.as_str(), "ENV" | "BASH_ENV"))
        .filter_map(|a| Some(format!("{}={}", a.name, a.value.as_deref()?)))
        .collect();
    set.extend(assigned.iter().map(String::as_str));
    let mut texts: Vec<(String, As, String)> = Vec::new();
    for word in set.into_iter().take(MAX_FILES) {
        if let Some((var, value)) = word.split_once('=')
            && matches!(var, "ENV" | "BASH_ENV")
        {
            let file = value.trim_matches(['"', '\'']);
            if let Some((text, via)) = read_named(files.read(cwd, file), file, out) {
                texts.push((
                    text,
                    As::Script,
                    format!("{via}, which every shell started later reads first (`{var}`)"),
                ));
            }
        }
    }
    for (file, how, what) in wanted.into_iter().take(MAX_FILES) {
        let file = super::values::with_line_values(parsed, index, &file);
        if super::files::unresolved(&file, out) {
            continue;
        }
        if let Some((text, via)) = read_named(files.read(cwd, &file), &file, out) {
            texts.push((text, how, format!("{via}, {what} run by `{name}`")));
        }
    }
    // tmux commands on the line itself, chained with `\;`.
    let via = format!("a tmux command on the line of `{name}`");
    out.extend(
        rcfiles::tmux_line(command)
            .into_iter()
            .map(|line| Ran::Script(line, via.clone(), None)),
    );
    // Spec files: asked about.
    if let Some(spec) = rcfiles::spec_files(command).first() {
        out.push(Ran::Finding(Finding::ask(
            "guard:unread-config",
            format!(
                "hands `{name}` the spec file `{spec}`, which can change every option it runs \
                 with and every program it runs: nagger does not read it"
            ),
            "Give the options on the line instead, or ask the user.",
        )));
    }
    // Response files, curl's and wget's configuration, start-up files of debuggers and
    // terminal multiplexers: named on the line, or read by the program by itself (a
    // missing one is nothing to it).
    let mut rcs = rcfiles::files(command);
    // `export SYSSCREENRC=f; screen …`: a start-up file named by a variable the line set
    // before the program.
    let program_names: Vec<&str> = std::iter::once(name)
        .chain(command.prefixes.iter().map(String::as_str))
        .collect();
    for (program, var, kind) in [
        ("screen", "SYSSCREENRC", rcfiles::Kind::Screen),
        ("screen", "SCREENRC", rcfiles::Kind::Screen),
        ("curl", "CURL_HOME", rcfiles::Kind::Curl),
        ("wget", "WGETRC", rcfiles::Kind::Wget),
    ] {
        if !program_names.contains(&program) {
            continue;
        }
        let value = super::values::with_line_values(parsed, index, &format!("${var}"));
        let value = super::super::paths::here_and_home(&value);
        if value.is_empty() || value.contains(['$', '`']) {
            continue;
        }
        let file = if var == "CURL_HOME" {
            format!("{}/.curlrc", value.trim_end_matches('/'))
        } else {
            value
        };
        rcs.push(rcfiles::RcFile {
            file,
            program: program.to_owned(),
            kind,
            what: "its start-up configuration",
            named: false,
        });
    }
    // `VIMINIT='so f' vim`, `EXINIT=… ex`: ex commands in place of the start-up files.
    if shell::is_vim(name) {
        for var in ["VIMINIT", "EXINIT"] {
            let prefix = format!("{var}=");
            let value = command
                .env
                .iter()
                .chain(command.prefixed.iter().flatten())
                .rev()
                .find_map(|w| w.strip_prefix(prefix.as_str()))
                .map_or_else(
                    || super::values::with_line_values(parsed, index, &format!("${var}")),
                    str::to_owned,
                );
            if value.is_empty() || value == format!("${var}") {
                continue;
            }
            let via = format!("the commands `{var}` gives `{name}`");
            let lines = value
                .split('|')
                .map(str::trim)
                .collect::<Vec<_>>()
                .join("\n");
            out.push(Ran::Script(
                rcfiles::vim_line(command, &lines),
                via.clone(),
                None,
            ));
            // `VIMINIT='so f'`: that file's commands too.
            for file in value.split('|').filter_map(|c| {
                let c = c.trim().trim_start_matches(':');
                c.strip_prefix("so ").or_else(|| c.strip_prefix("source "))
            }) {
                rcs.push(rcfiles::RcFile {
                    file: file.trim().to_owned(),
                    program: name.to_owned(),
                    kind: rcfiles::Kind::Vim,
                    what: "a script its start-up commands source",
                    named: true,
                });
            }
        }
    }
    for rc in rcs.into_iter().take(MAX_FILES) {
        // `curl -K - <<< 'output = x'`, `printf … | curl -K -`: read from its input.
        if rc.file == "-" {
            let mut given: Vec<(String, String)> = command
                .stdin_texts
                .iter()
                .map(|t| (t.clone(), format!("text read by `{name}`")))
                .collect();
            given.extend(
                piped_texts(parsed, index, cwd, files, out)
                    .into_iter()
                    .map(|(t, via)| (t, format!("{via}, read by `{name}` on its standard input"))),
            );
            if given.is_empty() {
                out.push(Ran::Finding(Finding::ask(
                    "guard:computed-command",
                    format!(
                        "takes {} from its standard input, which this line does not show",
                        rc.what
                    ),
                    "Name a file, or give the text on the line.",
                )));
            }
            for (text, via) in given {
                out.extend(
                    rcfiles::lines(command, &rc, &text)
                        .into_iter()
                        .map(|line| Ran::Script(line, via.clone(), None)),
                );
            }
            continue;
        }
        let file = super::values::with_line_values(parsed, index, &rc.file);
        if if rc.named {
            super::files::unresolved(&file, out)
        } else {
            super::files::only_known_when_run(&file)
        } {
            continue;
        }
        let Some((text, via)) = read_named(files.read(cwd, &file), &file, out) else {
            continue;
        };
        let via = format!("{via}, {} of `{}`", rc.what, rc.program);
        match rc.kind {
            rcfiles::Kind::Gdb => out.push(Ran::Code(text, "gdb".to_owned(), via)),
            rcfiles::Kind::Lldb => out.push(Ran::Code(text, "lldb".to_owned(), via)),
            _ => out.extend(
                rcfiles::lines(command, &rc, &text)
                    .into_iter()
                    .map(|line| Ran::Script(line, via.clone(), None)),
            ),
        }
    }
    // `echo 'syscmd(rm x)' | m4`, `cat jobs | parallel`, `echo 'rm x' | at now`: what the
    // stage before prints is the program.
    let piped_as = match name {
        "m4" | "gm4" if m4_files(args).is_empty() => Some(As::M4),
        "dc" if option_values(args, &["-f"], &["--file"]).is_empty()
            && dc_operands(args).is_empty() =>
        {
            Some(As::Dc)
        }
        "parallel" if runs_its_input(args) => Some(As::Script),
        "script" if !runs_command(args) => Some(As::Script),
        "at" | "batch" => Some(As::Script),
        _ => None,
    };
    if let Some(how) = piped_as {
        for (text, via) in piped_texts(parsed, index, cwd, files, out) {
            texts.push((
                text,
                how,
                format!("{via}, read by `{name}` on its standard input"),
            ));
        }
        for text in &command.stdin_texts {
            texts.push((text.clone(), how, format!("text read by `{name}`")));
        }
    }
    for (text, how, via) in texts {
        match how {
            As::Script => out.push(Ran::Script(text, via, None)),
            As::Code(runner) => out.push(Ran::Code(text, runner.to_owned(), via)),
            As::Sed => out.push(Ran::Script(
                format!("sed -e '{}'", text.replace('\'', r"'\''")),
                via,
                None,
            )),
            As::M4 => m4_escapes(&text, name, &via, out),
            As::Dc => {
                for line in dc_escapes(&text) {
                    out.push(Ran::Script(line, format!("{via}, a shell escape"), None));
                }
            }
        }
    }
}

/// The files of standard input redirections (`< jobs.txt`).
fn stdin_files(command: &SimpleCommand) -> Vec<&str> {
    command
        .reads_from
        .iter()
        .filter(|r| !r.starts_with('&') && r.as_str() != "-" && !r.starts_with("/dev/"))
        .map(String::as_str)
        .collect()
}

/// sed's script files: `-f F`, `-fF`, `-nf F`, `--file F`, `--file=F`. In a cluster, `-i`
/// and `-l` take the rest of it (`-if` is a backup suffix `f`), `-e` the next word.
fn sed_files(args: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        let next = args.get(k + 1).map(String::as_str);
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if long == "file" {
                out.extend(next);
                k += 1;
            } else if let Some(file) = long.strip_prefix("file=") {
                out.push(file);
            } else if matches!(long, "expression" | "line-length") {
                k += 1;
            }
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (at, letter) in cluster.char_indices() {
                let rest = &cluster[at + 1..];
                match letter {
                    'f' => {
                        if rest.is_empty() {
                            out.extend(next);
                            k += 1;
                        } else {
                            out.push(rest);
                        }
                        break;
                    }
                    'e' | 'l' => {
                        if rest.is_empty() {
                            k += 1;
                        }
                        break;
                    }
                    'i' => break,
                    _ => {}
                }
            }
        }
        k += 1;
    }
    out
}

/// Vim's files of commands: `-S F` (a session; alone, `Session.vim`), `-u F` (its vimrc,
/// unless `NONE`, `NORC` or `DEFAULTS`), and `-s F` (typed keys, except in Ex mode, where
/// `-s` is silent).
fn vim_files<'a>(name: &str, args: &'a [String]) -> Vec<&'a str> {
    let ex_mode = name == "ex"
        || args
            .iter()
            .take_while(|a| *a != "--")
            .any(|a| matches!(a.as_str(), "-e" | "-E" | "-es" | "-Es"));
    let mut out = Vec::new();
    for (k, arg) in args.iter().enumerate() {
        if arg == "--" {
            break;
        }
        let next = args.get(k + 1).map(String::as_str);
        match arg.as_str() {
            "-S" => match next {
                Some(file) if !file.starts_with('-') && !file.starts_with('+') => out.push(file),
                _ => out.push("Session.vim"),
            },
            "-u" => out.extend(next.filter(|f| !matches!(*f, "NONE" | "NORC" | "DEFAULTS"))),
            "-s" if !ex_mode => out.extend(next.filter(|f| !f.starts_with('-'))),
            _ => {}
        }
    }
    out
}

/// m4's input files: its operands (`-D`, `-U`, `-I` and the like take a value).
fn m4_files(args: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        match arg.as_str() {
            "--" => {
                out.extend(args[k + 1..].iter().map(String::as_str));
                break;
            }
            "-D" | "-U" | "-I" | "-d" | "-l" | "-o" | "-F" | "-R" | "-L" | "-t" | "--define"
            | "--undefine" | "--include" | "--debugfile" | "--error-output" | "--trace"
            | "--freeze-state" | "--reload-state" | "--nesting-limit" | "--arglength" => {
                k += 1;
            }
            a if a.starts_with('-') && a != "-" => {}
            a => out.push(a),
        }
        k += 1;
    }
    out
}

/// dc's operand files (`-e` takes an expression).
fn dc_operands(args: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        match arg.as_str() {
            "-e" | "--expression" | "-f" | "--file" => k += 1,
            a if a.starts_with('-') && a != "-" => {}
            a => out.push(a),
        }
        k += 1;
    }
    out
}

/// Whether `parallel` runs the lines it reads as commands: no command given after its
/// options (`parallel < jobs`, `parallel -a jobs`, `parallel :::: jobs`).
fn runs_its_input(args: &[String]) -> bool {
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        if arg.starts_with(":::") {
            return true;
        }
        if arg.starts_with('-') {
            if matches!(
                arg.as_str(),
                "-a" | "--arg-file"
                    | "-j"
                    | "--jobs"
                    | "-S"
                    | "--sshlogin"
                    | "--sshloginfile"
                    | "--slf"
                    | "--tmpdir"
                    | "--results"
                    | "--joblog"
                    | "-d"
                    | "--delimiter"
                    | "-E"
                    | "--eof"
                    | "--timeout"
                    | "--memfree"
                    | "--load"
                    | "--delay"
                    | "--retries"
                    | "--colsep"
                    | "-C"
                    | "--workdir"
                    | "--wd"
                    | "-N"
                    | "--max-args"
                    | "-n"
                    | "-L"
                    | "--max-lines"
                    | "-s"
                    | "--max-chars"
                    | "-I"
                    | "--env"
                    | "--tagstring"
                    | "--halt"
                    | "-P"
                    | "--max-procs"
                    | "--basefile"
                    | "--bf"
                    | "--transfer-file"
                    | "--tf"
                    | "--return"
            ) {
                k += 1;
            }
            k += 1;
            continue;
        }
        return false;
    }
    true
}

/// The files `tmux load-buffer` reads into a paste buffer (`-b NAME` and `-t CLIENT` take
/// a value).
fn tmux_loaded(args: &[String]) -> Vec<&str> {
    let Some(at) = args.iter().position(|a| a == "load-buffer" || a == "loadb") else {
        return Vec::new();
    };
    let mut k = at + 1;
    while let Some(arg) = args.get(k) {
        match arg.as_str() {
            "-b" | "-t" => k += 2,
            a if a.starts_with('-') && a.len() > 1 => k += 1,
            a => return vec![a],
        }
    }
    Vec::new()
}

/// Whether `script` is given a command to run (`-c CMD`, `--command`), rather than a shell.
fn runs_command(args: &[String]) -> bool {
    args.iter().any(|a| {
        a == "--command"
            || a.starts_with("--command=")
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('c'))
    })
}

/// `parallel … :::: F …`: the files after `::::` (up to the next `:::`).
pub(super) fn quad_files<'a>(words: impl IntoIterator<Item = &'a String>) -> Vec<&'a str> {
    let mut quad = false;
    words
        .into_iter()
        .filter_map(|w| {
            if w.starts_with(":::") {
                quad = w == "::::" || w == "::::+";
                return None;
            }
            quad.then_some(w.as_str())
        })
        .collect()
}

/// The files `NODE_OPTIONS` loads before the program: `--require F`, `-r F`, `--import F`,
/// and their `=` forms; relative or absolute paths only (a package name is not a file
/// here).
fn node_preloads(value: &str) -> Vec<&str> {
    let words: Vec<&str> = value.split_whitespace().collect();
    let mut out = Vec::new();
    for (k, w) in words.iter().enumerate() {
        let file = super::runners::node_module_option(w, words.get(k + 1).copied());
        if let Some(file) = file.filter(|f| f.starts_with('.') || f.starts_with('/')) {
            out.push(file);
        }
    }
    out
}

/// The shell lines m4 input runs (`syscmd(…)`, `esyscmd(…)`), pushed as scripts; a call
/// m4 makes by a computed name (`indir`, `builtin`, or a macro defined to one) is asked
/// about, since what it runs is only known as m4 expands it.
fn m4_escapes(text: &str, name: &str, via: &str, out: &mut Vec<Ran>) {
    let mut found = 0;
    for call in ["esyscmd", "syscmd"] {
        let mut from = 0;
        while let Some(at) = text[from..].find(call).map(|i| from + i) {
            from = at + call.len();
            // `esyscmd` holds `syscmd`: count the shorter name only where it starts a word.
            let word_start = at == 0 || !text.as_bytes()[at - 1].is_ascii_alphanumeric();
            if !word_start || !text[from..].starts_with('(') {
                continue;
            }
            let Some(args) = balanced(&text[from + 1..]) else {
                continue;
            };
            let line = unquote_m4(args);
            if found < MAX_ESCAPES && !line.trim().is_empty() {
                out.push(Ran::Script(
                    line,
                    format!("{via}, a shell line `{call}` runs"),
                    None,
                ));
                found += 1;
            }
        }
    }
    // `define(`X', `sys'`cmd')X(…)`: the name comes together as m4 expands it.
    let lower = text.to_ascii_lowercase();
    let indirect = ["indir", "builtin", "defn", "changeword"]
        .iter()
        .any(|w| lower.contains(w));
    let pieced = lower.match_indices("sys").any(|(at, _)| {
        let after = &lower[at + 3..];
        after
            .char_indices()
            .take(12)
            .any(|(i, _)| i > 0 && after[i..].starts_with("cmd"))
    });
    let computed = pieced || indirect && lower.contains("sys");
    if computed {
        out.push(Ran::Finding(Finding::ask(
            "guard:computed-command",
            format!(
                "`{name}` may run a shell command whose name its input builds as it expands \
                 ({via})"
            ),
            "Write the shell command out, or ask the user to run it.",
        )));
    }
}

/// The text up to the `)` that closes an m4 call's argument list (parentheses nest; the
/// m4 quotes `` ` `` and `'` keep what they hold).
fn balanced(text: &str) -> Option<&str> {
    let mut depth = 0usize;
    let mut quoted = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '`' => quoted += 1,
            '\'' if quoted > 0 => quoted -= 1,
            '(' if quoted == 0 => depth += 1,
            ')' if quoted == 0 => {
                if depth == 0 {
                    return Some(&text[..i]);
                }
                depth -= 1;
            }
            _ => {}
        }
    }
    None
}

/// An m4 argument as the shell receives it: one level of `` ` ``…`'` quotes taken off.
fn unquote_m4(args: &str) -> String {
    let args = args.trim();
    args.strip_prefix('`')
        .and_then(|a| a.strip_suffix('\''))
        .unwrap_or(args)
        .to_owned()
}

/// The shell lines dc input runs: `!` runs the rest of its line.
fn dc_escapes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let at = line.find('!')?;
            // `!<`, `!>`, `!=` are comparisons.
            let rest = &line[at + 1..];
            if rest.starts_with(['<', '>', '=']) {
                return None;
            }
            let rest = rest.trim();
            (!rest.is_empty()).then(|| rest.to_owned())
        })
        .take(MAX_ESCAPES)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn sed_script_files_are_found_in_every_spelling() {
        for (line, want) in [
            ("-f s.sed x", vec!["s.sed"]),
            ("-fs.sed x", vec!["s.sed"]),
            ("-nf s.sed x", vec!["s.sed"]),
            ("-i -f s.sed x", vec!["s.sed"]),
            ("--file s.sed x", vec!["s.sed"]),
            ("--file=s.sed x", vec!["s.sed"]),
            ("-if x", vec![]),
            ("-e p -f a.sed -f b.sed", vec!["a.sed", "b.sed"]),
            ("-e -f x", vec![]),
            ("-n p x", vec![]),
        ] {
            assert_eq!(sed_files(&words(line)), want, "{line}");
        }
    }

    #[test]
    fn vim_reads_sessions_vimrcs_and_typed_keys_but_not_in_ex_mode() {
        assert_eq!(vim_files("vim", &words("-S s.vim x")), vec!["s.vim"]);
        assert_eq!(vim_files("vim", &words("-S")), vec!["Session.vim"]);
        assert_eq!(vim_files("vim", &words("-u my.vim x")), vec!["my.vim"]);
        assert!(vim_files("vim", &words("-u NONE x")).is_empty());
        assert_eq!(vim_files("vim", &words("-s keys x")), vec!["keys"]);
        assert!(vim_files("vim", &words("-e -s x")).is_empty());
        assert!(vim_files("ex", &words("-s x")).is_empty());
    }

    #[test]
    fn m4_shell_calls_are_taken_out_with_their_quotes() {
        let mut out = Vec::new();
        m4_escapes(
            "define(x,1)\nsyscmd(`rm -rf build')\nesyscmd(echo (a) b)\n",
            "m4",
            "input",
            &mut out,
        );
        let lines: Vec<String> = out
            .iter()
            .filter_map(|r| match r {
                Ran::Script(line, ..) => Some(line.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(lines, vec!["echo (a) b", "rm -rf build"]);
        let mut out = Vec::new();
        m4_escapes("indir(`sys'`cmd', `rm x')", "m4", "input", &mut out);
        assert!(matches!(out.as_slice(), [Ran::Finding(_)]));
        let mut out = Vec::new();
        m4_escapes(
            "define(`greet', `hello $1')greet(world)",
            "m4",
            "input",
            &mut out,
        );
        assert!(out.is_empty());
    }

    #[test]
    fn dc_bang_runs_the_rest_of_its_line_but_comparisons_do_not() {
        assert_eq!(
            dc_escapes("1 2 +p\n!rm -rf x\n3 4 !<a\n"),
            vec!["rm -rf x".to_string()]
        );
    }

    #[test]
    fn parallel_runs_its_input_only_without_a_command() {
        assert!(runs_its_input(&words("")));
        assert!(runs_its_input(&words("-j 4")));
        assert!(runs_its_input(&words("-a jobs")));
        assert!(runs_its_input(&words(":::: jobs")));
        assert!(!runs_its_input(&words("gzip ::: a b")));
        assert!(!runs_its_input(&words("-j 4 rm")));
    }

    #[test]
    fn node_preloads_are_paths_only() {
        assert_eq!(
            node_preloads("--require ./x.js --max-old-space-size=4096 -r dotenv/config"),
            vec!["./x.js"]
        );
        assert_eq!(node_preloads("--import=/tmp/y.mjs"), vec!["/tmp/y.mjs"]);
    }
}
