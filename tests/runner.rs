//! nagger's integration tests: one binary, each test runs the real `nagger` in a
//! temporary project with a cleared environment.

mod common;
#[macro_use]
mod real;

mod redact;

mod test_bad_input;
mod test_claim;
mod test_cli;
mod test_compress;
mod test_concurrency;
mod test_context;
mod test_conventions;
mod test_demo;
mod test_doctor;
mod test_faults;
mod test_guard_corpus;
mod test_hostile_files;
mod test_identify;
mod test_incremental;
mod test_install;
mod test_listings;
mod test_real_client;
mod test_real_recovery;
mod test_recovery;
mod test_rules;
mod test_safety;
mod test_stats;
mod test_trust;
mod test_ui;
