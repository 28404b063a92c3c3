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
