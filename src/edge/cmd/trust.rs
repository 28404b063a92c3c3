//! `nagger trust`: the user confirms, in their own terminal, a config that weakens the
//! guard or the deny, block and ask rules. It shows what the config weakens compared with
//! the trusted snapshot, asks on the terminal for a code it shows, and then trusts the
//! config as it is. Without a terminal on stdin, or under an agent, it refuses: an agent
//! cannot answer for the user.

use std::io::{BufRead, IsTerminal, Write};

use super::error::{CommandError, CommandResult};
use crate::base::output::Output;
use crate::base::paths::{self, Env};
use crate::domain::config::LoadedConfig;
use crate::domain::trust::{self, Projection, SnapshotState};

pub fn run(env: &Env, out: &mut Output) -> CommandResult {
    let root = env.project_root(None);
    let loaded = LoadedConfig::load_full(&paths::config_path(&root));
    let path = trust::snapshot_path(&loaded.path);
    let current = Projection::of_config(&loaded.config);
    let (trusted, state) = trust::trusted(&path);
    if let SnapshotState::Unreadable(why) = &state {
        out.line(&format!(
            "{} cannot be read ({why}): comparing with the built-in defaults and nagger's own \
             copy of what you last trusted",
            path.display()
        ))?;
    }
    for e in &loaded.errors {
        out.line(&format!("config: {e}"))?;
    }
    let weakenings = current.weakenings(&trusted);
    if weakenings.is_empty() {
        // Both the snapshot and nagger's own copy of it hold exactly that.
        let holds =
            |p: &std::path::Path| trust::read_digest(p).ok().flatten() == Some(trusted.digest());
        let copy_holds = trust::copy_path(&path).is_none_or(|c| holds(&c));
        if state == SnapshotState::Present && current.same(&trusted) && holds(&path) && copy_holds {
            out.line("nothing to confirm: the config is what you last trusted")?;
            return Ok(());
        }
        trust::write_trusted(&path, &current)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        out.line(&format!(
            "nothing to confirm: the config weakens nothing; {} now holds it",
            path.display()
        ))?;
        return Ok(());
    }
    if !std::io::stdin().is_terminal() {
        return Err(CommandError::Usage(
            "nagger trust asks for your confirmation on a terminal, and stdin is none: \
             run it yourself in your terminal (an agent cannot confirm for you)"
                .into(),
        ));
    }
    if let Some(var) = trust::confirm::agent_variable(|name| std::env::var_os(name)) {
        return Err(CommandError::Usage(format!(
            "nagger trust runs under an agent here (`{var}` is set): run it yourself in \
             your own terminal (an agent cannot confirm for you)"
        )));
    }
    if let Some((pid, why)) = trust::confirm::agent_ancestor() {
        return Err(CommandError::Usage(format!(
            "nagger trust runs under an agent here (process {pid} above it: {why}): run it \
             yourself in your own terminal (an agent cannot confirm for you)"
        )));
    }
    if let Some(why) = trust::confirm::terminal_problem(&root) {
        return Err(CommandError::Usage(format!(
            "nagger trust asks a person at a terminal, and {why}: run it yourself in a \
             terminal of your own (an agent cannot confirm for you)"
        )));
    }
    let mut lines = vec![format!(
        "{} weakens the safety settings you last trusted:",
        loaded.path.display()
    )];
    lines.extend(weakenings.iter().map(|w| format!("  - {w}")));
    out.line(&lines.join("\n"))?;
    out.flush()?;
    // Only what is typed after the question counts: input waiting on the terminal
    // (typed or fed ahead) is dropped, and the code is new on every run.
    discard_pending_input();
    let code = trust::confirm::code();
    let mut stderr = std::io::stderr();
    write!(
        stderr,
        "To trust these settings, type {code} and Enter (anything else keeps the settings last trusted): "
    )
    .map_err(anyhow::Error::from)?;
    stderr.flush().map_err(anyhow::Error::from)?;
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(anyhow::Error::from)?;
    if !trust::confirm::confirms(&answer, &code) {
        out.line("not confirmed: nagger keeps the settings it last trusted")?;
        return Err(CommandError::Problems("not confirmed".into()));
    }
    // What was shown is what is trusted: a config changed while the user read it is
    // compared with that again at the next run, and waits if it weakens it.
    trust::write_trusted(&path, &current)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    out.line(&format!(
        "trusted: the config's settings are in force ({} updated)",
        path.display()
    ))?;
    let now = LoadedConfig::load_full(&paths::config_path(&root));
    if !Projection::of_config(&now.config).same(&current) {
        out.line(
            "the config changed while you read this: nagger trusted what it showed you; \
             run `nagger trust` again to see the rest",
        )?;
    }
    Ok(())
}

/// Drops what waits unread on the terminal on stdin.
fn discard_pending_input() {
    #[cfg(unix)]
    // SAFETY: tcflush only discards the terminal's queued input; a stdin that is no
    // terminal makes it fail, which changes nothing.
    unsafe {
        libc::tcflush(libc::STDIN_FILENO, libc::TCIFLUSH);
    }
}
