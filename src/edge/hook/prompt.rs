//! UserPromptSubmit and UserPromptExpansion: a typed `/name args` whose skill or command
//! file holds shell lines the guard refuses is refused before it expands (Claude Code
//! 2.1.328 and later; 2.1.68 runs the lines before UserPromptSubmit, so there the prompt
//! is stopped and the reason says the lines may have run).

use super::ctx::{Ctx, Outcome};
use super::event::Expansion;
use super::skill_file::{self, Place};
use super::wire::HookOutput;
use crate::base::event::HookEvent;
use crate::base::mode::PermissionMode;
use crate::domain::config::Config;

/// The answer to a prompt event, decided from the config alone: the refusal of a typed
/// command whose shell lines the guard refuses. None for any other prompt.
pub fn answer(
    config: &Config,
    mode: &PermissionMode,
    typed: Typed<'_>,
    place: Place<'_>,
) -> Option<(skill_file::FileAnswer, HookOutput)> {
    let (name, args) = typed.command()?;
    Some(skill_file::for_prompt(
        config,
        mode,
        name,
        args,
        place,
        typed.event(),
    ))
}

/// A prompt event as the file route reads it.
#[derive(Debug, Clone, Copy)]
pub enum Typed<'a> {
    Submit(&'a str),
    Expansion(&'a Expansion),
}

impl<'a> Typed<'a> {
    fn event(self) -> HookEvent {
        match self {
            Typed::Submit(_) => HookEvent::UserPromptSubmit,
            Typed::Expansion(_) => HookEvent::UserPromptExpansion,
        }
    }

    /// The command's name and arguments; None for a prompt that names no command, or an
    /// MCP prompt (it has no file).
    fn command(self) -> Option<(&'a str, &'a str)> {
        match self {
            Typed::Submit(prompt) => skill_file::typed_command(prompt),
            Typed::Expansion(e) => {
                if e.expansion_type
                    .as_deref()
                    .is_some_and(|t| t != "slash_command")
                {
                    return None;
                }
                Some((
                    e.command_name.as_str(),
                    e.command_args.as_deref().unwrap_or_default().trim(),
                ))
            }
        }
    }
}

pub fn handle(ctx: &Ctx<'_>, typed: Typed<'_>) -> anyhow::Result<Outcome> {
    let place = Place {
        project_root: ctx.project_root,
        cwd: ctx.common.cwd.as_deref(),
        session_id: Some(&ctx.common.session_id),
    };
    let Some((answer, output)) = answer(ctx.config, ctx.permission_mode(), typed, place) else {
        return Ok(Outcome::silent());
    };
    answer.record(ctx)?;
    Ok(Outcome::with(output).detail("skill", answer.details()))
}
