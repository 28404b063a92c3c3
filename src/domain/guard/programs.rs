//! Programs a command runs that are not among its own words: a script piped into a shell
//! (`echo '…' | sh`, `curl … | bash`, `base64 -d | sh`), code given to an interpreter
//! (`python3 -c`, a here-document into `node`), and the words `xargs` receives.

use super::code::{self, Effect};
use super::finding::{Finding, operands};
use super::protect;
use super::shell::{self, Parsed, SimpleCommand};

/// Something run by a command, for the guard to check in turn.
pub(super) enum Program {
    /// A shell script, with how it reaches the shell (`echo … | sh`).
    Script(String, String),
    /// A check that already fired.
    Finding(Finding),
}

/// Most commands before a group piped into a shell that are taken as feeding it.
const MAX_GROUP_FEEDERS: usize = 64;

fn is_downloader(name: &str) -> bool {
    matches!(name, "curl" | "wget" | "fetch" | "http" | "https" | "xh")
}

/// The commands whose output reaches command `index` on its standard input: the stage
/// before it in its pipeline, or, when that stage is a group or subshell
/// (`{ curl x; } | sh`, `(curl x) | sh`), the commands before it on the line.
pub(super) fn feeders(parsed: &Parsed, index: usize) -> Vec<usize> {
    let Some(command) = parsed.commands.get(index) else {
        return Vec::new();
    };
    if command.stage == 0 {
        return Vec::new();
    }
    // Back from the command, up to the stage before the one feeding it.
    let mut same_pipeline: Vec<usize> = Vec::new();
    for j in (0..index).rev() {
        let c = &parsed.commands[j];
        if c.pipeline != command.pipeline {
            continue;
        }
        if c.stage + 1 == command.stage {
            same_pipeline.push(j);
        } else if c.stage + 1 < command.stage {
            break;
        }
    }
    same_pipeline.reverse();
    if !same_pipeline.is_empty() {
        return same_pipeline;
    }
    let mut before: Vec<usize> = (0..index)
        .rev()
        .filter(|&j| parsed.commands[j].pipeline != command.pipeline)
        .take(MAX_GROUP_FEEDERS)
        .collect();
    before.reverse();
    before
}

/// The stages whose printed names reach command `index` through its pipe: the stage
/// before it, and through each filter that only passes on what it reads (`git ls-files
/// .claude | sort | xargs git rm`: `sort` and `git ls-files`).
pub(super) fn name_printers(parsed: &Parsed, index: usize) -> Vec<usize> {
    let pipeline = parsed.commands.get(index).map(|c| c.pipeline);
    let same = |j: &usize| Some(parsed.commands[*j].pipeline) == pipeline;
    let mut out: Vec<usize> = feeders(parsed, index).into_iter().filter(same).collect();
    let mut k = 0;
    while k < out.len() && out.len() < MAX_GROUP_FEEDERS {
        let j = out[k];
        if passes_on_its_input(&parsed.commands[j]) {
            for before in feeders(parsed, j).into_iter().filter(same) {
                if !out.contains(&before) {
                    out.push(before);
                }
            }
        }
        k += 1;
    }
    out
}

/// Whether `command` reads no file of its own and prints (a part of) what it reads:
/// `sort`, `uniq`, `grep PATTERN`, `sed 's/x/y/'`, `cut -d/ -f1`, `awk '{print $2}'`.
fn passes_on_its_input(command: &SimpleCommand) -> bool {
    let args = command.args();
    let files = match command.name() {
        "sort" | "uniq" | "head" | "tail" | "tac" | "shuf" | "rev" | "nl" | "column" | "fmt"
        | "fold" | "paste" | "expand" | "unexpand" | "cat" | "tr" => {
            super::finding::operands_with(args, &["-n", "-k", "-t", "-c", "-w", "-s", "-d"], &[])
                .len()
                .saturating_sub(usize::from(command.name() == "tr") * 2)
        }
        "cut" => super::finding::operands_with(args, &["-d", "-f", "-c", "-b"], &[]).len(),
        "grep" | "egrep" | "fgrep" | "rg" => {
            let ops =
                super::finding::operands_with(args, &["-e", "-f", "-m", "-A", "-B", "-C"], &[]);
            let patterned = args.iter().any(|a| {
                matches!(a.as_str(), "-e" | "-f" | "--regexp" | "--file")
                    || a.starts_with("--regexp=")
            });
            ops.len().saturating_sub(usize::from(!patterned))
        }
        "sed" | "gsed" | "awk" | "gawk" | "mawk" | "nawk" => {
            if shell::has_flag(args, "i", &["in-place"]) {
                return false;
            }
            let ops = super::finding::operands_with(args, &["-e", "-f", "-F", "-v"], &[]);
            let scripted = args.iter().any(|a| matches!(a.as_str(), "-e" | "-f"));
            ops.len().saturating_sub(usize::from(!scripted))
        }
        _ => return false,
    };
    files == 0 && command.reads_from.is_empty()
}

/// The printers of the process substitutions an `xargs` (or `parallel`) in front of
/// `command` reads its names from: `xargs rm < <(git ls-files)`, `xargs -a <(ls) rm`,
/// `parallel rm :::: <(…)`. The last stage of each, as a pipe into it would be.
pub(super) fn substituted_feeders<'p>(
    parsed: &'p Parsed,
    command: &SimpleCommand,
) -> Vec<&'p SimpleCommand> {
    let original = command.prefixed.as_deref().unwrap_or(&[]);
    let read: Vec<&str> = command
        .reads_from
        .iter()
        .chain(original.iter())
        .map(|w| w.strip_prefix("--arg-file=").unwrap_or(w))
        .filter(|w| w.starts_with("<("))
        .collect();
    let mut out = Vec::new();
    for (word, range) in &command.substitutions {
        if !read.contains(&word.as_str()) {
            continue;
        }
        let inside: Vec<&SimpleCommand> = parsed
            .commands
            .get(range.clone())
            .into_iter()
            .flatten()
            .collect();
        let Some(last) = inside.iter().rfind(|c| c.via.len() == inside[0].via.len()) else {
            continue;
        };
        out.extend(
            inside
                .iter()
                .filter(|c| c.pipeline == last.pipeline && c.stage == last.stage)
                .copied(),
        );
    }
    out
}

/// What an `xargs` or `parallel` in front of command `index` hands it: the words `echo`,
/// `printf` and `ls` print and the start points of an unfiltered `find`.
pub(super) fn xargs_fed(parsed: &Parsed, index: usize) -> Vec<String> {
    let command = &parsed.commands[index];
    if !command.under_xargs() {
        return Vec::new();
    }
    // `xargs rm -rf <<< '/'`: its own here-string or here-document.
    let mut fed: Vec<String> = command
        .stdin_texts
        .iter()
        .flat_map(|t| t.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .take(256)
        .collect();
    // `xargs -a <(echo ~) rm -rf`: its input from a file the line prints.
    let original = command.prefixed.as_deref().unwrap_or(&[]);
    // `xargs rm -rf < <(echo ~)`: its standard input from one.
    let from_stdin = command.reads_from.iter().map(String::as_str);
    let files = original
        .iter()
        .enumerate()
        .filter_map(|(k, w)| {
            // `-a F`, `-0a F` (a cluster ending in the option), `--arg-file[=]F`.
            let cluster = shell::short_cluster(w).is_some_and(|c| c.ends_with('a'));
            if cluster || w == "--arg-file" {
                original.get(k + 1).map(String::as_str)
            } else {
                w.strip_prefix("--arg-file=")
            }
        })
        .chain(from_stdin)
        // `parallel rm -rf :::: <(echo ~)`: its arguments from files.
        .chain(
            original
                .iter()
                .skip_while(|w| !w.starts_with("::::"))
                .skip(1)
                .take_while(|w| !w.starts_with(":::"))
                .map(String::as_str),
        )
        .collect::<Vec<_>>();
    for file in files {
        if let Some(file) = Some(file).filter(|f| f.starts_with("<("))
            && let Some(text) = substituted_text(parsed, command, file)
        {
            fed.extend(
                text.split(['\n', '\0', ' ', '\t'])
                    .filter(|w| !w.is_empty())
                    .map(str::to_owned),
            );
        }
    }
    for j in feeders(parsed, index) {
        let feeder = &parsed.commands[j];
        let args = feeder.args();
        match feeder.name() {
            "echo" | "printf" => fed.extend(
                printed_text(feeder)
                    .split(['\n', '\0', ' ', '\t'])
                    .filter(|w| !w.is_empty())
                    .map(str::to_owned),
            ),
            // `git ls-files | xargs rm`: every tracked file, marked for the checks.
            "git"
                if args.iter().any(|a| a == "ls-files")
                    && !args
                        .iter()
                        .skip_while(|a| *a != "ls-files")
                        .skip(1)
                        .any(|a| {
                            !a.starts_with("--full")
                                && !matches!(a.as_str(), "-z" | "--cached" | "-c")
                        }) =>
            {
                fed.push("\u{0}git-ls-files".into());
            }
            "ls" => fed.extend(
                operands(args)
                    .into_iter()
                    .flat_map(|a| a.split("\\n"))
                    .flat_map(str::split_whitespace)
                    .map(str::to_owned),
            ),
            // A name test that matches everything (`-name '*'`) narrows nothing.
            "find"
                if !args.iter().enumerate().any(|(k, a)| {
                    (a.starts_with("-name")
                        || a.starts_with("-path")
                        || a.starts_with("-iname")
                        || a.starts_with("-regex"))
                        && !args
                            .get(k + 1)
                            .is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b == b'*'))
                }) =>
            {
                fed.extend(shell::find_starts(args).iter().cloned());
            }
            _ => {}
        }
    }
    fed
}

/// The text `echo` or `printf` prints, as a script would read it.
pub(super) fn printed_text(command: &SimpleCommand) -> String {
    let args = command.args();
    if command.name() == "printf" {
        // The format with its escapes, each `%s`/`%b` taking the next argument (the
        // format used again while arguments are left).
        let args: Vec<&str> = args
            .iter()
            .map(String::as_str)
            .skip_while(|a| *a == "--" || *a == "-v")
            .collect();
        let Some((format, rest)) = args.split_first() else {
            return String::new();
        };
        let mut out = String::new();
        let mut rest = rest.iter();
        for _ in 0..64 {
            let mut used = false;
            let mut chars = format.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '%' {
                    match chars.next() {
                        Some('%') => out.push('%'),
                        Some(_) => {
                            // Flags and width (`%-10s`) are skipped up to the letter.
                            out.push_str(&unescape(rest.next().copied().unwrap_or("")));
                            used = true;
                        }
                        None => out.push('%'),
                    }
                } else {
                    out.push(c);
                }
            }
            if !used || rest.len() == 0 {
                break;
            }
        }
        return unescape(&out);
    }
    let words: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .skip_while(|a| matches!(*a, "-n" | "-e" | "-E" | "-ne" | "-en"))
        .collect();
    unescape(&words.join(" "))
}

/// `\n`, `\t`, `\xHH`, `\0NNN`/`\NNN` and `\\` as `printf` and `echo -e` print them.
fn unescape(text: &str) -> String {
    if !text.contains('\\') {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' || i + 1 >= bytes.len() {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let next = bytes[i + 1];
        i += 2;
        match next {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'\\' => out.push(b'\\'),
            b'x' => {
                let hex: Vec<u8> = bytes[i..]
                    .iter()
                    .take(2)
                    .take_while(|b| b.is_ascii_hexdigit())
                    .copied()
                    .collect();
                i += hex.len();
                let value = std::str::from_utf8(&hex)
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                out.extend(value);
            }
            b'0'..=b'7' => {
                let start = if next == b'0' { i } else { i - 1 };
                let digits: Vec<u8> = bytes[start..]
                    .iter()
                    .take(3)
                    .take_while(|b| (b'0'..=b'7').contains(b))
                    .copied()
                    .collect();
                i = start + digits.len();
                let value = std::str::from_utf8(&digits)
                    .ok()
                    .and_then(|d| u8::from_str_radix(d, 8).ok());
                out.extend(value.or(Some(0)));
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `$(curl …)`, `` `wget …` ``, `<(curl …)`: a word of `command` that is a substitution
/// running a command `wanted` picks. Names that command.
fn substituted(
    parsed: &Parsed,
    command: &SimpleCommand,
    word: &str,
    wanted: impl Fn(&SimpleCommand) -> bool,
) -> Option<String> {
    if !(word.starts_with("$(") || word.starts_with("<(") || word.starts_with('`')) {
        return None;
    }
    let (_, runs) = command.substitutions.iter().find(|(w, _)| w == word)?;
    let end = runs.end.min(parsed.commands.len());
    parsed
        .commands
        .get(runs.start.min(end)..end)?
        .iter()
        .find(|c| wanted(c))
        .map(|c| format!("`{}`", c.name()))
}

fn hidden(via: &str) -> Program {
    Program::Finding(Finding::deny(
        "guard:hidden-program",
        format!("runs a program hidden by {via}, which nobody can review"),
        "Decode it to a file, read it, and run it only if the user agrees.",
    ))
}

fn downloaded(source: &str) -> Program {
    Program::Finding(Finding::deny(
        "guard:pipe-to-shell",
        format!("runs a program downloaded by {source} without review"),
        "Download it to a file, read it, and run it only if the user agrees.",
    ))
}

/// Every program command `index` runs beyond its words. `allowed[j]`: command `j` is
/// exempted by `[guard] allow` (an allowed downloader exempts what it feeds).
pub(super) fn programs(
    parsed: &Parsed,
    index: usize,
    allowed: &[bool],
    binary: Option<&str>,
) -> Vec<Program> {
    let command = &parsed.commands[index];
    let mut out = Vec::new();
    let from_word = |word: &String| substituted(parsed, command, word, |c| is_downloader(c.name()));
    if let Some(source) = command.argv.first().and_then(from_word) {
        out.push(downloaded(&source));
        return out;
    }
    let name = command.name();
    if let Some(code) = shell::inline_program(&command.argv) {
        out.extend(code_programs(&code, name, binary));
    }
    if matches!(name, "sqlite3" | "sqlite" | "duckdb") {
        // `.shell cmd` and `.system cmd` run a command line.
        // `.read '|cmd'`, `.output '|cmd'`, `.once '|cmd'`: a command line read from or
        // written to through a pipe. Each line of an argument is a command of its own.
        let texts: Vec<String> = command
            .args()
            .iter()
            .chain(command.stdin_texts.iter())
            .map(|a| super::sql::full_dots(a).into_owned())
            .collect();
        let lines = texts.iter().flat_map(|a| a.lines()).map(str::trim);
        for arg in lines {
            // `.cd DIR` moves what later dot-commands name; `.load` runs a library's
            // native code; `edit()` runs an editor the SQL names.
            let dot = arg.split_whitespace().next().unwrap_or_default();
            let edits = arg.to_ascii_lowercase().replace(' ', "").contains("edit(");
            if matches!(dot, ".cd" | ".load") || edits || arg.contains("load_extension") {
                out.push(Program::Finding(Finding::ask(
                    "guard:sql-runs",
                    format!(
                        "gives `{name}` `{}`, which changes its folder or runs a program or \
                         native code nagger cannot read",
                        arg.chars().take(80).collect::<String>()
                    ),
                    "Run the statements without it, or ask the user.",
                )));
            }
            let piped = [".read ", ".output ", ".once ", ".import "]
                .iter()
                .find_map(|dot| arg.strip_prefix(dot))
                .map(|rest| rest.trim().trim_matches(['\'', '"']))
                .and_then(|target| target.strip_prefix('|'));
            let script = arg
                .strip_prefix(".shell ")
                .or_else(|| arg.strip_prefix(".system "))
                .or(piped);
            if let Some(script) = script {
                out.push(Program::Script(
                    script.to_owned(),
                    format!("`{name}` dot-command"),
                ));
            }
            // `.read '|cmd'`: what the command prints is run as SQL and dot-commands.
            if arg.starts_with(".read ") && piped.is_some() {
                out.push(Program::Finding(Finding::ask(
                    "guard:unseen-script",
                    format!(
                        "gives `{name}` `{}`, whose output it runs as its own commands, which \
                         nagger cannot see",
                        arg.chars().take(80).collect::<String>()
                    ),
                    "Write the commands to a file, read it, and `.read` the file.",
                )));
            }
        }
    }
    if parsed.coprocess && index == 0 {
        out.push(Program::Finding(Finding::ask(
            "guard:unseen-script",
            "starts a coprocess (`coproc`), whose input the line writes to it later, which \
             nagger cannot see"
                .into(),
            "Write the script to a file, read it, and run the file.",
        )));
    }
    if let Some(found) = code_from_elsewhere(command) {
        out.push(found);
        return out;
    }
    if let Some(script) = filter_command(command) {
        out.push(Program::Script(
            script,
            format!("the command `{name}` runs"),
        ));
    }
    if matches!(name, "crontab" | "at" | "batch") {
        out.extend(scheduled(parsed, index));
        return out;
    }
    // `sudo -i`, `su`, `ssh host` with nothing to run: a shell reading standard input.
    let login_shell = match name {
        "sudo" | "doas" => command.args().iter().all(|a| a.starts_with('-')),
        "su" | "runuser" => !shell::has_flag(command.args(), "c", &["command"]),
        "ssh" => operands(command.args()).len() <= 1,
        _ => false,
    };
    let runs_code =
        shell::is_interpreter(name) || matches!(name, "source" | "." | "eval") || login_shell;
    if !runs_code {
        return out;
    }
    if let Some(source) = command.args().iter().find_map(from_word) {
        out.push(downloaded(&source));
        return out;
    }
    let decoded = |word: &String| substituted(parsed, command, word, shell::is_decoder);
    if let Some(decoder) = command.args().iter().find_map(decoded) {
        out.push(hidden(&format!("{decoder} in `{name}`")));
        return out;
    }
    if let Some(first) = operands(command.args()).first()
        && first.starts_with("<(")
        && shell::inline_code(&command.argv).is_none()
    {
        // `bash <(echo …)`: the program is what the substitution prints.
        let via = format!("`<(…)` read by `{name}`");
        let sourced = matches!(name, "source" | ".");
        match substituted_text(parsed, command, first) {
            Some(text) if shell::is_shell(name) || sourced => {
                out.push(Program::Script(text, via));
            }
            Some(text) => out.extend(code_programs(&text, name, binary)),
            // `source <(kubectl completion bash)`: a tool's own set-up for the shell, as
            // `eval "$(tool init)"`; its command is checked on its own.
            None if sourced && tool_setup(parsed, command, first) => {}
            None => out.push(unseen(&via)),
        }
        return out;
    }
    if let Some(first) = operands(command.args()).first()
        && (shell::is_shell(name) || matches!(name, "source" | "."))
        && shell::inline_code(&command.argv).is_none()
        && !shell::has_flag(command.args(), "c", &[])
        && !shell::only_checks_syntax(&command.argv)
        && shell::basename(first).contains(['$', '`'])
        && command.computed.iter().any(|w| w == first)
    {
        // `bash "$SCRIPT"`: which script runs is only known when the shell runs.
        out.push(Program::Finding(Finding::ask(
            "guard:computed-command",
            format!("runs the script `{first}`, only known when the shell runs"),
            "Spell the script's path out so it can be checked.",
        )));
        return out;
    }
    let stdin_file = matches!(name, "source" | ".")
        && operands(command.args()).first().is_some_and(|f| {
            matches!(*f, "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0" | "-")
                    // `source /dev/fd/3 3<<< '…'`: the text the line gives that descriptor.
                    || f.starts_with("/dev/fd/") && !command.stdin_texts.is_empty()
        });
    if !(shell::reads_program_from_stdin(&command.argv) || stdin_file || login_shell)
        || (shell::is_shell(name) && shell::has_flag(command.args(), "n", &["noexec"]))
        || shell::only_checks_syntax(&command.argv)
    {
        // `sh -n` reads its program without running it.
        return out;
    }
    if let Some(source) = command.reads_from.iter().find_map(from_word) {
        out.push(downloaded(&source));
        return out;
    }
    // `sh -s < <(echo …)`: the program is what the substitution prints.
    if let Some(word) = command.reads_from.iter().find(|w| w.starts_with("<(")) {
        let via = format!("`< <(…)` read by `{name}`");
        match substituted_text(parsed, command, word) {
            Some(text) if shell::is_shell(name) || stdin_file || login_shell => {
                out.push(Program::Script(text, via));
            }
            Some(text) => out.extend(code_programs(&text, name, binary)),
            None => out.push(unseen(&via)),
        }
    }
    let is_shell = shell::is_shell(name) || stdin_file || login_shell;
    if is_shell {
        for text in &command.stdin_texts {
            if stdin_file || login_shell {
                out.push(Program::Script(
                    text.clone(),
                    format!("`{name}` reading its input"),
                ));
            }
        }
    }
    if !is_shell {
        // Beside code that does more than read, the input is that code's data (`perl
        // -lne unlink <<< FILE`): naming nagger's files in it is never a reader's.
        let lang = code::Language::of(name);
        let readers = shell::inline_code(&command.argv)
            .iter()
            .all(|code| protect::only_reads(lang, code));
        for text in &command.stdin_texts {
            out.extend(code_programs_of(text, name, binary, readers));
        }
    }
    let upstream_download = (0..index).find(|&j| {
        let earlier = &parsed.commands[j];
        earlier.pipeline == command.pipeline
            && earlier.stage < command.stage
            && is_downloader(earlier.name())
            && !allowed.get(j).copied().unwrap_or(false)
    });
    if let Some(j) = upstream_download {
        out.push(downloaded(&format!("`{}`", parsed.commands[j].name())));
        return out;
    }
    // Under `xargs`, the pipe is xargs' own input: an editor it starts (`xargs vim -es
    // -c …`) reads no commands from it (its input is `/dev/null`), unless xargs took its
    // words from a file (`-a`). A shell or interpreter it starts runs the files it is
    // handed, judged below.
    let from_file = command.prefixed.iter().flatten().any(|w| {
        w == "--arg-file"
            || w.starts_with("--arg-file=")
            || shell::short_cluster(w).is_some_and(|c| c.contains('a'))
    });
    if command.under_xargs() && !from_file && shell::is_vim(name) {
        return out;
    }
    for j in feeders(parsed, index) {
        let feeder = &parsed.commands[j];
        if allowed.get(j).copied().unwrap_or(false) {
            continue;
        }
        let via = format!("`{}` piped into `{name}`", feeder.name());
        if is_downloader(feeder.name()) {
            out.push(downloaded(&format!("`{}`", feeder.name())));
        } else if shell::is_decoder(feeder) {
            out.push(hidden(&via));
        } else if matches!(feeder.name(), "echo" | "printf") {
            if feeder.args().iter().any(|a| feeder.computed.contains(a)) {
                out.push(Program::Finding(Finding::ask(
                    "guard:computed-command",
                    format!("runs a program only known when the shell runs ({via})"),
                    "Spell the command out so it can be checked.",
                )));
            }
            let text = printed_text(feeder);
            if is_shell {
                out.push(Program::Script(text, via));
            } else {
                out.extend(code_programs(&text, name, binary));
            }
        } else {
            match shown_output(parsed, j, 0) {
                Shown::Text(texts) => {
                    for text in texts {
                        if is_shell {
                            out.push(Program::Script(text, via.clone()));
                        } else {
                            out.extend(code_programs(&text, name, binary));
                        }
                    }
                }
                Shown::Downloaded(source) => out.push(downloaded(&source)),
                Shown::Hidden => out.push(unseen(&via)),
            }
        }
    }
    out
}

/// What a command prints, as far as the line shows it.
pub(super) enum Shown {
    /// Texts it prints: its here-documents, what `echo` prints.
    Text(Vec<String>),
    /// A downloader's output reaches it.
    Downloaded(String),
    /// Output of a program nagger cannot see into (`python3 gen.py`, `cat script.sh`).
    Hidden,
}

/// Programs that pass their standard input on unchanged (`cat`, `tee x`, `pv`).
fn passes_input_on(command: &SimpleCommand) -> bool {
    let args = command.args();
    match command.name() {
        "cat" | "pv" | "buffer" | "mbuffer" => operands(args).is_empty(),
        "tee" | "dd" | "stdbuf" => true,
        "head" | "tail" => operands(args).is_empty(),
        _ => false,
    }
}

/// Most pass-through stages followed back to the command that prints.
const MAX_PASS_THROUGH: usize = 16;

/// What command `index` prints: through `cat`, `tee` and the like back to what feeds them.
fn shown_output(parsed: &Parsed, index: usize, depth: usize) -> Shown {
    let command = &parsed.commands[index];
    if is_downloader(command.name()) {
        return Shown::Downloaded(format!("`{}`", command.name()));
    }
    if matches!(command.name(), "echo" | "printf") {
        if command.args().iter().any(|a| command.computed.contains(a)) {
            return Shown::Hidden;
        }
        return Shown::Text(vec![printed_text(command)]);
    }
    // `ls -d .claude*`: the names it is given, as the shell expands them.
    if command.name() == "ls" && shell::has_flag(command.args(), "d", &["directory"]) {
        // `ls -d ~/x` prints `/home/u/x`: what it prints is no longer a word the shell
        // expands, so the home is filled in where the word names it.
        let home = crate::base::paths::home_dir();
        let printed: Vec<String> = operands(command.args())
            .into_iter()
            .map(|op| {
                let op = super::paths::here_and_home(op);
                match (&home, op.strip_prefix('~')) {
                    (Some(home), Some(rest)) if rest.is_empty() || rest.starts_with('/') => {
                        format!("{}{rest}", home.display())
                    }
                    _ => op,
                }
            })
            .collect();
        return Shown::Text(vec![printed.join("\n")]);
    }
    if !command.stdin_texts.is_empty() && passes_input_on(command) {
        return Shown::Text(command.stdin_texts.clone());
    }
    if !passes_input_on(command) || depth >= MAX_PASS_THROUGH {
        return Shown::Hidden;
    }
    let mut texts = Vec::new();
    let sources = feeders(parsed, index);
    if sources.is_empty() {
        return Shown::Hidden;
    }
    for j in sources {
        match shown_output(parsed, j, depth + 1) {
            Shown::Text(t) => texts.extend(t),
            other => return other,
        }
    }
    Shown::Text(texts)
}

/// Code reaching a shell or a builtin where the line does not show it: a shell reading
/// its program from a `>(…)` it sits in (`tee >(sh)`, `exec 3> >(sh)`), a coprocess
/// (`coproc sh`, written to later through its descriptors), `mapfile -C` (a callback run
/// with each line read), `compgen -C`/`complete -C` of a computed command, `enable -f`
/// (native code loaded into bash), `source /dev/fd/3` of a descriptor the line opens on
/// a file. Asked about.
fn code_from_elsewhere(command: &SimpleCommand) -> Option<Program> {
    let name = command.name();
    let args = command.args();
    let ask = |what: String| {
        Some(Program::Finding(Finding::ask(
            "guard:unseen-script",
            format!("{what}, which nagger cannot see"),
            "Write the script to a file, read it, and run the file.",
        )))
    };
    let in_output_substitution =
        matches!(command.via.last(), Some(shell::Via::ProcessSubstitution));
    if in_output_substitution && shell::reads_program_from_stdin(&command.argv) {
        return ask(format!(
            "runs `{name}` inside `>(…)`, reading as its program what is written there"
        ));
    }
    if name == "coproc" || command.prefixes.iter().any(|p| p == "coproc") {
        return ask("starts a coprocess, whose input the line writes to it later".into());
    }
    if matches!(name, "mapfile" | "readarray") && shell::has_flag(args, "C", &[]) {
        return ask(format!(
            "gives `{name}` a callback run with each line it reads"
        ));
    }
    if matches!(name, "compgen" | "complete")
        && let Some(value) = shell::option_values(args, &["-C"], &[]).first()
        && (value.contains(['$', '`']) || command.computed.iter().any(|w| w == value))
    {
        return ask(format!(
            "gives `{name} -C` a command only known when the shell runs"
        ));
    }
    // `split --filter=sh`: a shell reading its program from each piece it is handed.
    if let Some(script) = filter_command(command)
        && shell::parse(&script)
            .commands
            .iter()
            .any(|c| shell::reads_program_from_stdin(&c.argv))
    {
        return ask(format!(
            "runs `{script}` on what `{name}` hands it, as its program"
        ));
    }
    if name == "enable"
        && args
            .iter()
            .any(|a| a.starts_with("-f") || a.contains('f') && a.starts_with('-'))
    {
        return ask("loads native code into the shell (`enable -f`)".into());
    }
    if matches!(name, "source" | ".")
        && let Some(file) = operands(args).first()
    {
        let descriptor = file
            .strip_prefix("/dev/fd/")
            .or_else(|| file.strip_prefix("/proc/self/fd/"))
            .or_else(|| {
                file.strip_prefix("/proc/")
                    .and_then(|r| r.split_once("/fd/"))
                    .map(|(_, n)| n)
            });
        if descriptor.is_some_and(|n| n != "0") && command.stdin_texts.is_empty() {
            return ask(format!(
                "reads its program from `{file}`, a descriptor the line opens"
            ));
        }
    }
    None
}

/// The command line a program runs on what it produces: `split --filter=CMD`.
fn filter_command(command: &SimpleCommand) -> Option<String> {
    if command.name() != "split" {
        return None;
    }
    let value = shell::option_values(command.args(), &[], &["--filter"])
        .first()
        .map(|v| (*v).to_owned())?;
    Some(value)
}

/// Programs whose output is what a project's files or its programs hold: a printer of
/// files, or a runner of the project's code. What they print is no tool's own set-up.
const PROJECT_PRINTERS: &[&str] = &[
    "cat", "tac", "head", "tail", "sort", "uniq", "cut", "paste", "nl", "less", "more", "grep",
    "egrep", "fgrep", "rg", "sed", "awk", "gawk", "mawk", "tr", "rev", "column", "fold", "fmt",
    "base64", "base32", "xxd", "od", "dd", "tee", "envsubst", "m4", "cpp", "jq", "yq", "git",
    "make", "gmake", "npm", "npx", "yarn", "pnpm", "bun", "just", "task", "cargo", "go", "mvn",
    "gradle", "rake", "bundle", "composer", "xargs", "find", "env", "command", "exec", "sudo",
    "readlink", "realpath", "basename", "dirname", "printenv", "strings", "zcat", "gzip", "bzcat",
    "xzcat", "zstdcat", "unzip", "tar", "curl", "wget",
];

/// Whether the commands of the substitution in `word` of `command` print a tool's own
/// set-up for the shell (`ssh-agent -s`, `kubectl completion bash`, `direnv hook bash`):
/// installed programs, none of which prints a file or runs the project's code. Their
/// output is then left to them; anything else evaluated is only known as it runs.
pub(super) fn tool_setup(parsed: &Parsed, command: &SimpleCommand, word: &str) -> bool {
    let Some((_, runs)) = command.substitutions.iter().find(|(w, _)| w == word) else {
        return false;
    };
    let end = runs.end.min(parsed.commands.len());
    let inner = &parsed.commands[runs.start.min(end)..end];
    !inner.is_empty()
        && inner.len() <= 4
        && inner.iter().all(|c| {
            let name = c.name();
            !c.argv[0].contains(['/', '$', '`'])
                && !shell::is_interpreter(name)
                && !PROJECT_PRINTERS.contains(&name)
                && c.prefixes.is_empty()
                && c.reads_from.is_empty()
                && c.stdin_texts.is_empty()
        })
}

/// The text a `<(…)` word's commands print, when they only print text the line shows.
pub(super) fn substituted_text(
    parsed: &Parsed,
    command: &SimpleCommand,
    word: &str,
) -> Option<String> {
    match substituted_output(parsed, command, word)? {
        Shown::Text(texts) if !texts.is_empty() => Some(texts.join("\n")),
        _ => None,
    }
}

/// What the commands of the `<(…)` word `word` print: their texts where the line shows
/// them, else the first download or hidden output met. `None` for a word that is no
/// substitution of `command`.
pub(super) fn substituted_output(
    parsed: &Parsed,
    command: &SimpleCommand,
    word: &str,
) -> Option<Shown> {
    let (_, runs) = command.substitutions.iter().find(|(w, _)| w == word)?;
    let end = runs.end.min(parsed.commands.len());
    let mut texts = Vec::new();
    for k in runs.start.min(end)..end {
        if parsed.commands[k].stage > 0 {
            continue; // a later stage of a pipeline inside: judged by what feeds it
        }
        match shown_output(parsed, k, 0) {
            Shown::Text(t) => texts.extend(t),
            other => return Some(other),
        }
    }
    Some(Shown::Text(texts))
}

/// The jobs `crontab`, `at` and `batch` are given to run later: each line of a crontab
/// fed on standard input (its schedule taken off), the script `at` reads. A table or
/// script nagger cannot see is asked about, and so is removing the whole table.
fn scheduled(parsed: &Parsed, index: usize) -> Vec<Program> {
    let command = &parsed.commands[index];
    let name = command.name();
    let args = command.args();
    let mut out = Vec::new();
    let ops = operands(args);
    if name == "crontab" {
        if has_option(args, 'l') {
            return out;
        }
        if has_option(args, 'r') || has_option(args, 'e') {
            out.push(Program::Finding(Finding::ask(
                "guard:scheduled-job",
                "edits or removes the user's whole table of scheduled jobs (`crontab`)".into(),
                "Ask the user to change their crontab.",
            )));
            return out;
        }
    }
    let file = if name == "crontab" {
        ops.first().filter(|f| **f != "-").copied()
    } else {
        option_value(args, "-f")
    };
    let via = format!("`{name}` job");
    if let Some(file) = file {
        out.push(unseen(&format!("{via} from `{file}`")));
        return out;
    }
    let mut texts = command.stdin_texts.clone();
    for j in feeders(parsed, index) {
        let feeder = &parsed.commands[j];
        if feeder.name() == "crontab" && has_option(feeder.args(), 'l') {
            continue; // the table already installed
        }
        match shown_output(parsed, j, 0) {
            Shown::Text(t) => texts.extend(t),
            Shown::Downloaded(source) => out.push(downloaded(&source)),
            Shown::Hidden => out.push(unseen(&via)),
        }
    }
    for text in texts {
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let script = if name != "crontab" {
                line.to_owned()
            } else if line.starts_with('@') {
                line.split_once(char::is_whitespace)
                    .map_or("", |(_, r)| r)
                    .to_owned()
            } else {
                let first = line.split_whitespace().next().unwrap_or("");
                if first.contains('=') && !first.starts_with('=') {
                    continue; // `MAILTO=…`: a setting of the table
                }
                line.split_whitespace()
                    .skip(5)
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            if !script.is_empty() {
                out.push(Program::Script(script, via.clone()));
            }
        }
    }
    out
}

/// Whether the short option `flag` stands alone or in a cluster among `args`.
fn has_option(args: &[String], flag: char) -> bool {
    args.iter().any(|a| {
        a.strip_prefix('-')
            .is_some_and(|f| !f.starts_with('-') && f.contains(flag))
    })
}

/// The value of short option `flag` (`-f file`, `-ffile`).
fn option_value<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    args.iter().enumerate().find_map(|(k, a)| {
        if a == flag {
            args.get(k + 1).map(String::as_str)
        } else {
            a.strip_prefix(flag).filter(|v| !v.is_empty())
        }
    })
}

/// A script whose text the line does not show, run by a shell or interpreter.
fn unseen(via: &str) -> Program {
    Program::Finding(Finding::ask(
        "guard:unseen-script",
        format!("runs a script nagger cannot see ({via})"),
        "Write the script to a file, read it, and run the file.",
    ))
}

/// What code given to `interpreter` runs and changes, to be checked in turn.
pub(super) fn interpreter_code(
    code: &str,
    interpreter: &str,
    binary: Option<&str>,
) -> Vec<Program> {
    code_programs(code, interpreter, binary)
}

/// The shell commands, deletions and writes of nagger's own files in interpreter code,
/// read in the language of `interpreter`; what the code does that cannot be known from
/// its text is asked about. `binary`: the running nagger program, when known.
fn code_programs(code: &str, interpreter: &str, binary: Option<&str>) -> Vec<Program> {
    code_programs_of(code, interpreter, binary, true)
}

/// [`code_programs`]; `readers`: code that only reads may name nagger's files.
fn code_programs_of(
    code: &str,
    interpreter: &str,
    binary: Option<&str>,
    readers: bool,
) -> Vec<Program> {
    let lang = code::Language::of(interpreter);
    let mut unsure = false;
    let mut unknown: Option<String> = None;
    let mut out: Vec<Program> = code::effects_in(code, lang)
        .into_iter()
        .filter_map(|effect| match effect {
            Effect::Shell(script) => Some(Program::Script(script, format!("`{interpreter}` code"))),
            Effect::Deletes(harm) => Some(Program::Finding(Finding::deny(
                "guard:rm-rf",
                format!("{harm} (in `{interpreter}` code)"),
                "Delete specific paths inside the project instead.",
            ))),
            Effect::Writes(None) => {
                unsure = true;
                None
            }
            Effect::Writes(Some(path)) => super::important::judged(&path)
                .or_else(|| {
                    // `unlink join('', '.cla', 'ude/settings.json')` in a module it loads.
                    let (what, _) = protect::protected(&path, binary)?;
                    Some(protect::finding(&format!("changes `{path}`, {what}")))
                })
                .or_else(|| {
                    if path.starts_with("/dev/") {
                        return None;
                    }
                    let what =
                        super::targets::dangerous_target(&path, super::targets::Reach::Tree)?;
                    Some(Finding::deny(
                        "guard:rm-rf",
                        format!("moves or overwrites {what}"),
                        "Work on specific paths inside the project instead.",
                    ))
                })
                .map(|f| {
                    Program::Finding(Finding {
                        harm: format!("{} (in `{interpreter}` code)", f.harm),
                        ..f
                    })
                })
                .or_else(|| {
                    // A path out of the working folder (`../proj`, `/home/me`): judged
                    // as the same path moved away by the shell, from where the code runs,
                    // so the project, the home and the folders holding them are known.
                    let away = path.starts_with('/') || path.split('/').any(|p| p == "..");
                    (away && !path.starts_with("/dev/")).then(|| {
                        let q = super::shell::shell_quote(&path);
                        Program::Script(
                            format!("mv -- {q} {q}.moved"),
                            format!("a path `{interpreter}` code writes, moves or deletes"),
                        )
                    })
                }),
            Effect::Unknown(why) => {
                unknown.get_or_insert(why);
                None
            }
        })
        .collect();
    if let Some(why) = unknown {
        out.push(Program::Finding(Finding::ask(
            "guard:code-unknown",
            format!("`{interpreter}` code {why}, which cannot be checked from its text"),
            "Spell out the commands and paths the code uses, or put it in a script file for review.",
        )));
    }
    // A sed or awk program naming a protected file only edits text unless it writes
    // (which self-protection judges on its own).
    let bare = matches!(
        lang,
        code::Language::Tcl
            | code::Language::Debugger
            | code::Language::Vim
            | code::Language::Generic
    );
    let names = !matches!(lang, code::Language::Sed | code::Language::Awk)
        && (protect::named_in_code(code, binary) || (bare && protect::named_bare(code, binary)))
        && !(readers && protect::only_reads(lang, code));
    if names {
        out.push(Program::Finding(protect::named_finding(interpreter)));
    } else if unsure && let Some(decoder) = shell::decoding_call(code) {
        // Names hidden on purpose: read as a danger even in a project's own file.
        out.push(Program::Finding(Finding::ask(
            "guard:self-protect-hidden",
            format!(
                "writes, moves or deletes files whose names `{interpreter}` code decodes \
                 from hidden text (`{decoder}`), which may be nagger's own files or Claude \
                 Code's settings"
            ),
            "Spell the paths out in the code so they can be checked.",
        )));
    } else if unsure {
        out.push(Program::Finding(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "writes, moves or deletes files whose names `{interpreter}` code computes, \
                 which may be nagger's own files or Claude Code's settings"
            ),
            "Spell the paths out in the code so they can be checked.",
        )));
    }
    out
}
