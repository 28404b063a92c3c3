//! The main agent's role name and the digest's hard size cap, shared by the digest's
//! selection and text and by the commands that show it.

/// The role name of the main agent (rules speak of "leader" too).
pub const LEADER: &str = "leader";

/// The digest is cut well below the 10,000 characters at which Claude Code spills
/// injected text to a file, whatever `max_summary_chars` says.
pub const MAX_INJECTED_DIGEST: usize = 8000;
