//! Every command and flag of `nagger`.

use crate::base::mode::PermissionMode;
use clap::builder::TypedValueParser as _;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Exit-code lines every command shares (`crate::edge::cmd::CommandError::exit_code` decides
/// the codes); macros so that `concat!` can put them into the help texts.
macro_rules! exit_error_and_usage {
    () => {
        "  1    an error (a database or config nagger cannot use, an unknown --session)\n  \
         2    a usage error (an unknown flag or a bad value)\n"
    };
}
macro_rules! exit_broken_pipe {
    () => {
        "  141  standard output closed before everything was written (`| head`): \
         nagger stops quietly"
    };
}

#[derive(Debug, Parser)]
#[command(
    name = "nagger",
    version,
    about = "Claude Code hook handler: multi-agent state, conventions, guard, shared context",
    after_help = concat!(
        "The project is --project, else $CLAUDE_PROJECT_DIR, else the nearest folder \
from the current one up holding .claude-nagger/ or .claude/ (not the home folder's own \
~/.claude), else the git work tree's root, else the current folder.

The config file is <project>/.claude-nagger/config.toml: `nagger man config` describes it.

Exit codes:
  0    success
  1    problems found (`doctor`, a failed `demo` check, `task done` of no task)\n",
        exit_error_and_usage!(),
        "  3    `check`: nagger would refuse the call
  4    `check`: nagger would ask the user\n",
        exit_broken_pipe!(),
        "\n`nagger hook` always exits 0, whatever happens."
    )
)]
pub struct Cli {
    /// Project folder (default: $CLAUDE_PROJECT_DIR, else found from the current folder)
    #[arg(long, global = true, value_name = "DIR")]
    pub project: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

/// `--db`, on the commands that use the state database.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DbArg {
    /// State database (default: $NAGGER_DB, else <project>/.claude-nagger/state.db)
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Handle one hook event: JSON on stdin, decision on stdout (what Claude Code runs)
    #[command(after_help = hook_after_help())]
    Hook(DbArg),
    /// List the subagents nagger knows (reads only)
    Agents(AgentsArgs),
    /// List the sessions nagger knows (reads only)
    Sessions(SessionsArgs),
    /// Purge expired state now and say what was removed
    Gc(GcArgs),
    /// Hook runs, decisions and durations; roles, claims, compressions, context, rules, usage (reads only)
    Stats(StatsArgs),
    /// Check the database, schema, Claude Code settings and config; exit 1 on a problem
    #[command(after_help = concat!(
        "Exit codes:\n  0    no problem (warnings allowed)\n  \
         1    a problem found (a FAIL line)\n",
        exit_error_and_usage!(),
        exit_broken_pipe!()
    ))]
    Doctor(DoctorArgs),
    /// Add nagger's hook entries to the project's Claude Code settings and write the config template
    ///
    /// Changes, in the project only: .claude/settings.json (or the file --local or
    /// --settings names), .claude-nagger/config.toml and .claude-nagger/.gitignore when
    /// missing. A settings file it changes is first copied to .claude-nagger/backups/.
    /// The shared settings get `nagger hook` when nagger is on PATH; otherwise the
    /// absolute path goes to .claude/settings.local.json, which is personal.
    Install(InstallArgs),
    /// Remove exactly nagger's hook entries from the settings file
    Uninstall(SettingsArgs),
    /// Carry claude-nagger's YAML config into .claude-nagger/config.toml, saying what changed
    ///
    /// Reads config.yaml, file_conventions.yaml, command_conventions.yaml and
    /// mcp_conventions.yaml and prints every entry carried over, changed or dropped, and
    /// why. Merges into an existing config.toml (backed up first) and writes nothing when
    /// a key there is set otherwise.
    Import(ImportArgs),
    /// Confirm, in your own terminal, config changes that weaken the guard or the deny rules
    ///
    /// Until you do, nagger keeps the stronger settings it last trusted
    /// (.claude-nagger/trusted.json). Shows what the config weakens, asks on the terminal
    /// for a code it shows, and refuses to run without one or under an agent.
    Trust,
    /// Write a Claude Code plugin folder that runs nagger's hooks (claude --plugin-dir DIR)
    Plugin(PluginArgs),
    /// Dry run: which rules and guards fire for a tool call (no state change)
    ///
    /// The exit code is the answer, so `nagger check --command "$cmd" && $cmd` runs
    /// only what nagger lets through. With --error or --added: 3 when an after-edit
    /// check would send the edit back, else 0.
    #[command(after_help = concat!(
        "Exit codes:\n  0    the call passes (allowed, perhaps with a message)\n",
        exit_error_and_usage!(),
        "  3    nagger would refuse the call\n  4    nagger would ask the user\n",
        exit_broken_pipe!()
    ))]
    Check(CheckArgs),
    /// Print exactly the shared context a new agent of a role would receive now (reads only)
    Context(ContextArgs),
    /// Tasks assigned to roles: new agents of the role are told about open ones
    #[command(subcommand)]
    Task(TaskCommand),
    /// Play a whole multi-agent session through `nagger hook` in a temporary project
    ///
    /// Spawns this executable as Claude Code would, prints each decision, checks it
    /// and exits non-zero when a flow misbehaved. Uses only its own temporary
    /// database: NAGGER_DB is ignored.
    Demo(DemoArgs),
    /// Print a shell completion script (e.g. `nagger completions bash > ~/.local/share/bash-completion/completions/nagger`)
    Completions(CompletionsArgs),
    /// Print a manual page in roff, or write them all (`nagger man --dir ~/.local/share/man`)
    ///
    /// nagger(1), one page per command (nagger-check(1), nagger-task-add(1) …) and
    /// nagger-config(5), the config file. With --dir, every page goes to DIR/man1 or
    /// DIR/man5, where `man` finds them when DIR is on its path (~/.local/share/man is).
    Man(ManArgs),
    /// Local read-only web dashboard: sessions, agents' timelines, shared context, rules, stats
    ///
    /// Listens on 127.0.0.1 only and prints the address to open, with its access token.
    Ui(UiArgs),
}

impl Command {
    /// The `--db` given to this command, if it takes one.
    pub fn db(&self) -> Option<&PathBuf> {
        let arg = match self {
            Command::Hook(a) => a,
            Command::Agents(a) => &a.db,
            Command::Sessions(a) => &a.db,
            Command::Gc(a) => &a.db,
            Command::Stats(a) => &a.db,
            Command::Doctor(a) => &a.db,
            Command::Context(a) => &a.db,
            Command::Ui(a) => &a.db,
            Command::Task(t) => match t {
                TaskCommand::Add { db, .. }
                | TaskCommand::List { db, .. }
                | TaskCommand::Done { db, .. } => db,
            },
            Command::Install(_)
            | Command::Import(_)
            | Command::Uninstall(_)
            | Command::Trust
            | Command::Plugin(_)
            | Command::Check(_)
            | Command::Demo(_)
            | Command::Completions(_)
            | Command::Man(_) => return None,
        };
        arg.db.as_ref()
    }
}

#[derive(Debug, clap::Args)]
pub struct UiArgs {
    /// Port to listen on (default: any free one)
    #[arg(long)]
    pub port: Option<u16>,
    /// Open the page in the browser
    #[arg(long)]
    pub open: bool,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// The page to print: a command (`check`, `task-add`), `config` for nagger-config(5);
    /// default: nagger(1)
    #[arg(value_name = "PAGE")]
    pub page: Option<String>,
    /// Write every page into DIR/man1 and DIR/man5 (created if missing) instead
    #[arg(long, value_name = "DIR", conflicts_with = "page")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// Keep the temporary project (config, transcripts, state.db) and print where
    #[arg(long)]
    pub keep: bool,
}

#[derive(Debug, clap::Args)]
pub struct ContextArgs {
    /// Session (default: the session of the latest hook run)
    #[arg(long)]
    pub session: Option<String>,
    /// Role or agent type of the new agent (default: the main agent after a compaction)
    #[arg(long)]
    pub role: Option<String>,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// Assign a task to a role
    Add {
        /// The role that should do it
        #[arg(long)]
        role: String,
        /// What to do, in one line
        title: String,
        /// More detail, shown with the title
        #[arg(long)]
        description: Option<String>,
        #[command(flatten)]
        db: DbArg,
    },
    /// List open tasks (reads only)
    List {
        /// Include finished tasks
        #[arg(long)]
        all: bool,
        /// Machine-readable output
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        db: DbArg,
    },
    /// Mark a task done
    Done {
        /// The task's number, as `task list` shows it (without the #)
        id: i64,
        #[command(flatten)]
        db: DbArg,
    },
}

/// Which settings file `install` and `uninstall` edit, and whether to write at all.
#[derive(Debug, clap::Args)]
pub struct SettingsArgs {
    /// Show what would change; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Use .claude/settings.local.json (personal) instead of .claude/settings.json (shared)
    #[arg(long)]
    pub local: bool,
    /// Settings file to edit instead
    #[arg(long, value_name = "PATH")]
    pub settings: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// Show the report and what would change; write nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    #[command(flatten)]
    pub target: SettingsArgs,
    /// Write a Claude Code plugin folder at DIR instead of editing settings (same as `nagger plugin DIR`)
    #[arg(long, value_name = "DIR", conflicts_with_all = ["local", "settings"])]
    pub plugin: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct PluginArgs {
    /// Folder to write the plugin into (created if missing)
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Show what would be written; write nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, clap::Args)]
pub struct SessionsArgs {
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(Debug, clap::Args)]
pub struct GcArgs {
    /// Say what would be purged; delete nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: DbArg,
}

#[derive(Debug, clap::Args)]
pub struct AgentsArgs {
    /// Only this session
    #[arg(long)]
    pub session: Option<String>,
    /// Include finished agents (subagent_history)
    #[arg(long)]
    pub all: bool,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: DbArg,
}

/// `--mode` values: Claude Code's permission modes, by their names.
fn permission_mode_parser() -> impl clap::builder::TypedValueParser<Value = PermissionMode> {
    clap::builder::PossibleValuesParser::new(
        PermissionMode::KNOWN
            .iter()
            .filter_map(PermissionMode::known_name),
    )
    .map(|name| PermissionMode::from(name.as_str()))
}

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("what").args(["command", "file", "input", "error"]).required(true)))]
pub struct CheckArgs {
    /// Tool name, e.g. Bash, Edit, mcp__redmine__update_issue
    #[arg(long, default_value = "Bash")]
    pub tool: String,
    /// Shell command (Bash)
    #[arg(long)]
    pub command: Option<String>,
    /// File path (Edit/Write/Read)
    #[arg(long)]
    pub file: Option<String>,
    /// Whole tool_input as JSON
    #[arg(long, value_name = "JSON")]
    pub input: Option<String>,
    /// The call failed with this text: which recovery hints would be shown
    #[arg(long, value_name = "TEXT")]
    pub error: Option<String>,
    /// The edit of --file added this text: which after-edit checks would fire
    #[arg(long, value_name = "TEXT", requires = "file")]
    pub added: Option<String>,
    /// Check as a subagent of this role (default: the main agent)
    #[arg(long)]
    pub role: Option<String>,
    /// The folder the call is made from, where relative paths start (default: the
    /// folder `check` runs in, when it is in the project; else the project root)
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<std::path::PathBuf>,
    /// Permission mode to assume: what an `ask` becomes depends on it
    #[arg(long, default_value = "default", value_parser = permission_mode_parser())]
    pub mode: PermissionMode,
    /// Machine-readable output (the exit code is the same)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    /// Only this session
    #[arg(long)]
    pub session: Option<String>,
    /// Only the last DUR: a number and s, m, h, d or w (30m, 12h, 7d)
    #[arg(long, value_name = "DUR", value_parser = parse_since)]
    pub since: Option<Since>,
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: DbArg,
}

/// A `--since` window as written, and its length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Since {
    pub text: String,
    pub millis: i64,
}

fn parse_since(text: &str) -> Result<Since, String> {
    let bad = || format!("`{text}` is not a duration like 30m, 12h or 7d");
    let unit_at = text.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
    let (number, unit) = text.split_at(unit_at);
    let n: i64 = number.parse().map_err(|_| bad())?;
    let unit_ms: i64 = match unit {
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        "w" => 604_800_000,
        _ => return Err(bad()),
    };
    let millis = n
        .checked_mul(unit_ms)
        .filter(|ms| *ms > 0)
        .ok_or_else(bad)?;
    Ok(Since {
        text: text.to_string(),
        millis,
    })
}

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
    /// Repair what can be: move a corrupt database aside and create a new one, apply
    /// missing migrations, purge stale rows (and create the database if there is none)
    #[arg(long)]
    pub fix: bool,
    /// Also print every setting in force, defaults included, as TOML (always in --json)
    #[arg(long)]
    pub settings: bool,
    #[command(flatten)]
    pub db: DbArg,
}

/// `nagger hook --help`'s list of events and its exit policy. Built only when help is
/// asked for: the hook path itself never builds the parser.
fn hook_after_help() -> String {
    use crate::base::event::HookEvent;
    use std::fmt::Write as _;
    let mut text = String::from(
        "Claude Code runs `nagger hook` for every event `nagger install` registered in
.claude/settings.json (or a plugin's hooks/hooks.json): it writes the event's JSON to
stdin and reads nagger's answer, if any, from stdout. You do not run it yourself:
`nagger check` shows what it would answer to a tool call, `nagger demo` plays a whole
session through it. The guard and the deny rules are decided from the config alone,
before the database is opened, so a destructive call is refused even when the database
cannot be used; every run answers within a second and is recorded in the database's
hook_log (`nagger stats`, `nagger ui`).

Events (each from the client version named, else from every version):\n",
    );
    for event in HookEvent::ALL {
        let does = match event {
            HookEvent::SessionStart => {
                "records the session; after a compaction, gives the main agent the digest"
            }
            HookEvent::SessionEnd => "marks the session ended and writes its summary",
            HookEvent::SubagentStart => {
                "registers the subagent and gives it its type's digest and report format"
            }
            HookEvent::SubagentStop => {
                "stores its result; sends it back once without a [COMPRESSED] report"
            }
            HookEvent::PreToolUse => {
                "identifies the caller; conventions on a first call; rules and the guard"
            }
            HookEvent::PostToolUse => "records file changes and usage; the after-edit checks",
            HookEvent::PostToolUseFailure => "a recovery hint for the failure",
            HookEvent::PreCompact => "records what started the compaction",
            HookEvent::UserPromptSubmit => "checks a typed /command's shell lines",
            HookEvent::UserPromptExpansion => {
                "checks a typed /command's shell lines before it expands"
            }
            HookEvent::PreSkillShellCommand => "judges a skill's shell line as a Bash call",
        };
        let since = event
            .since()
            .map(|v| format!(" ({v}+)"))
            .unwrap_or_default();
        let _ = writeln!(text, "  {:<22}{does}{since}", event.as_str());
    }
    text.push_str(
        "Any other event is logged and answered with nothing.

Exit code: always 0. Claude Code reads exit code 2 from a hook as a refusal, so nagger's
own failures (bad input, a broken or locked database, an invalid config, even unknown
arguments) pass, with one line on stderr; a refusal is given on stdout as JSON.",
    );
    text
}

/// What a command line that makes a hook run says, read word by word where clap
/// gave up on it: the `--project` and `--db` it could understand.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct HookWords {
    pub project: Option<PathBuf>,
    pub db: Option<PathBuf>,
}

/// Whether the words make a hook run: the first subcommand word among them is `hook`,
/// wherever the options stand and whatever they are. Options other than `--project`
/// and `--db` are skipped (an unknown option is taken to have no value).
pub fn hook_words(args: &[std::ffi::OsString]) -> Option<HookWords> {
    use clap::CommandFactory as _;
    let cli = Cli::command();
    let is_subcommand = |word: &str| word == "help" || cli.find_subcommand(word).is_some();
    let mut words = HookWords::default();
    let mut subcommand: Option<&str> = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let Some(word) = arg.to_str() else {
            continue;
        };
        let slot = match word.split_once('=').map_or(word, |(name, _)| name) {
            "--project" => &mut words.project,
            "--db" => &mut words.db,
            _ if word.starts_with('-') => continue,
            _ => {
                // `nagger HOOK`: no other command shares the word in any case.
                if subcommand.is_none() && word.eq_ignore_ascii_case("hook") {
                    subcommand = Some("hook");
                } else if subcommand.is_none() && is_subcommand(word) {
                    subcommand = Some(word);
                }
                continue;
            }
        };
        let value = match word.split_once('=') {
            Some((_, value)) => Some(PathBuf::from(value)),
            None => match args.next() {
                // `nagger --project hook`: the option's value is missing and the hook
                // word was taken for it.
                Some(next) if next == "hook" && subcommand.is_none() => {
                    subcommand = Some("hook");
                    None
                }
                next => next.map(PathBuf::from),
            },
        };
        *slot = value;
    }
    (subcommand == Some("hook")).then_some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_run_is_known_by_its_first_subcommand_word() {
        let words = |args: &[&str]| {
            let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
            hook_words(&args)
        };
        assert_eq!(words(&["hook"]), Some(HookWords::default()));
        assert_eq!(words(&["HOOK"]), Some(HookWords::default()));
        assert_eq!(words(&["--bogus", "Hook"]), Some(HookWords::default()));
        assert_eq!(
            words(&["--bogus", "hook", "-q"]),
            Some(HookWords::default())
        );
        assert_eq!(words(&["--project", "hook"]), Some(HookWords::default()));
        assert_eq!(
            words(&["--db", "hook", "--project", "/p"]),
            Some(HookWords {
                project: Some("/p".into()),
                db: None,
            })
        );
        assert_eq!(words(&["--project", "/p", "stats"]), None);
        assert_eq!(
            words(&["--project", "/p", "hook", "--db=/d.db", "extra"]),
            Some(HookWords {
                project: Some("/p".into()),
                db: Some("/d.db".into()),
            })
        );
        assert_eq!(
            words(&["--project=/p", "-x", "hook", "--db"]),
            Some(HookWords {
                project: Some("/p".into()),
                db: None,
            })
        );
        for other in [
            &["check", "--bogus", "hook"][..],
            &["help", "hook"],
            &["stats", "hook"],
            &[],
            &["--bogus"],
        ] {
            assert_eq!(words(other), None, "{other:?}");
        }
    }

    #[test]
    fn since_accepts_a_positive_number_and_a_unit() {
        assert_eq!(parse_since("30m").unwrap().millis, 1_800_000);
        assert_eq!(parse_since("7d").unwrap().millis, 604_800_000);
        for bad in [
            "",
            "7",
            "d",
            "0h",
            "-1h",
            "1.5h",
            "7 d",
            "99999999999999999w",
        ] {
            assert!(parse_since(bad).is_err(), "{bad:?}");
        }
    }
}
