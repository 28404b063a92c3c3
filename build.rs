// Migrations are embedded at compile time: rebuild when they change, and record
// the newest version as a constant so the hook path's schema check needs no
// migration parsing at run time.
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=migrations");
    let mut latest = 0i64;
    for entry in std::fs::read_dir("migrations").expect("migrations/ exists") {
        let name = entry.expect("readable migrations/").file_name();
        let name = name.to_string_lossy();
        if let Some(version) = name
            .strip_prefix('V')
            .and_then(|rest| rest.split_once("__"))
            .and_then(|(v, _)| v.parse::<i64>().ok())
        {
            latest = latest.max(version);
        }
    }
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(
        Path::new(&out).join("schema_version.rs"),
        format!("/// The newest migration in migrations/.\npub const LATEST_SCHEMA_VERSION: i64 = {latest};\n"),
    )
    .expect("write schema_version.rs");
}
