//! Skills and slash commands: the `` !`…` `` shell lines Claude Code runs when a skill or
//! command loads, found in its file and judged like the Bash calls they are. Used where
//! Claude Code sends no event for the lines themselves (the Skill tool's PreToolUse, a
//! typed `/name` prompt); Claude Code 2.1.332 sends each line as `PreSkillShellCommand`.

mod judge;
mod locate;

pub use crate::base::skill_lines::{ShellLine, shell_lines};
pub use judge::{Invocation, SkillCheck, check, check_agent};
pub use locate::{MAX_FILE_BYTES, Roots};
