//! Tamper-evident safety settings: a change to the config that weakens the guard or the
//! deny, block and ask rules takes effect only once the user confirms it with `nagger trust`;
//! until then the settings last trusted (`.claude-nagger/trusted.json`, else the built-in
//! defaults) stay in force. Strengthening takes effect at once and is trusted from then on.

pub mod confirm;
mod projection;
mod settle;
mod snapshot;
#[cfg(test)]
mod tests;

pub use projection::{Projection, Weakening};
pub use settle::{Ratchet, SnapshotState, TrustReport, apply, settle, trusted};
pub use snapshot::{
    SNAPSHOT_FILE, copy_path, copy_path_under, read_digest, snapshot_path, write, write_trusted,
};
