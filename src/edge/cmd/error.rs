//! How a command ends: one error type for every command, and the one table that maps
//! its kinds to exit codes. `nagger --help` and the README show the same table.

use std::io;

/// The command did what was asked (for `check`: the call passes).
pub const EXIT_OK: u8 = 0;
/// An error: nagger could not do what was asked (a database it cannot read, a config
/// it cannot use, an unknown `--session`), or the command found problems (`doctor`,
/// a failed `demo` check).
pub const EXIT_ERROR: u8 = 1;
/// A usage error: an unknown flag or a bad value (clap's own code).
pub const EXIT_USAGE: u8 = 2;
/// `check`: nagger would refuse the call.
pub const EXIT_REFUSE: u8 = 3;
/// `check`: nagger would ask the user.
pub const EXIT_ASK: u8 = 4;
/// Standard output was closed before the command had written everything
/// (`nagger stats | head -1`): the command stops quietly, with the code a shell shows
/// for a program ended by SIGPIPE (128 + 13), so it is never mistaken for a success or
/// for one of `check`'s answers.
pub const EXIT_BROKEN_PIPE: u8 = 141;

/// Why a command did not end with exit code 0.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// A bad argument the parser could not see (e.g. `--input` that is not JSON).
    #[error("{0}")]
    Usage(String),
    /// nagger's config cannot be used for what was asked.
    #[error("config: {0}")]
    Config(String),
    /// The command ran and found problems (`doctor`, `demo`, `task done` of no task);
    /// its report is already on stdout, this is its one-line summary.
    #[error("{0}")]
    Problems(String),
    /// `check`: nagger would refuse the call; already reported on stdout.
    #[error("nagger would refuse the call")]
    WouldRefuse,
    /// `check`: nagger would ask the user; already reported on stdout.
    #[error("nagger would ask the user")]
    WouldAsk,
    /// Standard output was closed by its reader.
    #[error("standard output closed")]
    BrokenPipe,
    /// Anything else that went wrong.
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl CommandError {
    /// The exit code of this kind of ending; the one place they are decided.
    pub fn exit_code(&self) -> u8 {
        match self {
            CommandError::Usage(_) => EXIT_USAGE,
            CommandError::Config(_) | CommandError::Problems(_) | CommandError::Internal(_) => {
                EXIT_ERROR
            }
            CommandError::WouldRefuse => EXIT_REFUSE,
            CommandError::WouldAsk => EXIT_ASK,
            CommandError::BrokenPipe => EXIT_BROKEN_PIPE,
        }
    }

    /// The one line for stderr, or `None` when the ending says nothing there: an
    /// answer of `check` (its report is the output) or a closed pipe (quietly).
    pub fn message(&self) -> Option<String> {
        let text = match self {
            CommandError::WouldRefuse | CommandError::WouldAsk | CommandError::BrokenPipe => {
                return None;
            }
            // As clap words its own usage errors.
            CommandError::Usage(m) => format!("error: {m}"),
            CommandError::Internal(e) => format!("nagger: {e:#}"),
            other => format!("nagger: {other}"),
        };
        Some(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" "),
        )
    }
}

/// A write to stdout that failed: a closed pipe ends the command quietly, anything else
/// is an error.
impl From<io::Error> for CommandError {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::BrokenPipe {
            CommandError::BrokenPipe
        } else {
            CommandError::Internal(anyhow::Error::from(e).context("cannot write the output"))
        }
    }
}

impl From<crate::storage::store::StoreError> for CommandError {
    fn from(e: crate::storage::store::StoreError) -> Self {
        CommandError::Internal(e.into())
    }
}

pub type CommandResult = Result<(), CommandError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_code() {
        let cases = [
            (CommandError::Usage("x".into()), 2),
            (CommandError::Config("x".into()), 1),
            (CommandError::Problems("x".into()), 1),
            (CommandError::WouldRefuse, 3),
            (CommandError::WouldAsk, 4),
            (CommandError::BrokenPipe, 141),
            (CommandError::Internal(anyhow::anyhow!("x")), 1),
        ];
        for (e, code) in cases {
            assert_eq!(e.exit_code(), code, "{e:?}");
        }
    }

    #[test]
    fn answers_and_a_closed_pipe_say_nothing_on_stderr() {
        assert_eq!(CommandError::WouldRefuse.message(), None);
        assert_eq!(CommandError::WouldAsk.message(), None);
        assert_eq!(CommandError::BrokenPipe.message(), None);
        assert_eq!(
            CommandError::Usage("--input is not JSON".into()).message(),
            Some("error: --input is not JSON".into())
        );
        let chained = anyhow::anyhow!("database locked\nretry").context("cannot read");
        assert_eq!(
            CommandError::Internal(chained).message(),
            Some("nagger: cannot read: database locked retry".into()),
            "one line"
        );
    }

    #[test]
    fn help_lists_every_code_this_table_gives() {
        use clap::CommandFactory;
        let help = crate::edge::cli::Cli::command().render_help().to_string();
        for code in [
            EXIT_OK,
            EXIT_ERROR,
            EXIT_USAGE,
            EXIT_REFUSE,
            EXIT_ASK,
            EXIT_BROKEN_PIPE,
        ] {
            assert!(
                help.contains(&format!("\n  {code:<4} ")),
                "exit {code} is not in --help:\n{help}"
            );
        }
    }

    #[test]
    fn a_closed_pipe_is_its_own_kind() {
        let pipe = CommandError::from(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(matches!(pipe, CommandError::BrokenPipe));
        let other = CommandError::from(io::Error::other("disk full"));
        assert_eq!(other.exit_code(), EXIT_ERROR);
    }
}
