//! Snapshot support: what varies from run to run in a command's output (the temporary
//! project's path, the binary's folder, file sizes, the list of migrations) replaced by
//! fixed names, so a snapshot holds only what nagger decides.

use crate::common::{Project, bin_dir};

/// `text` with the project's and the binary's folders as `[PROJECT]` and `[BIN]`, sizes
/// as `[SIZE]` and the latest schema's version and migrations as `v[LATEST]` and `[MIGRATIONS]`.
pub fn redact(text: &str, p: &Project) -> String {
    let mut text = text.to_string();
    for (path, name) in [(p.root.as_path(), "[PROJECT]"), (bin_dir(), "[BIN]")] {
        if let Ok(real) = path.canonicalize() {
            text = text.replace(&real.display().to_string(), name);
        }
        text = text.replace(&path.display().to_string(), name);
    }
    let sizes = regex::Regex::new(r"\b\d+(\.\d+)? (B|KiB|MiB|GiB)\b").expect("regex");
    let text = sizes.replace_all(&text, "[SIZE]");
    let schema = regex::Regex::new(r"v\d+ \(latest\): .*").expect("regex");
    schema
        .replace_all(&text, "v[LATEST] (latest): [MIGRATIONS]")
        .into_owned()
}

#[test]
fn redaction_keeps_what_nagger_decides() {
    let p = Project::new();
    let text = format!(
        "{}/.claude-nagger/state.db, 4.0 KiB (wal 0 B)\nschema v3 (latest): V1__a, V2__b\nrun {}/nagger",
        p.root.display(),
        bin_dir().display()
    );
    assert_eq!(
        redact(&text, &p),
        "[PROJECT]/.claude-nagger/state.db, [SIZE] (wal [SIZE])\nschema v[LATEST] (latest): [MIGRATIONS]\nrun [BIN]/nagger"
    );
}
