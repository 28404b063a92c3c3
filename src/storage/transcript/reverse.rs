//! Reading a transcript backwards, line by line from its end.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::Path;

use super::budget::{Limits, REVERSE, run_budget_left, spend};
use crate::base::files::open_regular;

/// A file's lines from the last to the first, read backwards in chunks, so a question
/// about the end of a 100 MB transcript costs a few reads. An unterminated last line is
/// handed out like the others (a cut-short one then fails to parse). A line longer than
/// the limit (32 MiB) is skipped rather than held in memory.
// Four independent flags of where the backward read stands, not a configuration: a
// state enum would have to spell out their combinations.
#[allow(clippy::struct_excessive_bools)]
pub struct ReverseLines {
    file: File,
    /// File offset of `buf[start]`: everything before it is unread.
    pos: u64,
    buf: Vec<u8>,
    /// The bytes not handed out yet are `buf[start..end]`, ending where a line ends.
    start: usize,
    end: usize,
    /// How many bytes at the end of `buf[start..end]` are known to hold no `\n`.
    searched: usize,
    limits: Limits,
    /// Dropping the bytes of an over-long line until its start.
    skipping: bool,
    started: bool,
    done: bool,
    /// The read budget ran out before the start of the file.
    exhausted: bool,
    bytes_read: u64,
    /// Over-long lines dropped so far.
    skipped: u64,
}

impl ReverseLines {
    pub fn open(path: &Path) -> io::Result<Self> {
        Self::new(open_regular(path)?)
    }

    pub fn new(file: File) -> io::Result<Self> {
        Self::with_limits(file, REVERSE)
    }

    pub(super) fn with_limits(file: File, limits: Limits) -> io::Result<Self> {
        let pos = file.metadata()?.len();
        let chunk = limits.chunk.max(1);
        // No bigger than the file: a short transcript costs no zeroed chunk.
        let first = usize::try_from(pos).map_or(chunk, |len| len.clamp(1, chunk));
        Ok(ReverseLines {
            file,
            pos,
            buf: vec![0; first],
            start: first,
            end: first,
            searched: 0,
            limits: Limits { chunk, ..limits },
            skipping: false,
            started: false,
            done: false,
            exhausted: false,
            bytes_read: 0,
            skipped: 0,
        })
    }

    /// Bytes read from the file so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Whether the lines stopped because the read budget ran out, not at the start of
    /// the file: an answer not found may still be in the file.
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// The line before the one returned last (without its `\n`), or `None` at the
    /// start of the file.
    pub fn next_line(&mut self) -> io::Result<Option<&[u8]>> {
        Ok(self.next_range()?.map(|(start, end)| &self.buf[start..end]))
    }

    /// Where the next line stands in `buf`.
    fn next_range(&mut self) -> io::Result<Option<(usize, usize)>> {
        if !self.started {
            self.started = true;
            if self.pos == 0 {
                self.done = true;
                return Ok(None);
            }
            self.fill()?;
            if self.buf[self.end - 1] == b'\n' {
                self.end -= 1;
            }
        }
        loop {
            let unsearched = self.end - self.searched;
            if let Some(i) = memchr::memrchr(b'\n', &self.buf[self.start..unsearched]) {
                let newline = self.start + i;
                let line_end = self.end;
                self.end = newline;
                self.searched = 0;
                if self.skipping {
                    // Only the first bytes of the over-long line were left; drop them.
                    self.skipping = false;
                    self.skipped += 1;
                    continue;
                }
                return Ok(Some((newline + 1, line_end)));
            }
            if self.pos > 0 && (self.bytes_read >= self.limits.budget || run_budget_left() == 0) {
                // The first bytes kept are the end of a line whose start is unread.
                self.exhausted = true;
                self.done = true;
                return Ok(None);
            }
            if self.pos == 0 {
                if self.done || self.skipping {
                    self.skipped += u64::from(self.skipping && !self.done);
                    self.done = true;
                    return Ok(None);
                }
                self.done = true;
                let (start, end) = (self.start, self.end);
                self.end = start;
                self.searched = 0;
                return Ok(Some((start, end)));
            }
            if self.skipping || self.end - self.start > self.limits.max_line {
                self.skipping = true;
                self.start = self.buf.len();
                self.end = self.buf.len();
            }
            self.searched = self.end - self.start;
            self.fill()?;
        }
    }

    /// [`Self::try_for_each`], with `None` handed to `f` where a line too long to keep
    /// stood.
    pub fn try_for_each_marked<B>(
        &mut self,
        mut f: impl FnMut(Option<&[u8]>) -> ControlFlow<B>,
    ) -> io::Result<Option<B>> {
        loop {
            let before = self.skipped;
            let next = self.next_range()?;
            if self.skipped != before
                && let ControlFlow::Break(value) = f(None)
            {
                return Ok(Some(value));
            }
            let Some((start, end)) = next else {
                return Ok(None);
            };
            if let ControlFlow::Break(value) = f(Some(&self.buf[start..end])) {
                return Ok(Some(value));
            }
        }
    }

    /// Calls `f` on each line, last first, until it breaks; returns the break value.
    pub fn try_for_each<B>(
        &mut self,
        mut f: impl FnMut(&[u8]) -> ControlFlow<B>,
    ) -> io::Result<Option<B>> {
        while let Some(line) = self.next_line()? {
            if let ControlFlow::Break(value) = f(line) {
                return Ok(Some(value));
            }
        }
        Ok(None)
    }

    /// Reads the chunk before `pos` in front of the unread bytes.
    fn fill(&mut self) -> io::Result<()> {
        let n =
            usize::try_from(self.pos).map_or(self.limits.chunk, |pos| pos.min(self.limits.chunk));
        if self.start < n {
            let live = self.end - self.start;
            if live + n > self.buf.len() {
                let mut grown = vec![0; (self.buf.len() * 2).max(live + n)];
                let at = grown.len() - live;
                grown[at..].copy_from_slice(&self.buf[self.start..self.end]);
                self.buf = grown;
            } else {
                let at = self.buf.len() - live;
                self.buf.copy_within(self.start..self.end, at);
            }
            self.end = self.buf.len();
            self.start = self.end - live;
        }
        self.pos -= n as u64;
        self.file.seek(SeekFrom::Start(self.pos))?;
        self.file
            .read_exact(&mut self.buf[self.start - n..self.start])?;
        self.start -= n;
        self.bytes_read += n as u64;
        spend(n as u64);
        Ok(())
    }
}
