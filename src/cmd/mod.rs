//! One file per command; `main` maps their errors to exit codes.

mod agents;
mod check;
mod context;
mod demo;
mod doctor;
mod gc;
mod hook;
mod install;
mod sessions;
mod stats;
mod task;
mod ui;

use crate::cli::{Cli, Command};
use crate::paths::Env;
use crate::store::NaggerStateDB;
use clap::Parser;
use std::process::ExitCode;

/// An error at the binary's edge, with the exit code it maps to.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The command ran and found problems (doctor); already reported.
    #[error("{0}")]
    Problems(String),
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

impl CommandError {
    pub fn exit_code(&self) -> u8 {
        match self {
            CommandError::Problems(_) => 1,
            CommandError::Other(_) => 1,
        }
    }
}

pub type CommandResult = Result<(), CommandError>;

pub fn main() -> ExitCode {
    // `nagger hook`, exactly as installed, runs on every tool call: it skips building the
    // whole command-line parser (about 5 % of a quiet hook's instructions). Anything else,
    // `nagger hook --db …` included, goes through clap.
    let mut args = std::env::args_os().skip(1);
    if let (Some(first), None) = (args.next(), args.next())
        && first == "hook"
    {
        return finish(hook::run(&Env::from_process(None)));
    }
    let cli = Cli::parse();
    let env = Env::from_process(cli.db.clone());
    finish(run(cli.command, &env))
}

fn finish(result: CommandResult) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("nagger: {e:#}");
            ExitCode::from(e.exit_code())
        }
    }
}

pub fn run(command: Command, env: &Env) -> CommandResult {
    match command {
        Command::Hook => hook::run(env),
        Command::Agents(args) => agents::run(env, &args),
        Command::Sessions(args) => sessions::run(env, args.json),
        Command::Gc => gc::run(env),
        Command::Check(args) => check::run(env, &args),
        Command::Stats(args) => stats::run(env, &args),
        Command::Doctor(args) => doctor::run(env, &args),
        Command::Install(args) => install::install(env, &args),
        Command::Uninstall(args) => install::uninstall(env, &args),
        Command::Context(args) => context::run(env, &args),
        Command::Task(command) => task::run(env, command),
        Command::Demo(args) => demo::run(&args),
        Command::Ui(args) => ui::run(env, &args),
    }
}

/// Opens the project's database for a command (creating it if needed).
pub fn open_db(env: &Env) -> anyhow::Result<NaggerStateDB> {
    let root = env.project_root(None);
    Ok(NaggerStateDB::open(&env.db_path(&root))?)
}

/// Opens the project's database if there is one: commands that only read must not leave
/// a new `.claude-nagger/state.db` in whatever directory they were run from.
pub fn open_existing_db(env: &Env) -> anyhow::Result<Option<NaggerStateDB>> {
    let path = env.db_path(&env.project_root(None));
    if !path.try_exists()? {
        return Ok(None);
    }
    Ok(Some(NaggerStateDB::open(&path)?))
}

/// Prints a command's output. A reader that went away (`nagger stats | head`) is not an
/// error, and no reason to panic.
pub fn print(text: &str) -> CommandResult {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CommandError::Other(e.into())),
        _ => Ok(()),
    }
}

/// "3m ago"-style age of a unix-ms time.
pub fn age(ms: i64) -> String {
    let secs = ((crate::store::now_ms() - ms) / 1000).max(0);
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// Renders rows as an aligned text table.
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    let line = |cells: Vec<&str>| {
        let mut s = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{:<width$}", c, width = widths[i]))
            .collect::<Vec<_>>()
            .join("  ");
        s.truncate(s.trim_end().len());
        s
    };
    let mut out = vec![line(headers.to_vec())];
    out.push(line(
        widths
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .iter()
            .map(String::as_str)
            .collect(),
    ));
    for row in rows {
        out.push(line(row.iter().map(String::as_str).collect()));
    }
    out.join("\n")
}
