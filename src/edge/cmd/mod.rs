//! One file per command. Each prints through one [`Output`] and returns a
//! [`CommandResult`]; `main` turns an error into one stderr line and its exit code
//! ([`CommandError::exit_code`]).

mod agents;
mod check;
mod common;
mod context;
mod demo;
mod doctor;
mod error;
mod gc;
mod hook;
mod import;
mod install;
mod man;
mod plugin;
mod sessions;
mod stats;
mod task;
mod trust;
mod ui;

use crate::base::output::{Output, warn};
use crate::base::paths::Env;
use crate::edge::cli::{Cli, Command, hook_words};
use clap::{CommandFactory, Parser};
use std::io::Write;
use std::path::PathBuf;

pub use error::{
    CommandError, CommandResult, EXIT_ASK, EXIT_BROKEN_PIPE, EXIT_ERROR, EXIT_OK, EXIT_REFUSE,
    EXIT_USAGE,
};

/// Whether stdin is a pipe, socket or file, as a hook's is (Claude Code writes the event
/// into a pipe); not a terminal or a device such as `/dev/null`.
fn stdin_is_data() -> bool {
    #[cfg(unix)]
    {
        // SAFETY: fstat(2) writes into the zeroed struct it is given, nothing else.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(0, &raw mut stat) } != 0 {
            return false;
        }
        matches!(
            stat.st_mode & libc::S_IFMT,
            libc::S_IFIFO | libc::S_IFSOCK | libc::S_IFREG
        )
    }
    #[cfg(not(unix))]
    {
        !std::io::IsTerminal::is_terminal(&std::io::stdin())
    }
}

/// Runs nagger with the process's arguments; its exit status.
pub fn main() -> u8 {
    // `nagger hook`, exactly as installed, runs on every tool call: it skips building the
    // whole command-line parser (about 5 % of a quiet hook's instructions). Anything else,
    // `nagger hook --db …` included, goes through clap, and a hook never ends in its
    // usage errors (see `run_hook`).
    let mut args = std::env::args_os().skip(1);
    if let (Some(first), None) = (args.next(), args.next())
        && first == "hook"
    {
        hook::run(&Env::from_process(None, None));
        return finish(Ok(()));
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // A hook must never exit 2 (Claude Code would read it as a refusal), and its
            // guard must not depend on how it was called: words that make a hook run,
            // whatever else stands around them, run the hook with what could be
            // understood of them, saying in one line what was not. Help and version are
            // still shown to a person; a hook's stdin is a pipe Claude Code writes to.
            if (e.use_stderr() || stdin_is_data())
                && let Some(words) = hook_words(&std::env::args_os().skip(1).collect::<Vec<_>>())
            {
                let what = e.to_string();
                let first = what.lines().next().unwrap_or("bad arguments");
                let ignored = vec![if e.use_stderr() {
                    first.trim_start_matches("error: ").to_string()
                } else {
                    "help or version asked for (stdin is no terminal: the hook runs)".to_string()
                }];
                return run_hook(words.project, words.db, ignored);
            }
            // Help and version go to stdout, usage errors to stderr (exit 2).
            let printed = e.print();
            return if e.use_stderr() {
                EXIT_USAGE
            } else {
                finish(printed.map_err(CommandError::from))
            };
        }
    };
    if let Command::Hook(args) = &cli.command {
        return run_hook(cli.project.clone(), args.db.clone(), Vec::new());
    }
    if let Some(dir) = cli.project.as_ref().filter(|d| !d.is_dir()) {
        return finish(Err(CommandError::Usage(format!(
            "--project {} is not a folder",
            dir.display()
        ))));
    }
    let env = Env::from_process(cli.command.db().cloned(), cli.project.clone());
    let mut out = Output::stdout();
    let result = run(cli.command, &env, &mut out);
    finish(match out.flush() {
        Ok(()) => result,
        Err(e) => match CommandError::from(e) {
            // The output was lost: a closed pipe wins over the command's own ending.
            CommandError::BrokenPipe => Err(CommandError::BrokenPipe),
            e => result.and(Err(e)),
        },
    })
}

/// Runs the hook with the `--project` and `--db` it was given, each left out when it
/// cannot be used (a `--project` that is no folder, an empty `--db`): one stderr line
/// says so with what else was `ignored`, and the hook runs as nagger's own failures
/// run it, failing open with its guard applied. Always exit 0.
fn run_hook(project: Option<PathBuf>, db: Option<PathBuf>, mut ignored: Vec<String>) -> u8 {
    let project = project.filter(|dir| {
        let usable = dir.is_dir();
        if !usable {
            ignored.push(format!("--project {} is not a folder", dir.display()));
        }
        usable
    });
    let db = db.filter(|path| {
        let usable = !path.as_os_str().is_empty();
        if !usable {
            ignored.push("--db is empty".to_string());
        }
        usable
    });
    if !ignored.is_empty() {
        warn(&format!(
            "nagger: hook arguments ignored ({})",
            ignored.join("; ")
        ));
    }
    hook::run(&Env::from_process(db, project));
    finish(Ok(()))
}

/// The exit code of a command's ending, with its one stderr line (if it has one).
fn finish(result: CommandResult) -> u8 {
    match result {
        Ok(()) => EXIT_OK,
        Err(e) => {
            if let Some(line) = e.message() {
                // Nothing more can be done when stderr is gone too.
                let _ = writeln!(std::io::stderr(), "{line}");
            }
            e.exit_code()
        }
    }
}

/// How long a command that reads the database may spend on it: a database whose tables
/// were swapped for views that never end (or are slow beyond use) must not hang
/// `doctor`, the command that says what is wrong.
const COMMAND_DB_TIME: std::time::Duration = std::time::Duration::from_secs(4);
/// The same for `gc`, which deletes and may rewrite a large database.
const GC_DB_TIME: std::time::Duration = std::time::Duration::from_mins(2);

/// Runs one command, its output into `out`.
pub fn run(command: Command, env: &Env, out: &mut Output) -> CommandResult {
    let limit = match &command {
        Command::Agents(_)
        | Command::Sessions(_)
        | Command::Stats(_)
        | Command::Doctor(_)
        | Command::Context(_)
        | Command::Task(_) => Some(COMMAND_DB_TIME),
        Command::Gc(_) => Some(GC_DB_TIME),
        _ => None,
    };
    let until = limit.map(|l| std::time::Instant::now() + l);
    let _budget = until.map(crate::storage::store::limit_waits);
    if let Some(until) = until {
        crate::storage::store::stop_statements_at(until);
    }
    match command {
        Command::Hook(_) => {
            hook::run(env);
            Ok(())
        }
        Command::Agents(args) => agents::run(env, &args, out),
        Command::Sessions(args) => sessions::run(env, args.json, out),
        Command::Gc(args) => gc::run(env, &args, out),
        Command::Check(args) => check::run(env, &args, out),
        Command::Stats(args) => stats::run(env, &args, out),
        Command::Doctor(args) => doctor::run(env, &args, out),
        Command::Install(args) => match &args.plugin {
            Some(dir) => plugin::run(dir, args.target.dry_run, out),
            None => install::install(env, &args, out),
        },
        Command::Import(args) => import::run(env, &args, out),
        Command::Uninstall(args) => install::uninstall(env, &args, out),
        Command::Trust => trust::run(env, out),
        Command::Plugin(args) => plugin::run(&args.dir, args.dry_run, out),
        Command::Context(args) => context::run(env, &args, out),
        Command::Task(command) => task::run(env, command, out),
        Command::Demo(args) => demo::run(&args, out),
        Command::Ui(args) => ui::run(env, &args),
        Command::Completions(args) => {
            let mut cmd = Cli::command();
            let mut script = Vec::new();
            clap_complete::generate(args.shell, &mut cmd, "nagger", &mut script);
            Ok(out.line(String::from_utf8_lossy(&script).trim_end())?)
        }
        Command::Man(args) => man::run(&args, out),
    }
}
