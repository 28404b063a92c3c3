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
                "{shown} cannot be read ({why}): nagger writes it whole, so it was changed behind nagger's back; the built-in defaults (and the copy of your last confirmation) stay in force, and every tool call the guard does not refuse is asked about until you run `nagger trust` in your terminal, which rewrites it"
            ),
        );
    }
    if report.copy.is_none() && !report.copy_keeps.is_empty() {
        let keeps: Vec<String> = report.copy_keeps.iter().map(ToString::to_string).collect();
        checks.push(
            "trust",
            Status::Warn,
            format!(
                "{shown} gives up built-in safety ({}) and nagger keeps no copy of a confirmation of it (the project moved, or another home): the built-in defaults stay in force until you run `nagger trust` in your terminal",
                keeps.join("; ")
            ),
        );
    }
    if let Some(copy) = &report.copy {
        let copy = copy.display();
        if report.snapshot == SnapshotState::Missing {
            checks.push(
                "trust",
                Status::Warn,
                format!(
                    "{shown} is missing: nagger keeps the settings you last confirmed (its copy at {copy}) and the built-in defaults in force; rules added since without `nagger trust` are not in that copy, so every tool call the guard does not refuse is asked about until you run `nagger trust` in your terminal, which rewrites it"
                ),
            );
        } else if !report.copy_keeps.is_empty() {
            let keeps: Vec<String> = report.copy_keeps.iter().map(ToString::to_string).collect();
            checks.push(
                "trust",
                Status::Warn,
                format!(
                    "{shown} is weaker than the copy nagger keeps at {copy} ({}): it was changed behind nagger's back, and the settings last trusted stay in force; `nagger trust` in your terminal rewrites it",
                    keeps.join("; ")
                ),
            );
        }
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
