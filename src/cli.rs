//! Every command and flag of `nagger`.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "nagger",
    version,
    about = "Claude Code hook handler: multi-agent state, conventions, guard, shared context"
)]
pub struct Cli {
    /// State database (default: $NAGGER_DB, else <project>/.claude-nagger/state.db)
    #[arg(long, global = true, value_name = "PATH")]
    pub db: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Handle one hook event: JSON on stdin, decision on stdout (what Claude Code runs)
    Hook,
    /// List the subagents nagger knows
    Agents(AgentsArgs),
    /// List the sessions nagger knows
    Sessions(JsonArg),
    /// Purge expired state now and say what was removed
    Gc,
    /// Hook runs, decisions and durations; roles, claims, compressions, context, rules, usage
    Stats(StatsArgs),
    /// Check the database, schema, Claude Code settings and config; exit 1 on a problem
    Doctor(DoctorArgs),
    /// Add nagger's hook entries to .claude/settings.json and write the config template
    Install(InstallArgs),
    /// Remove exactly nagger's hook entries from the settings file
    Uninstall(InstallArgs),
    /// Dry run: which rules and guards fire for a tool call (no state change)
    Check(CheckArgs),
    /// Print exactly the shared context a new agent of a role would receive now
    Context(ContextArgs),
    /// Tasks assigned to roles: new agents of the role are told about open ones
    #[command(subcommand)]
    Task(TaskCommand),
    /// Play a whole multi-agent session through `nagger hook` in a temporary project
    ///
    /// Spawns this executable as Claude Code would, prints each decision, checks it
    /// and exits non-zero when a flow misbehaved. Uses only its own temporary
    /// database: --db and NAGGER_DB are ignored.
    Demo(DemoArgs),
    /// Local read-only web dashboard: sessions, agents' timelines, shared context, rules, stats
    ///
    /// Listens on 127.0.0.1 only and prints the address to open, with its access token.
    Ui(UiArgs),
}

#[derive(Debug, clap::Args)]
pub struct UiArgs {
    /// Port to listen on (default: any free one)
    #[arg(long)]
    pub port: Option<u16>,
    /// Open the page in the browser
    #[arg(long)]
    pub open: bool,
}

#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// Keep the temporary project (config, transcripts, state.db) and print where
    #[arg(long)]
    pub keep: bool,
}

#[derive(Debug, clap::Args)]
pub struct ContextArgs {
    /// Session (default: the most recently seen one)
    #[arg(long)]
    pub session: Option<String>,
    /// Role or agent type of the new agent (default: the main agent after a compaction)
    #[arg(long)]
    pub role: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum TaskCommand {
    /// Assign a task to a role
    Add {
        /// The role that should do it
        #[arg(long)]
        role: String,
        title: String,
        #[arg(long)]
        description: Option<String>,
    },
    /// List open tasks
    List {
        /// Include finished tasks
        #[arg(long)]
        all: bool,
        #[arg(long)]
        json: bool,
    },
    /// Mark a task done
    Done { id: i64 },
}

#[derive(Debug, clap::Args)]
pub struct InstallArgs {
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
pub struct JsonArg {
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct AgentsArgs {
    /// Only this session
    #[arg(long)]
    pub session: Option<String>,
    /// Include finished agents (subagent_history)
    #[arg(long)]
    pub all: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("what").args(["command", "file", "input"]).required(true)))]
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
    /// Check as a subagent of this role (default: the main agent)
    #[arg(long)]
    pub role: Option<String>,
    /// Permission mode to assume (default, dontAsk, bypassPermissions, ...)
    #[arg(long, default_value = "default")]
    pub mode: String,
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
    #[arg(long)]
    pub json: bool,
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
