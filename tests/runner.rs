//! nagger's integration tests: one binary, each test runs the real `nagger` in a
//! temporary project with a cleared environment.

mod common;
#[macro_use]
mod real;

mod redact;

mod test_architecture;
mod test_bad_input;
mod test_claim;
mod test_cli;
mod test_compress;
mod test_concurrency;
mod test_confirm;
mod test_context;
mod test_conventions;
mod test_deadline;
mod test_demo;
mod test_doctor;
mod test_faults;
mod test_foreign_db;
mod test_git_tracked;
mod test_guard_corpus;
mod test_guard_scripts;
mod test_hostile_files;
mod test_identify;
mod test_import;
mod test_incremental;
mod test_install;
mod test_lenient_input;
mod test_listings;
mod test_real_client;
mod test_real_recovery;
mod test_recovery;
mod test_rules;
mod test_safety;
mod test_skills;
mod test_stats;
mod test_trust;
mod test_ui;
mod test_ui_limits;

/// Every test file and folder in `tests/` is a module of this binary: a file left out
/// would compile nowhere and its tests would silently never run.
#[test]
fn every_test_file_is_included() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let runner = std::fs::read_to_string(dir.join("runner.rs")).unwrap();
    let declared: std::collections::BTreeSet<String> = runner
        .lines()
        .filter_map(|l| l.trim().strip_prefix("mod "))
        .filter_map(|rest| rest.strip_suffix(';'))
        .map(str::to_string)
        .collect();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let module = if path.is_dir() {
            // A folder is a module when it holds a mod.rs (fixtures and snapshots do not).
            if !path.join("mod.rs").exists() {
                continue;
            }
            name
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if stem == "runner" {
                continue;
            }
            stem.to_string()
        } else {
            continue;
        };
        if !declared.contains(&module) {
            missing.push(module);
        }
    }
    assert!(
        missing.is_empty(),
        "tests/runner.rs does not include: {missing:?} (add `mod <name>;`)"
    );
}
