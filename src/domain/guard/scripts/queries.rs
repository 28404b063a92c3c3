//! What a database client runs from files and pipes: `psql -f drop.sql`, `mysql shop <
//! dump.sql`, `sqlite3 app.db ".read x.sql"`, `mongosh prod wipe.js`, `cat x.sql | psql`,
//! `echo 'FLUSHALL' | redis-cli`. The text is read bounded and judged as the client
//! reads it; a line of it that escapes to the shell (`\! cmd`, `.shell cmd`, `system
//! cmd`) is read as the shell command it runs.

use super::super::finding::{Finding, operands};
use super::super::protect::Cwd;
use super::super::shell::{Parsed, SimpleCommand, option_values, shell_quote};
use super::super::sql::{Dialect, destroys, dialect, outputs};
use super::files::{Ran, View, piped_texts, read_named};

/// Most files read for one command.
const MAX_FILES: usize = 8;

/// The text command `index` of `parsed` hands a database client from files and pipes,
/// judged.
pub(super) fn runs(parsed: &Parsed, index: usize, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let command = &parsed.commands[index];
    let name = command.name();
    let Some(dialect) = dialect(name) else {
        return;
    };
    // (text, where it came from)
    let mut texts: Vec<(String, String)> = Vec::new();
    for file in sources(command, dialect).into_iter().take(MAX_FILES) {
        if let Some((text, via)) = read_named(files.read(cwd, &file), &file, out) {
            texts.push((text, via));
        }
    }
    // `cat x.sql | psql`, `echo 'DROP …' | psql`: what the stage before prints.
    texts.extend(piped_texts(parsed, index, cwd, files, out));
    // What the command line itself hands it (`-c '\\o x'`, `".output x"`): only what it
    // writes or runs outside the database is looked at here (what it drops is judged
    // with the rest of the line).
    if dialect == Dialect::Sql {
        for word in command.args() {
            let text = word
                .strip_prefix("--")
                .and_then(|long| long.split_once('=').map(|(_, v)| v))
                .unwrap_or(word);
            written_or_run(text, "its command line", name, out);
        }
    }
    for (text, via) in texts {
        if dialect == Dialect::Sql {
            written_or_run(&text, &via, name, out);
        }
        // The SQLite shell reads a file or pipe as it reads SQL on its command line
        // (`writefile()` of a computed name, `.archive -x`): judged as that line.
        if matches!(name, "sqlite3" | "sqlite") {
            // Without the `.read F` and `-init F` that brought the text in: read again,
            // they would only fold the file into itself until the budget is spent.
            let mut kept: Vec<String> = Vec::new();
            let mut skip = false;
            for arg in command.args() {
                if std::mem::take(&mut skip) {
                    continue;
                }
                if matches!(arg.as_str(), "-init" | "--init") {
                    skip = true;
                } else if !arg.trim_start().starts_with(".read") {
                    kept.push(arg.clone());
                }
            }
            // `-init /dev/null`: the start-up file is not read again either.
            let mut line: Vec<String> =
                [name.to_owned(), "-init".to_owned(), "/dev/null".to_owned()]
                    .into_iter()
                    .chain(kept.iter().cloned())
                    .map(|w| shell_quote(&w))
                    .collect();
            if kept.iter().all(|a| a.starts_with('-')) {
                line.push("':memory:'".to_owned());
            }
            line.push(shell_quote(&text));
            out.push(Ran::Script(
                line.join(" "),
                format!("{via}, read by `{name}` as SQL on its command line"),
                None,
            ));
        }
        for line in escapes(dialect, name, &text) {
            out.push(Ran::Script(
                line,
                format!("{via}, a shell escape run by `{name}`"),
                None,
            ));
        }
        if let Some(harm) = destroys(dialect, &text) {
            out.push(Ran::Finding(Finding::ask(
                "guard:outside",
                format!("{harm} (`{name}`, reading {via})"),
                "Ask the user to do it, or to confirm.",
            )));
        }
    }
}

/// The files a client reads its commands from: standard input (`< x.sql`), `-f`/`--file`
/// and the like, sqlite's `.read` and `-init`, and mongosh's script operands.
fn sources(command: &SimpleCommand, dialect: Dialect) -> Vec<String> {
    let args = command.args();
    let mut out: Vec<String> = command
        .reads_from
        .iter()
        .filter(|r| !r.starts_with('&') && r.as_str() != "-" && !r.starts_with("/dev/"))
        .cloned()
        .collect();
    out.extend(
        option_values(
            args,
            &["-f", "-init"],
            &["--file", "--init", "--queries-file", "--input-file"],
        )
        .into_iter()
        .map(str::to_owned),
    );
    // On its command line, or in a here-string or here-document it reads.
    let lines = args
        .iter()
        .chain(command.stdin_texts.iter())
        .flat_map(|text| text.lines());
    for line in lines.take(256) {
        if let Some(file) = line.trim().strip_prefix(".read ") {
            out.push(file.trim().trim_matches(['\'', '"']).to_owned());
        }
    }
    if dialect == Dialect::Mongo {
        out.extend(
            operands(args)
                .into_iter()
                .filter(|a| {
                    std::path::Path::new(a).extension().is_some_and(|e| {
                        e.eq_ignore_ascii_case("js") || e.eq_ignore_ascii_case("mongodb")
                    })
                })
                .map(str::to_owned),
        );
    }
    // Start-up files the client runs by itself first: sqlite's `~/.sqliterc` (unless
    // `-init` names another), psql's `~/.psqlrc` or `$PSQLRC` (unless `-X`).
    match command.name() {
        "sqlite3" | "sqlite"
            if !args
                .iter()
                .any(|a| matches!(a.as_str(), "-init" | "--init")) =>
        {
            out.push("~/.sqliterc".to_owned());
        }
        "psql" if !args.iter().any(|a| a == "-X" || a == "--no-psqlrc") => {
            match std::env::var("PSQLRC").ok().filter(|v| !v.is_empty()) {
                Some(file) => out.push(file),
                None => out.push("~/.psqlrc".to_owned()),
            }
        }
        _ => {}
    }
    out.retain(|f| !f.is_empty() && f != "-");
    out
}

/// The shell command lines a client's text runs: psql's `\!`, sqlite's `.shell` and
/// `.system`, mysql's `system` and `\!`.
fn escapes(dialect: Dialect, name: &str, text: &str) -> Vec<String> {
    if dialect != Dialect::Sql {
        return Vec::new();
    }
    text.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let rest = line.strip_prefix("\\!").or_else(|| match name {
                "sqlite3" | "sqlite" | "duckdb" | "litecli" => line
                    .strip_prefix(".shell ")
                    .or_else(|| line.strip_prefix(".system ")),
                "mysql" | "mariadb" | "mycli" => line
                    .strip_prefix("system ")
                    .or_else(|| line.strip_prefix("SYSTEM ")),
                _ => None,
            })?;
            let rest = rest.trim();
            (!rest.is_empty()).then(|| rest.to_owned())
        })
        .take(64)
        .collect()
}

/// The files SQL text has `name` write and the shell lines it has it run, as the shell
/// lines that do the same: a file written is `: > FILE`, judged from the command's folder.
fn written_or_run(text: &str, via: &str, name: &str, out: &mut Vec<Ran>) {
    let found = outputs(text);
    for file in found.files.into_iter().take(MAX_FILES) {
        out.push(Ran::Script(
            format!(": > '{}'", file.replace('\'', r"'\''")),
            format!("{via}: a file `{name}` writes"),
            None,
        ));
    }
    for command in found.commands.into_iter().take(MAX_FILES) {
        out.push(Ran::Script(
            command,
            format!("{via}: a shell command `{name}` runs"),
            None,
        ));
    }
}
