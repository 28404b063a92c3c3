//! How much a transcript read may cost: the per-call limits of forward scans and reads
//! from the end, the per-scan caps, and the byte budget of the whole hook run.

/// Lines longer than this are counted but never parsed, so memory stays bounded.
pub(super) const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;
/// Most bytes one scan reads: a first scan of a longer transcript starts this far from
/// its end, and a longer append is read over several scans. Twice the longest line, so
/// that every line kept fits in one scan.
pub const SCAN_BUDGET: u64 = 2 * MAX_LINE_BYTES as u64;
/// Most bytes one read from the end, or one usage count, reads.
pub const READ_BUDGET: u64 = 32 * 1024 * 1024;
thread_local! {
    /// Bytes this thread may still read from transcripts: unbounded unless a hook run
    /// set it with [`set_run_budget`].
    static RUN_BUDGET: std::cell::Cell<u64> = const { std::cell::Cell::new(u64::MAX) };
}

/// Bounds what every later transcript read on this thread may read in all: one hook
/// run costs at most this many bytes whatever its transcripts hold.
pub fn set_run_budget(bytes: u64) {
    RUN_BUDGET.with(|b| b.set(bytes));
}

/// Bytes of the run's budget left.
pub(super) fn run_budget_left() -> u64 {
    RUN_BUDGET.with(std::cell::Cell::get)
}

/// Counts `bytes` read against the run's budget.
pub(super) fn spend(bytes: u64) {
    RUN_BUDGET.with(|b| b.set(b.get().saturating_sub(bytes)));
}

/// Most spawns one scan keeps: past it, the oldest are dropped first.
pub const MAX_SPAWNS_PER_SCAN: usize = 512;
/// Most lines one scan parses as JSON (those that may hold a spawn or a link): a
/// transcript full of them is read over several scans, each of bounded cost.
pub const MAX_PARSED_PER_SCAN: usize = 4096;
/// Most distinct links one scan keeps: past it, the oldest are dropped first.
pub const MAX_LINKS_PER_SCAN: usize = 2048;

/// Read sizes, the longest line kept in memory and the most bytes one call reads.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub(super) chunk: usize,
    pub(super) max_line: usize,
    pub(super) budget: u64,
}

/// Forward scans: big reads, sized to stay in cache while memchr runs over them.
pub(super) const FORWARD: Limits = Limits {
    chunk: 256 * 1024,
    max_line: MAX_LINE_BYTES,
    budget: SCAN_BUDGET,
};
/// Reads from the end: the answer is usually in the last few lines.
pub(super) const REVERSE: Limits = Limits {
    chunk: 64 * 1024,
    max_line: MAX_LINE_BYTES,
    budget: READ_BUDGET,
};
