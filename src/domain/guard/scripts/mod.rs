//! Programs a command runs from files already on disk: a shell script (`bash x.sh`,
//! `source env.sh`, `./build.sh`), a program file for an interpreter (`python3 tool.py`,
//! `./x.py` with its `#!` line), the recipes `make` runs from a Makefile, and the scripts
//! package managers run from `package.json` (`npm test`, `yarn build`). Each file is read
//! bounded, only when it is a regular file, and without ever blocking; what it holds is
//! handed back to be checked like the same text on the command line.
//!
//! A project's own files are long and use what only the running shell knows (`$1`,
//! functions, loops), so of what their content yields only what names a risk is kept
//! ([`carries_over`]): refusals, and asks about a named danger. An ask that only says a
//! part could not be analysed is not raised for them: for the files git keeps unchanged.
//! A file that is new or changed may be one an agent just wrote, with its danger spelled
//! so that no literal check sees it; what it holds is judged like the command line
//! ([`carries_over_fresh`]).

mod arguments;
mod buildcode;
mod builds;
mod bytecode;
mod compiled;
mod configs;
mod crates;
mod files;
mod frameworks;
mod git_runs;
mod imports;
mod later;
mod lookup;
mod make;
mod opaque;
mod outdirs;
mod package;
mod queries;
mod runners;
mod sources;
mod tasks;
#[cfg(test)]
mod tests;
mod values;

use std::path::Path;

use super::finding::{Finding, operands};
use super::protect::Cwd;
use super::shell::{self, Parsed, SimpleCommand};
use files::{read_named, shebang};
use values::with_line_values;

pub(super) use files::{Files, Ran, View};

/// Checks whose ask only says that a part could not be analysed, and reads of secrets: a
/// project's scripts load its `.env` the way they are meant to. Neither is raised for what
/// a file on disk holds.
const NOT_CARRIED: &[&str] = &[
    "guard:unanalysable",
    "guard:computed-command",
    "guard:code-unknown",
    "guard:unseen-script",
    "guard:self-protect-unsure",
    "guard:foreign-code",
    "guard:path-unknown",
    "guard:secret",
];

/// Whether a finding made on the content of a file on disk is raised for the call that
/// runs it: every other refusal and every ask about a named danger.
pub(super) fn carries_over(finding: &Finding) -> bool {
    !NOT_CARRIED.contains(&finding.check)
}

/// Whether a finding made on the content of a file that is not settled (new, or changed
/// since git last kept it: what an agent may have just written) is raised: all but reads
/// of the project's own secrets (its `.env`, which its scripts use). Such a file is the
/// agent's own command line, put off by a call, and judged as strictly: the home's keys
/// and the system's secrets named in it are refused as on the line.
pub(super) fn carries_over_fresh(finding: &Finding) -> bool {
    finding.check != "guard:secret" || finding.outside
}

/// Everything command `index` of `parsed`, run in `cwd`, runs from files on disk.
pub(super) fn runs(parsed: &Parsed, index: usize, cwd: &Cwd, files: View) -> Vec<Ran> {
    let command = &parsed.commands[index];
    // `export PYTHONPATH=tools; python3 …`: what the line exported before the command is
    // in its environment too (its own assignments after, which win).
    // What else the line exported (`export CARGO_TARGET_DIR=~; cargo clean`) is in it
    // as well.
    let mut exported: Vec<String> = parsed
        .assignments
        .iter()
        .filter(|a| a.at <= index && !a.each && a.name.starts_with("PYTHON"))
        .filter_map(|a| a.value.as_ref().map(|v| format!("{}={v}", a.name)))
        .take(16)
        .collect();
    let own: Vec<&str> = command
        .env
        .iter()
        .filter_map(|w| w.split_once('=').map(|(n, _)| n))
        .collect();
    let mut others: Vec<(String, String)> = values::environment(parsed, index)
        .into_iter()
        .filter(|(name, _)| !name.starts_with("PYTHON") && !own.contains(&name.as_str()))
        .collect();
    others.sort();
    exported.extend(
        others
            .into_iter()
            .take(32)
            .map(|(name, value)| format!("{name}={value}")),
    );
    let with_exports;
    let command = if exported.is_empty() {
        command
    } else {
        with_exports = SimpleCommand {
            env: exported
                .into_iter()
                .chain(command.env.iter().cloned())
                .collect(),
            ..command.clone()
        };
        &with_exports
    };
    // `X=build; bash clean.sh "$X"`: the words the line set to plain values, written out,
    // so a script handed them reads them as they are.
    let with_values;
    let command = if command.argv.iter().any(|w| w.contains('$')) {
        with_values = SimpleCommand {
            argv: command
                .argv
                .iter()
                .map(|w| with_line_values(parsed, index, w))
                .collect(),
            ..command.clone()
        };
        &with_values
    } else {
        command
    };
    // `PYTHONPATH=tools python3 -c 'import gen'`, `NODE_PATH=lib node …`: the folders
    // modules are found in too (`$PWD/x` is the folder the command runs in).
    let python_path: Vec<String> = command
        .env
        .iter()
        .chain(command.prefixed.iter().flatten())
        .filter_map(|w| {
            w.strip_prefix("PYTHONPATH=")
                .or_else(|| w.strip_prefix("NODE_PATH="))
        })
        .flat_map(|dirs| dirs.split(':'))
        .map(super::paths::here_and_home)
        .filter(|d| !d.is_empty() && !d.contains(['$', '`']))
        .take(8)
        .collect();
    let pycache = command
        .env
        .iter()
        .chain(command.prefixed.iter().flatten())
        .rev()
        .find_map(|w| w.strip_prefix("PYTHONPYCACHEPREFIX="))
        .map(str::to_owned)
        .or_else(|| {
            parsed
                .assignments
                .iter()
                .rev()
                .find(|a| a.at <= index && a.name == "PYTHONPYCACHEPREFIX")
                .map(|a| a.value.clone().unwrap_or_else(|| "$".into()))
        })
        .or_else(|| {
            // `python3 -X pycache_prefix=build/pyc`.
            command.args().iter().enumerate().find_map(|(k, a)| {
                let x = if a == "-X" {
                    command.args().get(k + 1).map(String::as_str)
                } else {
                    a.strip_prefix("-X")
                };
                x.and_then(|x| x.strip_prefix("pycache_prefix="))
                    .map(str::to_owned)
            })
        })
        .or_else(|| std::env::var("PYTHONPYCACHEPREFIX").ok())
        .filter(|p| !p.is_empty());
    let files = files
        .with_python_path(&python_path)
        .with_pycache_prefix(pycache.as_deref());
    let files = &files;
    let name = command.name();
    let mut out = Vec::new();
    later::runs(command, cwd, files, &mut out);
    git_runs::runs(command, cwd, files, &mut out);
    builds::runs(command, cwd, files, &mut out);
    configs::runs(command, cwd, files, &mut out);
    buildcode::runs(command, cwd, files, &mut out);
    frameworks::runs(command, cwd, files, &mut out);
    opaque::runs(command, cwd, files, &mut out);
    tasks::runs(command, cwd, files, &mut out);
    crates::runs(command, cwd, files, &mut out);
    queries::runs(parsed, index, cwd, files, &mut out);
    sources::runs(parsed, index, cwd, files, &mut out);
    // Python's start-up files, and the modules inline code loads.
    imports::python_startup(command, cwd, files, &mut out);
    imports::debugger_startup(command, cwd, files, &mut out);
    imports::inline(command, cwd, files, &mut out);
    // `vim -es < cmds.vim`, `ex -s <<EOF`: ex commands read from standard input, as the
    // line's own `-c` commands would be.
    if shell::is_vim(name) && vim_reads_commands(command) {
        for file in command
            .reads_from
            .iter()
            .filter(|r| !r.starts_with('&') && r.as_str() != "-")
            .take(4)
        {
            if let Some((text, via)) = text_of(file, cwd, files, &mut out) {
                let line = super::rcfiles::vim_line(command, &text);
                out.push(Ran::Script(
                    line,
                    format!("{via}, commands `{name}` reads"),
                    None,
                ));
            }
        }
        for text in command.stdin_texts.iter().take(4) {
            let line = super::rcfiles::vim_line(command, text);
            out.push(Ran::Script(line, format!("commands `{name}` reads"), None));
        }
    }
    // `bash < x.sh`, `python3 - < x.py`: the program is the file on standard input.
    if shell::reads_program_from_stdin(&command.argv) {
        for file in command
            .reads_from
            .iter()
            .filter(|r| !r.starts_with('&') && r.as_str() != "-")
            .take(4)
        {
            let file = &with_line_values(parsed, index, file);
            if files::unresolved(file, &mut out) {
                continue;
            }
            if let Some((text, via)) = text_of(file, cwd, files, &mut out) {
                let via = format!("{via}, read by `{name}` on its standard input");
                if shell::is_shell(name) {
                    out.push(Ran::Script(text, via, None));
                } else {
                    out.push(Ran::Code(text, name.to_owned(), via));
                }
            }
        }
    }
    // A script run by its path is that file, whatever it is called (`./bin/make` is a
    // script, not make): the names below are for the programs on PATH (and compiled
    // ones, `.venv/bin/python x.py`, which run what they are handed).
    // `eval "$(cat x.sh)"`, `python3 -c "$(cat x.py)"`: the program is a file on disk,
    // printed and handed on as code.
    if let Some((file, runner)) = printed_program(command) {
        if let Some((text, via)) = text_of(file, cwd, files, &mut out) {
            let via = format!("{via}, printed and run by `{runner}`");
            if shell::is_shell(runner) || runner == "eval" {
                out.push(Ran::Script(text, via, None));
            } else {
                out.push(Ran::Code(text, runner.to_owned(), via));
            }
        }
        return out;
    }
    // `find … -exec sh {} \;`, `fd -x python3 {}`: each file found is run as a program.
    let placeholder = |w: &String| w == "{}";
    let found = matches!(command.via.last(),
        Some(shell::Via::Script(how)) if how.starts_with("find ") || how.starts_with("fd"));
    if found && command.argv.first().is_some_and(placeholder)
        || found
            && (shell::program_file(&command.argv).is_some_and(|j| placeholder(&command.argv[j]))
                || matches!(name, "source" | ".")
                    && operands(command.args()).first() == Some(&"{}"))
    {
        out.push(Ran::Finding(Finding::ask(
            "guard:found-program",
            format!(
                "runs each file it finds as a program (`{}`), which nagger cannot read \
                 before they are found",
                command.argv.join(" ")
            ),
            "Run the scripts by their paths, or list what is found first.",
        )));
        return out;
    }
    // `npx lint`, `npm exec -- lint`, `bunx lint`: the packages' own program of that name,
    // in the nearest `node_modules/.bin`, runs first.
    if command
        .prefixes
        .iter()
        .any(|p| matches!(p.as_str(), "npx" | "bunx" | "npm" | "pnpm" | "yarn" | "bun"))
        && let Some(file) = package_program(name, cwd, files)
    {
        let mut found = command.clone();
        found.argv[0] = file;
        executed(&found, cwd, files, &mut out);
        return out;
    }
    // `PATH=$PWD/tools:$PATH git lg`: git runs `git-lg` from that PATH.
    if let Some((file, from)) = lookup::git_external(parsed, index, cwd, files) {
        let mut found = command.clone();
        found.argv = std::iter::once(file)
            .chain(command.argv.iter().skip(from).cloned())
            .collect();
        executed(&found, cwd, files, &mut out);
        return out;
    }
    // `PATH=./bin:$PATH ls`, `hash -p ./bin/ls ls; ls`: the name runs a file of the line's
    // choosing, read as what it is.
    // A compiled program found there is taken for the program of its name, which is read
    // below for what it runs (`just` its justfile).
    match lookup::program(parsed, index, cwd, files) {
        Some(lookup::Found::File(file))
            if !matches!(files.read(cwd, &file), files::Content::Binary) =>
        {
            let mut found = command.clone();
            found.argv[0] = file;
            executed(&found, cwd, files, &mut out);
            return out;
        }
        Some(lookup::Found::File(_)) => {}
        Some(lookup::Found::Unknown(folder)) => {
            out.push(Ran::Finding(lookup::unknown_finding(name, &folder)));
        }
        None => {}
    }
    let program = command.argv[0].as_str();
    // `tools/lint x.txt` where `tools/lint` is a link to or a copy of python3: the
    // interpreter under another name, running what it is handed.
    if program.contains('/')
        && !program.starts_with(['/', '$', '`'])
        && let Some(interpreter) = interpreter_in_disguise(program, cwd, files)
    {
        let words: Vec<String> = std::iter::once(interpreter.clone())
            .chain(command.argv[1..].iter().map(|w| shell::shell_quote(w)))
            .collect();
        out.push(Ran::Script(
            words.join(" "),
            format!("`{program}`, which is `{interpreter}` under another name"),
            None,
        ));
        return out;
    }
    if program.contains('/')
        && !["/usr/", "/bin/", "/sbin/", "/opt/homebrew/", "/nix/"]
            .iter()
            .any(|system| program.starts_with(system))
        && !program.starts_with("/dev/")
        && matches!(files.read(cwd, program), files::Content::Text { .. })
    {
        executed(command, cwd, files, &mut out);
        return out;
    }
    if matches!(name, "node" | "nodejs" | "bun") {
        runners::node_loads(command, cwd, files, &mut out);
    }
    if name.starts_with("perl") {
        runners::perl_loads(command, cwd, files, &mut out);
    }
    compiler_wrapper(command, &mut out);
    preloaded(command, cwd, files, &mut out);
    if matches!(name, "make" | "gmake") {
        make::runs(parsed, index, cwd, files, &mut out);
    } else if name == "run-parts" {
        run_parts(command, cwd, files, &mut out);
    } else if let Some(ran) = package::runs(command, cwd, files, &mut out) {
        // `bun run x.ts`, `bun x.ts`: a program file.
        program_file(command, &ran, "bun", cwd, files, &mut out);
    } else if runners::runs(command, cwd, files, &mut out) {
        // `just`, `task`, `composer`, `python3 pkg/`, `python3 -m pkg`: read above.
    } else if matches!(name, "source" | ".") {
        let args = command.args();
        if let Some(file) = operands(args).first() {
            let valued = with_line_values(parsed, index, file);
            let at = args.iter().position(|a| a == file).unwrap_or(0);
            // Sourced without arguments, the file sees the shell's own positional
            // parameters: those the last `set` before it gave.
            let mut given = args[at..].to_vec();
            if given.len() == 1
                && let Some(set) = parsed.commands[..index]
                    .iter()
                    .rev()
                    .find(|c| c.name() == "set" && c.args().iter().any(|a| a == "--"))
            {
                let from = set
                    .args()
                    .iter()
                    .position(|a| a == "--")
                    .map_or(0, |k| k + 1);
                given.extend(set.args()[from..].iter().take(64).cloned());
            }
            shell_file(&valued, &given, "sourced", cwd, files, &mut out);
        }
    } else if let Some(j) = shell::program_file(&command.argv) {
        let file = with_line_values(parsed, index, &command.argv[j]);
        chooses_its_files(command, &file, cwd, files, &mut out);
        program_file(command, &file, name, cwd, files, &mut out);
    } else if let Some(awk_files) = awk_program_files(command) {
        // Its program files (`-f`, gawk's `-i`/`--include`, `-E`/`--exec`) and the files
        // those or the program on the line include (`@include "lib"`, found as gawk
        // finds them: as named, with `.awk`, in `AWKPATH`).
        let mut queue = awk_files;
        let mut seen: Vec<String> = Vec::new();
        while let Some(file) = queue.pop() {
            if seen.len() >= 8 || seen.contains(&file) {
                continue;
            }
            seen.push(file.clone());
            // `export AWKPATH=build; gawk -f s.awk`: set by the line before the command.
            let line_awkpath = parsed
                .assignments
                .iter()
                .rev()
                .find(|a| a.at <= index && a.name == "AWKPATH")
                .map(|a| a.value.as_deref().unwrap_or("$"));
            let Some(found) = awk_located(command, line_awkpath, &file, cwd, files) else {
                continue;
            };
            chooses_its_files(command, &found, cwd, files, &mut out);
            program_file(command, &found, "awk", cwd, files, &mut out);
            // The files its `print >` and `printf >` write are judged from the command's
            // folder as for the same program on the line.
            if let Some((text, via)) = text_of(&found, cwd, files, &mut out) {
                queue.extend(awk_includes(&text));
                out.push(Ran::Script(
                    format!("awk '{}' /dev/null", text.replace('\'', r"'\''")),
                    via,
                    None,
                ));
            }
        }
    } else if let Some(file) = super::foreign::program_file(command) {
        // A language the guard does not read: what names nagger's own files is refused.
        if let Some((text, _)) = text_of(file, cwd, files, &mut out)
            && (super::protect::named_in_code(&text, None)
                || super::protect::named_bare(&text, None))
        {
            out.push(Ran::Finding(super::protect::named_finding(name)));
        }
    } else if let sources @ [_, ..] = compiled::compiled_sources(command).as_slice() {
        // Compiled and run in one step, in a language the guard does not read: what names
        // nagger's own files is refused.
        // C and its kin, by their extension or `-x c`.
        let c_language = command
            .args()
            .iter()
            .any(|a| a.starts_with("-x") && !a.ends_with("none"));
        for file in sources {
            // `gcc -x c -`, `go run /dev/stdin`: what the stage before pipes in.
            let text = if matches!(*file, "-" | "/dev/stdin") {
                files::piped_texts(parsed, index, cwd, files, &mut out)
                    .into_iter()
                    .map(|(text, _)| text)
                    .reduce(|a, b| a + "\n" + &b)
            } else if file.starts_with("<(") {
                super::programs::substituted_text(parsed, command, file)
            } else {
                text_of(file, cwd, files, &mut out).map(|(text, _)| text)
            };
            let Some(mut text) = text else {
                continue;
            };
            // Assembly the agent wrote or changed: machine code nagger does not read.
            let assembly = std::path::Path::new(file)
                .extension()
                .is_some_and(|e| ["s", "asm", "sx"].iter().any(|a| e.eq_ignore_ascii_case(a)));
            if assembly && !files.settled(cwd, file) {
                out.push(Ran::Finding(Finding::ask(
                    "guard:code-unknown",
                    format!("compiles `{file}`, assembly nagger cannot read"),
                    "Ask the user to look at it.",
                )));
                break;
            }
            if command.name() == "jshell" {
                text = jshell_opened(text, cwd, files, &mut out);
            }
            if super::protect::named_in_code(&text, None) || super::protect::named_bare(&text, None)
            {
                out.push(Ran::Finding(super::protect::named_finding(name)));
                break;
            }
            let ext = file.rsplit_once('.').map_or("", |(_, e)| e);
            let c_family = c_language
                || matches!(
                    ext,
                    "c" | "cc" | "cpp" | "cxx" | "C" | "c++" | "m" | "mm" | "h" | "hpp"
                );
            let (lines, computed) = compiled::calls(&text);
            if let Some(found) = compiled::compiled_unknown(file, &text, c_family)
                .or_else(|| compiled::decoded_name(file, &text, computed).filter(|_| !c_family))
                .or_else(|| compiled::computed_target(file, computed))
            {
                out.push(Ran::Finding(found));
                break;
            }
            for line in lines {
                let via = format!("a command `{file}` runs once built");
                out.push(Ran::Script(line, via, None));
            }
        }
    } else if command.argv[0].contains('/') && !command.argv[0].starts_with("/dev/") {
        // `/usr/local/bin/tool`: run by its `#!` line.
        executed(command, cwd, files, &mut out);
    }
    out
}

/// `LD_PRELOAD=build/libx.so cmd`, `LD_AUDIT=…`: a library the dynamic loader puts
/// into the command, native code nagger does not read. One the session built or changed
/// (not settled in git, or changed since) is asked about; the system's are not.
fn preloaded(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    for assignment in &command.env {
        let Some((name, value)) = assignment.split_once('=') else {
            continue;
        };
        if !matches!(name, "LD_PRELOAD" | "LD_AUDIT" | "DYLD_INSERT_LIBRARIES") {
            continue;
        }
        let value = value.trim_matches(['"', '\'']);
        for library in value.split([':', ' ']).filter(|l| !l.is_empty()).take(8) {
            let library = library
                .strip_prefix("$PWD/")
                .or_else(|| library.strip_prefix("${PWD}/"))
                .or_else(|| library.strip_prefix("$(pwd)/"))
                .unwrap_or(library);
            let system = ["/usr/", "/lib", "/opt/homebrew/", "/nix/store/"]
                .iter()
                .any(|s| library.starts_with(s));
            if system {
                continue;
            }
            if library.contains(['$', '`']) || !files.settled(cwd, library) {
                out.push(Ran::Finding(Finding::ask(
                    "guard:code-unknown",
                    format!(
                        "puts `{library}` into the command with `{name}`: a library nagger \
                         cannot read, not one git keeps as it is"
                    ),
                    "Ask the user to look at the library first.",
                )));
                return;
            }
        }
    }
}

/// `gcc -wrapper sh,tools/as`: the driver runs each of its passes through the program
/// and arguments the option lists, comma-separated; that is a command line of its own.
fn compiler_wrapper(command: &SimpleCommand, out: &mut Vec<Ran>) {
    let name = command.name();
    let driver = ["gcc", "g++", "cc", "c++", "gfortran", "gccgo", "gdc", "cpp"]
        .iter()
        .any(|d| name == *d || name.ends_with(&format!("-{d}")))
        || name.starts_with("gcc-")
        || name.starts_with("g++-");
    if !driver {
        return;
    }
    for wrapper in shell::option_values(command.args(), &["-wrapper"], &[]) {
        let words: Vec<String> = wrapper.split(',').map(str::to_owned).collect();
        out.push(Ran::Script(
            format!("{} true", super::code::quote_words(&words)),
            format!("the wrapper `{name}` runs its passes through (`-wrapper {wrapper}`)"),
            None,
        ));
    }
}

/// A jshell script with the scripts its `/open` lines run, read after it (a few, each
/// once).
fn jshell_opened(text: String, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) -> String {
    let mut whole = text;
    let mut seen: Vec<String> = Vec::new();
    while seen.len() < 8 {
        let Some(next) = whole
            .lines()
            .filter_map(|l| l.trim().strip_prefix("/open "))
            .map(|p| p.trim().trim_matches(['"', '\'']).to_owned())
            .find(|p| !seen.contains(p))
        else {
            break;
        };
        seen.push(next.clone());
        if !matches!(next.as_str(), "DEFAULT" | "PRINTING" | "JAVASE" | "TOOLING")
            && let Some((opened, _)) = text_of(&next, cwd, files, out)
        {
            whole.push('\n');
            whole.push_str(&opened);
        }
    }
    whole
}

/// Whether vim (or ex) runs in Ex mode, reading its commands from standard input: `ex`,
/// `vim -e`, `-es`, `-E`, `-s` in Ex mode.
fn vim_reads_commands(command: &SimpleCommand) -> bool {
    command.name() == "ex"
        || command.name() == "nex"
        || command.args().iter().any(|a| {
            a.starts_with('-')
                && !a.starts_with("--")
                && a.len() > 1
                && a[1..].chars().all(|c| c.is_ascii_alphabetic())
                && a[1..].contains(['e', 'E'])
        })
}

/// An in-place editor (`perl -i`, `ruby -i`, `gawk -i inplace`) whose program `file`
/// sets its own list of files (`@ARGV = …`, `ARGV[1] = …`): the files it edits are
/// chosen as it runs, and may be nagger's own. Asked about.
fn chooses_its_files(
    command: &SimpleCommand,
    file: &str,
    cwd: &Cwd,
    files: &View,
    out: &mut Vec<Ran>,
) {
    let name = command.name();
    let args = command.args();
    let in_place = match name {
        "perl" | "ruby" => super::protect::in_place(name, args),
        "awk" | "gawk" => {
            args.windows(2).any(|w| w[0] == "-i" && w[1] == "inplace")
                || args.iter().any(|a| a == "-iinplace")
        }
        _ => false,
    };
    if !in_place {
        return;
    }
    let files::Content::Text { text, .. } = files.read(cwd, file) else {
        return;
    };
    if text.contains("ARGV") {
        out.push(Ran::Finding(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "edits in place the files its program `{file}` puts in its own list as it runs \
                 (`ARGV`), which may be nagger's own files or Claude Code's settings"
            ),
            "Name the files on the line, or ask the user.",
        )));
    }
}

/// The start of a word [`fed_from_files`] hands on for a file of arguments whose name is
/// only known when the line runs, followed by that name.
pub(crate) const UNKNOWN_LIST: &str = "\u{0}unknown-list:";

/// What an `xargs` (or `parallel`) in front of command `index` reads from a file on disk
/// and hands it as arguments: `xargs rm < list.txt`, `xargs -a list.txt rm`, `cat
/// list.txt | xargs rm` (a file printed whole or in part by the stage before it). At most
/// 256 words, as for what the line itself feeds it.
pub(super) fn fed_from_files(parsed: &Parsed, index: usize, cwd: &Cwd, files: View) -> Vec<String> {
    let command = &parsed.commands[index];
    if !command.under_xargs() {
        return Vec::new();
    }
    let original = command.prefixed.as_deref().unwrap_or(&[]);
    let arg_files = original.iter().enumerate().filter_map(|(k, w)| {
        if w == "-a" || w == "--arg-file" {
            original.get(k + 1).map(String::as_str)
        } else {
            w.strip_prefix("--arg-file=")
        }
    });
    // `parallel rm :::: list.txt`: the words after `::::` (up to the next `:::`) are files
    // of arguments.
    let quad_files = sources::quad_files(original.iter().chain(command.argv.iter()));
    let arg_files = arg_files.chain(quad_files);
    // `cat list | xargs rm`, `sort -u list | xargs rm`: the files the stage before prints.
    let printers: Vec<&str> = super::programs::feeders(parsed, index)
        .into_iter()
        .map(|j| &parsed.commands[j])
        .filter(|f| {
            f.pipeline == command.pipeline
                && matches!(
                    f.name(),
                    "cat" | "tac" | "sort" | "uniq" | "head" | "tail" | "shuf" | "nl" | "cut"
                )
        })
        .flat_map(|f| {
            operands(f.args())
                .into_iter()
                .chain(f.reads_from.iter().map(String::as_str))
        })
        .collect();
    let mut fed = Vec::new();
    for file in command
        .reads_from
        .iter()
        .map(String::as_str)
        .chain(arg_files)
        .chain(printers)
    {
        if file.starts_with("<(") || file.starts_with("/dev/") {
            continue;
        }
        let file = &with_line_values(parsed, index, file);
        if files::only_known_when_run(file) {
            // Which words it hands on is not known: marked for the checks to ask.
            fed.insert(0, format!("{UNKNOWN_LIST}{file}"));
            continue;
        }
        let mut ignored = Vec::new();
        match files.read(cwd, file) {
            // `xargs -0 -a list`: names split by NUL bytes, which make the file binary.
            files::Content::Binary => match files.bytes(cwd, file, 1 << 16) {
                Some(bytes) => fed.extend(
                    bytes
                        .split(|b| matches!(b, b'\n' | b'\0'))
                        .filter(|w| !w.is_empty())
                        .take(256)
                        .map(|w| String::from_utf8_lossy(w).into_owned()),
                ),
                None => fed.insert(0, format!("{UNKNOWN_LIST}{file}")),
            },
            // A FIFO, a device, more files than are read: what it hands on is unknown.
            files::Content::Special(_) | files::Content::TooMany => {
                fed.insert(0, format!("{UNKNOWN_LIST}{file}"));
            }
            content => {
                if let Some((text, _)) = read_named(content, file, &mut ignored) {
                    fed.extend(
                        text.split(['\n', '\0', ' ', '\t'])
                            .filter(|w| !w.is_empty())
                            .take(256)
                            .map(str::to_owned),
                    );
                }
            }
        }
    }
    fed.truncate(257);
    fed
}

/// The program files of an `awk` run (`awk -f prog.awk`, `gawk --file=prog.awk`,
/// `-i lib`, `--include lib`, `-E prog`, `--exec prog`), and those the program on its
/// line includes (`@include "lib"`). `None` for another program, or an awk run with
/// none.
fn awk_program_files(command: &SimpleCommand) -> Option<Vec<String>> {
    if !matches!(
        command.name(),
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk"
    ) {
        return None;
    }
    let args = command.args();
    let mut out = Vec::new();
    let mut named = false;
    let mut k = 0;
    while let Some(a) = args.get(k) {
        k += 1;
        match a.as_str() {
            "-f" | "--file" | "-E" | "--exec" => {
                named = true;
                out.extend(args.get(k).cloned());
                k += 1;
            }
            "-i" | "--include" => {
                out.extend(args.get(k).cloned());
                k += 1;
            }
            "-v" | "-F" | "--assign" | "--field-separator" => k += 1,
            _ => {
                let long = ["--file=", "--exec=", "--include="]
                    .iter()
                    .find_map(|p| a.strip_prefix(p));
                let short = a
                    .strip_prefix("-f")
                    .or_else(|| a.strip_prefix("-E"))
                    .or_else(|| a.strip_prefix("-i"))
                    .filter(|rest| !rest.is_empty());
                if let Some(file) = long.or(short) {
                    named |= !a.starts_with("-i") && !a.starts_with("--include");
                    out.push(file.to_owned());
                } else if !a.starts_with('-') && !named {
                    // The program on the line: what it includes.
                    out.extend(awk_includes(a));
                    named = true;
                }
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The files an awk program includes (`@include "lib.awk"`, `@include "lib"`).
fn awk_includes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("@include"))
        .filter_map(|rest| {
            let rest = rest.trim();
            let name = rest.strip_prefix('"')?.split('"').next()?;
            (!name.is_empty()).then(|| name.to_owned())
        })
        .take(8)
        .collect()
}

/// Where gawk finds the program file `file`: in a folder of `AWKPATH` (set before the
/// command or in nagger's environment), which gawk searches first for a name without a
/// `/`, else as named, with `.awk` added.
fn awk_located(
    command: &SimpleCommand,
    line_awkpath: Option<&str>,
    file: &str,
    cwd: &Cwd,
    files: &View,
) -> Option<String> {
    let exists = |f: &str| files.exists(cwd, f);
    let has_awk = std::path::Path::new(file)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("awk"));
    let mut tries = Vec::new();
    let mut named = vec![file.to_owned()];
    if !has_awk {
        named.push(format!("{file}.awk"));
    }
    if !file.contains('/') {
        let awkpath = command
            .env
            .iter()
            .chain(command.prefixed.iter().flatten())
            .find_map(|e| e.strip_prefix("AWKPATH=").map(str::to_owned))
            .or_else(|| line_awkpath.map(str::to_owned))
            .or_else(|| std::env::var("AWKPATH").ok())
            .unwrap_or_default();
        for dir in awkpath.split(':').filter(|d| !d.is_empty()).take(8) {
            tries.push(format!("{}/{file}", dir.trim_end_matches('/')));
            if !has_awk {
                tries.push(format!("{}/{file}.awk", dir.trim_end_matches('/')));
            }
        }
    }
    tries.extend(named);
    tries
        .iter()
        .find(|f| exists(f))
        .cloned()
        .or_else(|| Some(file.to_owned()))
}

/// `file`, given to interpreter `runner` by `command`, read and handed back.
fn program_file(
    command: &SimpleCommand,
    file: &str,
    runner: &str,
    cwd: &Cwd,
    files: &View,
    out: &mut Vec<Ran>,
) {
    if files::unresolved(file, out) {
        return;
    }
    let at = command.argv.iter().position(|a| a == file).unwrap_or(0);
    let params = &command.argv[at..];
    if shell::is_shell(runner) {
        shell_file(file, params, &format!("run by `{runner}`"), cwd, files, out);
        return;
    }
    // `node .`, `node app/`: the folder's entry.
    let entry;
    let file = if matches!(runner, "node" | "nodejs") && files.is_dir(cwd, file) {
        match imports::node_entry(file, cwd, files) {
            Some(found) => {
                entry = found;
                entry.as_str()
            }
            None => return,
        }
    } else {
        file
    };
    if let Some((text, via)) = text_of(file, cwd, files, out) {
        imports::follow(&text, runner, Some(file), cwd, files, out);
        // What it reads of its arguments, as the line gives them.
        let text = arguments::filled(&text, runner, params.get(1..).unwrap_or(&[]));
        out.push(Ran::Code(text, runner.to_owned(), via));
    }
}

/// A shell script file run with `params` (its name, then its arguments).
fn shell_file(
    file: &str,
    params: &[String],
    how: &str,
    cwd: &Cwd,
    files: &View,
    out: &mut Vec<Ran>,
) {
    if files::unresolved(file, out) {
        return;
    }
    if let Some((text, via)) = text_of(file, cwd, files, out) {
        let text = filled(&text, params);
        out.push(Ran::Script(text, format!("{via}, {how}"), None));
    }
}

/// A script's positional parameters filled in from the command that runs it, when no
/// function or `shift` gives `$1` another meaning; its own name (`$0`) always.
fn filled(text: &str, params: &[String]) -> String {
    let own_folder;
    let text = match params.first() {
        Some(name) if text.contains('$') => {
            own_folder = with_own_folder(text, name);
            own_folder.as_str()
        }
        _ => text,
    };
    let other_meaning = ["()", "function ", "shift", "getopts", "set --"]
        .iter()
        .any(|w| text.contains(w));
    if params.len() < 2 || other_meaning {
        // Its own name means the same in functions and without arguments.
        return match params.first() {
            Some(name) if text.contains('$') => shell::with_script_name(text, name),
            _ => text.to_owned(),
        };
    }
    shell::with_positional(text, params)
}

/// The text of `file` and how to name it, or the finding its place calls for (pushed
/// onto `out`); `None` when there is nothing to check.
fn text_of(file: &str, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) -> Option<(String, String)> {
    match files.read(cwd, file) {
        // A program past the files read for one call (a script that sources dozens of
        // files first) may run anything: asked about, not passed unread.
        files::Content::TooMany => {
            out.push(Ran::Finding(Finding::ask(
                "guard:budget-spent",
                format!(
                    "runs `{file}`, past the {} files nagger reads for one call: what it runs \
                     cannot be checked",
                    files::MAX_FILES
                ),
                "Run it in smaller steps, or ask the user.",
            )));
            None
        }
        content => read_named(content, file, out),
    }
}

/// `text` with the spellings of its own folder (`$(dirname "$0")`, `${BASH_SOURCE%/*}`,
/// `${0%/*}`) written out, the script run as `name`: `. "$(dirname "$0")/lib.sh"` then
/// names the file it sources.
fn with_own_folder(text: &str, name: &str) -> String {
    let folder = match name.rsplit_once('/') {
        Some(("", _)) => "/".to_owned(),
        Some((dir, _)) => dir.to_owned(),
        None => ".".to_owned(),
    };
    if folder.contains(['$', '`', '"', '\'', '\\']) {
        return text.to_owned();
    }
    let mut out = text.to_owned();
    for source in [
        "$0",
        "${0}",
        "$BASH_SOURCE",
        "${BASH_SOURCE}",
        "${BASH_SOURCE[0]}",
    ] {
        for form in [
            format!("\"$(dirname \"{source}\")\""),
            format!("$(dirname \"{source}\")"),
            format!("$(dirname {source})"),
        ] {
            out = out.replace(&form, &folder);
        }
    }
    for form in ["${0%/*}", "${BASH_SOURCE%/*}", "${BASH_SOURCE[0]%/*}"] {
        out = out.replace(form, &folder);
    }
    // `DIR="$(cd "$(dirname "$0")" && pwd)"`: the same folder, made absolute.
    for form in [
        format!("$(cd {folder} && pwd)"),
        format!("$(cd \"{folder}\" && pwd)"),
        format!("$(cd {folder}; pwd)"),
        format!("$(cd {folder} >/dev/null && pwd)"),
        format!("$(cd {folder} &>/dev/null && pwd)"),
    ] {
        out = out.replace(&form, &folder);
    }
    out
}

/// The file whose text a command runs as code by printing it: as the command itself
/// (`eval "$(cat x.sh)"`, `bash -c "$(cat x.sh)"`) or as an interpreter's inline code
/// (`python3 -c "$(< x.py)"`), with what runs it.
fn printed_program(command: &SimpleCommand) -> Option<(&str, &str)> {
    // As a command word its text runs: whole, as a script, under `eval` or `bash -c`.
    if let Some(file) = printed_file(&command.argv[0]) {
        return Some((file, "eval"));
    }
    let code = shell::inline_code(&command.argv)?;
    Some((printed_file(code)?, command.name()))
}

/// The file a word prints whole: `$(cat F)`, `$(< F)`, `` `cat F` ``, quoted or not.
fn printed_file(word: &str) -> Option<&str> {
    let word = word.trim_matches('"');
    let inner = word
        .strip_prefix("$(")
        .and_then(|w| w.strip_suffix(')'))
        .or_else(|| word.strip_prefix('`').and_then(|w| w.strip_suffix('`')))?
        .trim();
    let file = inner
        .strip_prefix('<')
        .or_else(|| inner.strip_prefix("cat "))?
        .trim()
        .trim_matches(['"', '\'']);
    (!file.is_empty() && !file.contains(['$', '`', ' ', '(', ')', ';', '|', '&', '<', '>']))
        .then_some(file)
}

/// The program `name` of the nearest `node_modules/.bin` from `cwd`, a few folders up.
fn package_program(name: &str, cwd: &Cwd, files: &View) -> Option<String> {
    if name.contains('/') || name.is_empty() {
        return None;
    }
    (0..4).find_map(|up| {
        let file = format!("{}node_modules/.bin/{name}", "../".repeat(up));
        files.is_file(cwd, &file).then_some(file)
    })
}

/// Most files of one folder `run-parts` is read for.
const MAX_PARTS: usize = 64;

/// `run-parts [options] DIR`: every file of the folder run by its path, in name order
/// (`--test` and `--list` only print them).
fn run_parts(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let args = command.args();
    let mut folder = None;
    let mut k = 0;
    while let Some(a) = args.get(k) {
        match a.as_str() {
            "--test" | "--list" | "--help" | "--version" | "-V" => return,
            "-a" | "-u" | "--arg" | "--umask" | "--regex" => k += 1,
            "--" => {
                folder = args.get(k + 1);
                break;
            }
            a if a.starts_with('-') => {}
            _ => {
                folder = Some(a);
                break;
            }
        }
        k += 1;
    }
    let Some(folder) = folder else {
        return;
    };
    let mut names = files.list(cwd, folder, MAX_PARTS + 1);
    if names.len() > MAX_PARTS {
        out.push(Ran::Finding(Finding::ask(
            "guard:found-program",
            format!(
                "runs every file of `{folder}` (more than {MAX_PARTS}), which nagger does not \
                 read one by one"
            ),
            "Run the scripts by their paths.",
        )));
        return;
    }
    names.sort();
    for name in names {
        let mut part = command.clone();
        part.argv = vec![format!("{}/{name}", folder.trim_end_matches('/'))];
        executed(&part, cwd, files, out);
    }
}

/// A file run by its path: its `#!` line names the interpreter; a text file without one
/// is run by `sh`.
fn executed(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let file = command.argv[0].as_str();
    // `$(npm bin)/eslint`, `"$BIN/tool"`: a program of the user's tool chain found as the
    // line runs; the files handed to interpreters are what the guard needs to read.
    if files::only_known_when_run(file) {
        return;
    }
    // A program a build made from the project's source (`target/debug/app`, `tools/x`
    // beside `tools/x.c`): what its changed source does.
    let normal = super::paths::normalize(file);
    let in_target = normal.starts_with("target/") || normal.contains("/target/");
    match files.read(cwd, file) {
        files::Content::Binary => {
            crates::built(file, cwd, files, out);
            return;
        }
        // `cargo build && ./target/debug/app`, `make tools/x && tools/x`: built by the
        // line, not there yet.
        files::Content::Absent => {
            crates::built(file, cwd, files, out);
            if in_target {
                return;
            }
        }
        _ => {}
    }
    let Some((text, via)) = text_of(file, cwd, files, out) else {
        return;
    };
    // `#!/bin/sh tools/x.sh`, `#!/usr/bin/env -S make -f`: the command line the system
    // runs, with the line's arguments after the file.
    if let Some(line) = shell::shebang_line(&text, file) {
        let args: Vec<String> = command
            .args()
            .iter()
            .map(|a| shell::shell_quote(a))
            .collect();
        out.push(Ran::Script(
            format!("{line} {}", args.join(" ")).trim_end().to_owned(),
            format!("{via}, run by its `#!` line"),
            None,
        ));
        return;
    }
    let runner = shebang(&text);
    let runner = runner.as_deref().unwrap_or("sh");
    if shell::is_shell(runner) {
        let text = filled(&text, &command.argv);
        out.push(Ran::Script(
            text,
            format!("{via}, run by its `#!` line"),
            None,
        ));
    } else if matches!(runner, "make" | "gmake") {
        make::from_text(&text, &via, command.args(), cwd, files, out);
    } else if shell::is_interpreter(runner)
        && shell::program_file(&[runner.to_owned(), file.to_owned()]).is_some()
    {
        imports::follow(&text, runner, Some(file), cwd, files, out);
        out.push(Ran::Code(text, runner.to_owned(), via));
    }
}

/// `source lib.sh; cleanup $x`: a command named by a function a file the line sourced
/// before it defines, as a script of that file's text and the call, written as the line
/// wrote it (substitutions left to run), with the file's name.
pub(super) fn sourced_function(
    parsed: &Parsed,
    index: usize,
    cwd: &Cwd,
    files: View,
) -> Option<(String, String)> {
    let command = &parsed.commands[index];
    let name = command.name();
    if name.is_empty() || name.contains(['/', '$', '`']) {
        return None;
    }
    for earlier in parsed.commands[..index].iter().rev().take(32) {
        if !matches!(earlier.name(), "source" | ".") || !earlier.via.is_empty() {
            continue;
        }
        let Some(file) = operands(earlier.args()).first().copied() else {
            continue;
        };
        let files::Content::Text { text, .. } = files.read(cwd, file) else {
            continue;
        };
        let defines = shell::parse(&text)
            .functions
            .iter()
            .any(|(defined, _)| defined == name);
        if !defines {
            continue;
        }
        let call: Vec<String> = command
            .argv
            .iter()
            .map(|w| {
                if w.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == '\\') {
                    format!("\"{}\"", w.replace('\\', "\\\\").replace('"', "\\\""))
                } else {
                    w.clone()
                }
            })
            .collect();
        return Some((format!("{text}\n{}\n", call.join(" ")), file.to_owned()));
    }
    None
}

/// Interpreters looked for under other names.
const INTERPRETERS: &[&str] = &[
    "python3", "python", "node", "perl", "ruby", "php", "bash", "sh", "dash", "zsh", "lua",
    "tclsh", "Rscript", "deno", "bun", "awk", "gawk", "busybox",
];

/// The interpreter a program file in the project is, when it is a link to one or a
/// byte-for-byte copy of one found in the system's program folders (same size, same
/// first bytes).
fn interpreter_in_disguise(program: &str, cwd: &Cwd, files: &View) -> Option<String> {
    use std::io::Read;
    let full = files.full(cwd, program)?;
    let meta = std::fs::metadata(&full).ok()?;
    if !meta.is_file() || meta.len() < 1024 {
        return None;
    }
    let mut head = [0u8; 4];
    std::fs::File::open(&full)
        .ok()?
        .read_exact(&mut head)
        .ok()?;
    if &head != b"\x7fELF" {
        return None; // a script is read as the script it is
    }
    if let Ok(real) = std::fs::canonicalize(&full) {
        let base = real.file_name()?.to_string_lossy().into_owned();
        let family = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        if INTERPRETERS.contains(&family) || INTERPRETERS.contains(&base.as_str()) {
            return Some(base);
        }
    }
    let first = |path: &Path| -> Option<Vec<u8>> {
        let mut buf = vec![0u8; 4096];
        let n = std::fs::File::open(path).ok()?.read(&mut buf).ok()?;
        buf.truncate(n);
        Some(buf)
    };
    let ours = first(&full)?;
    for name in INTERPRETERS {
        for folder in ["/usr/bin", "/usr/local/bin", "/bin"] {
            let candidate = Path::new(folder).join(name);
            let Ok(theirs) = std::fs::metadata(&candidate) else {
                continue;
            };
            if theirs.len() == meta.len() && first(&candidate).as_deref() == Some(ours.as_slice()) {
                return Some((*name).to_owned());
            }
        }
    }
    None
}
