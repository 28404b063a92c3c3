//! Reading Claude Code's JSONL transcripts: incremental scans of a parent transcript
//! for subagent spawns and their exact spawn -> agent links, and reads from the end of
//! a transcript for the context size, an agent's last words and the files it wrote.
//!
//! Claude Code appends to the file while nagger reads it, so a malformed or cut-short
//! line is skipped, never an error; only I/O failures are. Every read is bounded: a scan
//! reads what was appended since the last one, a read from the end stops at its answer.

mod budget;
mod collect;
mod lines;
mod queries;
mod records;
mod reverse;
mod scan;
#[cfg(test)]
mod tests;

pub use budget::{
    MAX_LINKS_PER_SCAN, MAX_PARSED_PER_SCAN, MAX_SPAWNS_PER_SCAN, READ_BUDGET, SCAN_BUDGET,
    set_run_budget,
};
pub use queries::{
    current_context_tokens, ended_without_reply, files_written, last_assistant_text,
    subagent_transcript_path, total_usage,
};
pub use records::{SpawnLink, SpawnRecord, Usage, prompt_hash};
pub use reverse::ReverseLines;
pub use scan::{ScanCursor, ScanOutcome, scan_spawns};
