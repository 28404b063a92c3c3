//! Doctor's check of the trusted safety settings: each weakening of the config that waits
//! for the user's `nagger trust`, and a snapshot that cannot be read. Nothing when all
//! is well.

use super::check::{Check, Checks, Status};
use crate::domain::trust::{SnapshotState, TrustReport};

pub fn check_trust(report: &TrustReport) -> Vec<Check> {
    let mut checks = Checks::default();
    let shown = report.path.display();
    if let SnapshotState::Unreadable(why) = &report.snapshot {
        checks.push(
            "trust",
            Status::Warn,
            format!(
                "{shown} cannot be read ({why}): the built-in defaults are trusted; `nagger trust` rewrites it"
            ),
        );
    }
    for w in &report.held_back {
        checks.push(
            "trust",
            Status::Warn,
            format!(
                "the config weakens safety ({w}) and waits for your confirmation: run `nagger trust` in your terminal"
            ),
        );
    }
    checks.0
}
