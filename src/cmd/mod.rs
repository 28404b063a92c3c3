//! One file per command; `main` maps their errors to exit codes.

mod agents;
mod check;
mod context;
mod demo;
mod doctor;
mod gc;
mod hook;
mod install;
mod plugin;
mod sessions;
mod stats;
mod task;
mod ui;

use crate::cli::{Cli, Command};
use crate::paths::Env;
use crate::store::NaggerStateDB;
use clap::{CommandFactory, Parser};
use std::process::ExitCode;

/// An error at the binary's edge, with the exit code it maps to.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The command ran and found problems (doctor); already reported.
    #[error("{0}")]
    Problems(String),
    /// The command ran and its answer is this exit code (`check`); already reported.
    #[error("exit code {0}")]
    Answer(u8),
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

impl CommandError {
    pub fn exit_code(&self) -> u8 {
        match self {
            CommandError::Problems(_) => 1,
            CommandError::Answer(code) => *code,
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
        return finish(hook::run(&Env::from_process(None, None)));
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // A hook must never exit 2 (Claude Code would read it as a refusal), and its
            // guard must not depend on how it was called: a `nagger hook` with arguments
            // it does not take says so in one line and runs as a plain `nagger hook`.
            if std::env::args_os().nth(1).is_some_and(|a| a == "hook") {
                let what = e.to_string();
                let first = what.lines().next().unwrap_or("bad arguments");
                eprintln!(
                    "nagger: hook arguments ignored ({})",
                    first.trim_start_matches("error: ")
                );
                return finish(hook::run(&Env::from_process(None, None)));
            }
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    if let Some(dir) = cli.project.as_ref().filter(|d| !d.is_dir()) {
        eprintln!("error: --project {} is not a folder", dir.display());
        return ExitCode::from(2);
    }
    let env = Env::from_process(cli.command.db().cloned(), cli.project.clone());
    finish(run(cli.command, &env))
}

fn finish(result: CommandResult) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(CommandError::Answer(code)) => ExitCode::from(code),
        Err(e) => {
            eprintln!("nagger: {e:#}");
            ExitCode::from(e.exit_code())
        }
    }
}

pub fn run(command: Command, env: &Env) -> CommandResult {
    match command {
        Command::Hook(_) => hook::run(env),
        Command::Agents(args) => agents::run(env, &args),
        Command::Sessions(args) => sessions::run(env, args.json),
        Command::Gc(args) => gc::run(env, &args),
        Command::Check(args) => check::run(env, &args),
        Command::Stats(args) => stats::run(env, &args),
        Command::Doctor(args) => doctor::run(env, &args),
        Command::Install(args) => match &args.plugin {
            Some(dir) => plugin::run(dir, args.target.dry_run),
            None => install::install(env, &args),
        },
        Command::Uninstall(args) => install::uninstall(env, &args),
        Command::Plugin(args) => plugin::run(&args.dir, args.dry_run),
        Command::Context(args) => context::run(env, &args),
        Command::Task(command) => task::run(env, command),
        Command::Demo(args) => demo::run(&args),
        Command::Ui(args) => ui::run(env, &args),
        Command::Completions(args) => {
            let mut cmd = Cli::command();
            let mut out = Vec::new();
            clap_complete::generate(args.shell, &mut cmd, "nagger", &mut out);
            print(String::from_utf8_lossy(&out).trim_end())
        }
        Command::Man => {
            let mut out = Vec::new();
            clap_mangen::Man::new(Cli::command())
                .render(&mut out)
                .map_err(anyhow::Error::from)?;
            print(String::from_utf8_lossy(&out).trim_end())
        }
    }
}

/// Opens the project's database for a command that writes (creating it if needed, and
/// bringing an older schema up to date). A file that is not a database is left where it
/// is: moving it aside is `nagger doctor --fix`'s call.
pub fn open_db(env: &Env) -> anyhow::Result<NaggerStateDB> {
    let path = env.db_path(&env.project_root(None));
    match NaggerStateDB::open_read_only(&path) {
        Ok(_) | Err(crate::store::StoreError::Schema { .. }) => {}
        Err(e) => {
            return Err(anyhow::Error::from(e)
                .context("`nagger doctor` checks it, `nagger doctor --fix` replaces it"));
        }
    }
    Ok(NaggerStateDB::open(&path)?)
}

/// Opens the project's database for a command that only reads: creates nothing, changes
/// nothing, moves nothing. `None` when there is no database.
pub fn open_read_only(env: &Env) -> anyhow::Result<Option<NaggerStateDB>> {
    let path = env.db_path(&env.project_root(None));
    Ok(NaggerStateDB::open_read_only(&path)?)
}

/// Whether the database holds any trace of a session (a session seen only through its
/// tool calls has no lifecycle row).
pub fn session_known(db: &NaggerStateDB, session: &str) -> anyhow::Result<bool> {
    Ok(db.conn().query_row(
        "SELECT EXISTS(SELECT 1 FROM session_info WHERE session_id = ?1)
             OR EXISTS(SELECT 1 FROM sessions WHERE session_id = ?1)
             OR EXISTS(SELECT 1 FROM hook_log WHERE session_id = ?1)
             OR EXISTS(SELECT 1 FROM subagents WHERE session_id = ?1)
             OR EXISTS(SELECT 1 FROM subagent_history WHERE session_id = ?1)
             OR EXISTS(SELECT 1 FROM context_entries WHERE session_id = ?1)",
        [session],
        |r| r.get(0),
    )?)
}

/// The error for a session the database does not know.
pub fn unknown_session(db: &NaggerStateDB, session: &str) -> CommandError {
    anyhow::anyhow!(
        "no session {session} in {}: `nagger sessions` lists the sessions nagger knows",
        db.path().display()
    )
    .into()
}

/// What a reading command says when there is no database, plainly.
pub fn no_database(env: &Env) -> String {
    let path = env.db_path(&env.project_root(None));
    format!(
        "no database yet at {}: nagger has not run a hook in this project",
        path.display()
    )
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
