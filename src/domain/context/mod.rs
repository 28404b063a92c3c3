//! The shared-context digest: what a starting subagent (or the main agent after a
//! compaction) is told about earlier agents' results, chosen in six bounded stages,
//! filtered by category, capped at `max_summary_chars` in whole entries, newest
//! first. Also where agents write their reports and how nagger reads them back.

mod consts;
mod digest;
mod render;
mod reports;
mod select;
#[cfg(test)]
mod tests;

pub use consts::{LEADER, MAX_INJECTED_DIGEST};
pub use digest::{Audience, Digest, Picked, Stage};
pub use render::{Injection, for_main, for_subagent, project_relative, role_for, session_summary};
pub use reports::{
    context_root, ensure_session_dir, file_component, is_inside_context, purge_report_dirs,
    read_report, report_path, report_path_placeholder, session_dir, write_summary,
};
pub use select::{categories_received, category_of, select};
