//! The demo's session, step by step: a main agent asked for avatars on a profile
//! page, three parallel subagents (legacy payloads, then modern ones), rules and
//! the guard, compressed reports, shared context, a compaction and the end.
//!
//! `opening.rs` plays the session up to the rules and the guard, `closing.rs` its
//! reports, shared context, compaction, end and statistics.

mod cast;
mod closing;
mod helpers;
mod opening;

use super::player::Player;
use closing::{compaction, reports_and_shared_context, session_end, stats};
use opening::{main_conventions, parallel_subagents, rules_and_guard, session_start, setup};

pub fn play(p: &mut Player) -> anyhow::Result<()> {
    setup(p)?;
    session_start(p)?;
    main_conventions(p)?;
    parallel_subagents(p)?;
    rules_and_guard(p)?;
    reports_and_shared_context(p)?;
    compaction(p)?;
    session_end(p)?;
    stats(p)
}
