//! The incremental scan of a parent transcript: a cursor that remembers where the last
//! scan stopped (and notices a file that changed under it), and bounded forward passes
//! over the lines appended since.

use std::fs::{File, Metadata};
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::Path;

use super::budget::{FORWARD, Limits, run_budget_left, spend};
use super::collect::{Found, SpawnFilter};
use super::records::{SpawnLink, SpawnRecord, hex_prefix};
use crate::base::files::open_regular;

/// How many bytes before a cursor identify the file content it was taken on.
pub(super) const FINGERPRINT_WINDOW: usize = 256;

/// Where an earlier scan of a transcript stopped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScanCursor {
    /// Byte offset just past the last complete line scanned.
    pub offset: u64,
    /// Complete lines before `offset`.
    pub line_count: u64,
    /// Identifies the file and the bytes just before `offset`; a scan that finds it
    /// changed starts again from the beginning. Opaque: store and hand back as is.
    pub fingerprint: String,
}

/// What one call of [`scan_spawns`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanOutcome {
    /// Spawns in file order.
    pub spawns: Vec<SpawnRecord>,
    /// Links in first-seen order, each pair once per scan (a later scan may repeat one).
    pub links: Vec<SpawnLink>,
    /// Where the next scan starts.
    pub cursor: ScanCursor,
    /// Bytes read from the file by this call.
    pub bytes_read: u64,
    /// The previous cursor no longer fit the file (it shrank or was replaced), so the
    /// whole file was scanned again: spawns and links seen before come again.
    pub rescanned_from_start: bool,
    /// Spawns and links past the per-scan caps, dropped oldest first.
    pub dropped: u64,
}

// ---------------------------------------------------------------------------------
// Incremental spawn scan

/// Scans `path` for Agent/Task spawns and spawn -> agent links, from `previous` (or
/// the start) to the end of the file. A last line without its `\n` is left for the
/// next scan. A missing or unreadable file is an error for the caller to handle.
pub fn scan_spawns(path: &Path, previous: Option<&ScanCursor>) -> io::Result<ScanOutcome> {
    scan_spawns_with(path, previous, FORWARD)
}

pub(super) fn scan_spawns_with(
    path: &Path,
    previous: Option<&ScanCursor>,
    limits: Limits,
) -> io::Result<ScanOutcome> {
    let mut file = open_regular(path)?;
    let meta = file.metadata()?;
    // Read up to the size at open: what is appended meanwhile is for the next scan.
    let len = meta.len();
    let identity = file_identity(&meta);
    let mut bytes_read = 0u64;

    let mut resume = None;
    if let Some(prev) = previous.filter(|prev| prev.offset <= len) {
        let window_len = prev.offset.min(FINGERPRINT_WINDOW as u64);
        file.seek(SeekFrom::Start(prev.offset - window_len))?;
        let mut window = Vec::with_capacity(FINGERPRINT_WINDOW);
        (&mut file).take(window_len).read_to_end(&mut window)?;
        bytes_read += window.len() as u64;
        if fingerprint(&identity, &window) == prev.fingerprint {
            resume = Some((prev.offset, prev.line_count, window));
        }
    }
    let rescanned_from_start = previous.is_some() && resume.is_none();
    // A transcript met for the first time (or again from the start) is read only over
    // its last bytes: what came long before is history.
    let (start, line_base, window) =
        resume.unwrap_or_else(|| (len.saturating_sub(limits.budget), 0, Vec::new()));
    file.seek(SeekFrom::Start(start))?;
    // Starting inside a line (an over-long one passed before, or the far end of a
    // transcript read from near its end): its rest is not a line.
    let mid_line = start > 0 && window.last() != Some(&b'\n');
    let to_read = (len - start).min(limits.budget).min(run_budget_left());

    let filter = SpawnFilter::new();
    let mut found = Found::default();
    let feed = feed_lines(
        &mut file,
        to_read,
        window,
        limits,
        FeedFrom {
            mid_line,
            include_tail: false,
        },
        |index, line| found.collect(line, line_base + index, &filter),
    )?;
    // A tail longer than any line kept is never read again from its start: the cursor
    // moves past what was read of it.
    let (offset, window) = if feed.skipping {
        (start + feed.fed, feed.end_window)
    } else {
        (start + feed.consumed, feed.window)
    };

    Ok(ScanOutcome {
        spawns: found.spawns.into(),
        links: found.links.into(),
        cursor: ScanCursor {
            offset,
            line_count: line_base + feed.lines,
            fingerprint: fingerprint(&identity, &window),
        },
        bytes_read: bytes_read + feed.bytes_read,
        rescanned_from_start,
        dropped: found.dropped,
    })
}

/// Where a forward pass starts and what it hands out.
#[derive(Clone, Copy)]
pub(super) struct FeedFrom {
    /// The pass starts inside a line: its rest, up to the first `\n`, is dropped.
    pub(super) mid_line: bool,
    /// The unterminated last line is handed out too.
    pub(super) include_tail: bool,
}

/// What a forward pass over a file's lines saw.
pub(super) struct Feed {
    /// Bytes of complete lines passed, from where the pass started.
    consumed: u64,
    /// Bytes read, from where the pass started.
    fed: u64,
    /// The last [`FINGERPRINT_WINDOW`] bytes before `fed`.
    end_window: Vec<u8>,
    /// The pass ended inside a line too long to keep (or one started before it).
    skipping: bool,
    /// Complete lines passed, an over-long one included.
    lines: u64,
    /// The last [`FINGERPRINT_WINDOW`] bytes before the end of the last complete line.
    window: Vec<u8>,
    bytes_read: u64,
}

/// Reads up to `len` bytes from the file's current position and hands every complete
/// line (without its `\n`) with its index to `on_line`; also the unterminated tail when
/// `include_tail`. Lines over `limits.max_line` are counted, not handed out. `window`
/// holds the bytes just before the start position.
pub(super) fn feed_lines(
    file: &mut File,
    len: u64,
    window: Vec<u8>,
    limits: Limits,
    from: FeedFrom,
    mut on_line: impl FnMut(u64, &[u8]) -> ControlFlow<()>,
) -> io::Result<Feed> {
    // No bigger than needed: an incremental scan reads a few KB.
    let wanted = usize::try_from(len).map_or(limits.chunk, |len| len.min(limits.chunk));
    let mut buf = vec![0u8; wanted.max(1)];
    let mut filled = 0usize;
    // Offset (from the start position) of buf[0].
    let mut buf_offset = 0u64;
    let mut remaining = len;
    // Inside a line over max_line, or the rest of a line started before: its bytes are
    // dropped until its end.
    let mut skipping = from.mid_line;
    // The tail of every byte dropped from buf so far.
    let mut passed = window.clone();
    let mut feed = Feed {
        consumed: 0,
        fed: 0,
        end_window: Vec::new(),
        skipping: false,
        lines: 0,
        window,
        bytes_read: 0,
    };

    // `on_line` asked to stop after the last line passed.
    let mut stopped = false;
    while remaining > 0 && !stopped {
        if filled == buf.len() {
            if buf.len() < limits.max_line {
                let grown = buf.len().saturating_mul(2).min(limits.max_line);
                buf.resize(grown.max(buf.len() + 1), 0);
            } else {
                skipping = true;
                push_window(&mut passed, &buf[..filled]);
                buf_offset += filled as u64;
                filled = 0;
            }
        }
        let room = buf.len() - filled;
        let want = usize::try_from(remaining).map_or(room, |r| r.min(room));
        let n = file.read(&mut buf[filled..filled + want])?;
        if n == 0 {
            // The file shrank under us; what was read is all there is.
            break;
        }
        feed.bytes_read += n as u64;
        remaining -= n as u64;
        let mut search_from = filled;
        filled += n;

        let mut line_start = 0;
        while let Some(i) = memchr::memchr(b'\n', &buf[search_from..filled]) {
            let line_end = search_from + i;
            if skipping {
                skipping = false;
            } else {
                stopped = on_line(feed.lines, &buf[line_start..line_end]).is_break();
            }
            feed.lines += 1;
            line_start = line_end + 1;
            search_from = line_start;
            if stopped {
                break;
            }
        }
        if line_start > 0 {
            push_window(&mut passed, &buf[..line_start]);
            feed.window.clone_from(&passed);
            buf_offset += line_start as u64;
            feed.consumed = buf_offset;
            buf.copy_within(line_start..filled, 0);
            filled -= line_start;
        }
    }
    if stopped {
        // What was read past the last line passed is read again next time.
        feed.fed = feed.consumed;
        feed.bytes_read = feed.bytes_read.max(feed.consumed);
        spend(feed.bytes_read);
        return Ok(feed);
    }
    if from.include_tail && !skipping && filled > 0 {
        let _ = on_line(feed.lines, &buf[..filled]);
    }
    feed.fed = len - remaining;
    feed.skipping = skipping;
    spend(feed.bytes_read);
    push_window(&mut passed, &buf[..filled]);
    feed.end_window = passed;
    Ok(feed)
}

/// Appends `bytes` to `window`, keeping only its last [`FINGERPRINT_WINDOW`] bytes.
fn push_window(window: &mut Vec<u8>, bytes: &[u8]) {
    if bytes.len() >= FINGERPRINT_WINDOW {
        window.clear();
        window.extend_from_slice(&bytes[bytes.len() - FINGERPRINT_WINDOW..]);
    } else {
        window.extend_from_slice(bytes);
        let excess = window.len().saturating_sub(FINGERPRINT_WINDOW);
        window.drain(..excess);
    }
}

/// Which file this is, as far as the platform tells: a file replaced by another
/// (rename over it) has a new identity even when its first bytes match.
fn file_identity(meta: &Metadata) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        format!("{:x}.{:x}", meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        String::from("-")
    }
}

fn fingerprint(identity: &str, window: &[u8]) -> String {
    format!("v1:{identity}:{}", hex_prefix(window, 8))
}
