//! Which Claude Code the user runs: `claude --version` of the `claude` on PATH, so that
//! `install` registers only the events that client knows.

use crate::base::event::ClientVersion;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long `claude --version` may take.
const VERSION_LIMIT: Duration = Duration::from_secs(10);

/// The `claude` on `path_var` (a PATH value).
pub fn find_claude(path_var: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path_var?)
        .map(|dir| dir.join("claude"))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The version `claude --version` prints, within [`VERSION_LIMIT`]; None when it cannot
/// run, takes too long or prints no version.
pub fn version_of(claude: &Path) -> Option<ClientVersion> {
    let mut child = Command::new(claude)
        .arg("--version")
        .env("DISABLE_AUTOUPDATER", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < VERSION_LIMIT => {
                std::thread::sleep(Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take()?, &mut out).ok()?;
    ClientVersion::parse(&out)
}

/// The version of the `claude` on `path_var`, and where it is.
pub fn detect(path_var: Option<&std::ffi::OsStr>) -> Option<(PathBuf, Option<ClientVersion>)> {
    let claude = find_claude(path_var)?;
    let version = version_of(&claude);
    Some((claude, version))
}
