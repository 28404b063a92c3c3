//! The bounds on the work of reading one command line.

/// Deepest nesting of subshells, substitutions and `bash -c` scripts that is analysed.
pub const MAX_DEPTH: usize = 64;
/// Most simple commands collected from one command line.
pub const MAX_COMMANDS: usize = 16_384;
/// Most subshells, substitutions and scripts told apart in one line (see
/// [`Parsed::frames`](super::Parsed::frames)).
pub const MAX_FRAMES: usize = 4096;
/// Most bytes scanned for one command line, counting every re-scan of an unwrapped
/// script: bounds the work on any input.
pub const MAX_SCANNED_BYTES: usize = 4 << 20;
/// Deepest nesting of quotes and `${…}` inside one word.
pub(super) const MAX_WORD_NESTING: usize = 32;
/// Most variable assignments of one command line that are followed.
pub(super) const MAX_ASSIGNMENTS: usize = 256;
