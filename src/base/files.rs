//! Opening a file nagger did not write (a transcript, an agent's meta file, the
//! configuration) without blocking: a FIFO or a device in its place never hangs a hook.
//! The same for the state database's own files: what stands where SQLite would open
//! one is checked to be a regular file first ([`regular_or_absent`]).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Opens a file for reading without blocking on FIFOs, devices or sockets, and refuses
/// anything but a regular file.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc_nonblock())
        .open(path)?;
    only_regular(file, path)
}

/// Opens (creating it if needed) a file to write or lock, without blocking on a FIFO
/// (with no reader, the open fails at once) or a device, and refuses anything but a
/// regular file. Nothing is truncated.
pub fn create_regular(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags(libc_nonblock())
        .open(path)?;
    only_regular(file, path)
}

fn only_regular(file: File, path: &Path) -> io::Result<File> {
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(path, kind_of(meta.file_type())));
    }
    Ok(file)
}

/// Checks, without opening it, that what is at `path` is a regular file or a symlink
/// to one, or that nothing is there (a dangling symlink counts as nothing). A FIFO, a
/// device, a socket or a directory, or a symlink to one, is an `InvalidInput` error
/// that names the file and what it is.
pub fn regular_or_absent(path: &Path) -> io::Result<()> {
    regular_len(path).map(|_| ())
}

/// As [`regular_or_absent`], with the regular file's length (`None` when nothing is
/// there).
pub fn regular_len(path: &Path) -> io::Result<Option<u64>> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(Some(meta.len()));
    }
    if !kind.is_symlink() {
        return Err(not_regular(path, kind_of(kind)));
    }
    match std::fs::metadata(path) {
        Ok(target) if target.is_file() => Ok(Some(target.len())),
        Ok(target) => Err(not_regular(
            path,
            &format!("symlink to a {}", kind_of(target.file_type())),
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// How many names the file at `path` (followed if a link) has, when it has more than
/// one: a hard link shares its contents with a file elsewhere.
pub fn other_names(path: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt as _;
    let links = std::fs::metadata(path).ok()?.nlink();
    (links > 1).then_some(links)
}

fn not_regular(path: &Path, kind: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} is a {kind}, not a regular file", path.display()),
    )
}

/// What a file that is not a regular one is, in words.
fn kind_of(kind: std::fs::FileType) -> &'static str {
    if kind.is_dir() {
        "directory"
    } else if kind.is_fifo() {
        "FIFO"
    } else if kind.is_socket() {
        "socket"
    } else if kind.is_char_device() {
        "character device"
    } else if kind.is_block_device() {
        "block device"
    } else if kind.is_symlink() {
        "symlink"
    } else if kind.is_file() {
        "regular file"
    } else {
        "special file"
    }
}

#[cfg(target_os = "linux")]
fn libc_nonblock() -> i32 {
    0o4000 // O_NONBLOCK
}

#[cfg(not(target_os = "linux"))]
fn libc_nonblock() -> i32 {
    0x0004 // O_NONBLOCK on the BSDs and macOS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mkfifo(path: &Path) {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }

    #[test]
    fn only_regular_files_or_nothing_pass_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str| dir.path().join(name);
        std::fs::write(at("file"), b"x").unwrap();
        assert!(regular_or_absent(&at("file")).is_ok());
        assert!(regular_or_absent(&at("missing")).is_ok());
        std::os::unix::fs::symlink(at("file"), at("to-file")).unwrap();
        assert!(regular_or_absent(&at("to-file")).is_ok());
        std::os::unix::fs::symlink(at("nowhere"), at("dangling")).unwrap();
        assert!(regular_or_absent(&at("dangling")).is_ok());

        mkfifo(&at("fifo"));
        std::fs::create_dir(at("dir")).unwrap();
        std::os::unix::fs::symlink(at("fifo"), at("to-fifo")).unwrap();
        std::os::unix::fs::symlink("/dev/null", at("to-null")).unwrap();
        let _socket = std::os::unix::net::UnixListener::bind(at("sock")).unwrap();
        for (name, kind) in [
            ("fifo", "a FIFO"),
            ("dir", "a directory"),
            ("to-fifo", "a symlink to a FIFO"),
            ("to-null", "a symlink to a character device"),
            ("sock", "a socket"),
        ] {
            let e = regular_or_absent(&at(name)).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{name}");
            assert!(
                e.to_string()
                    .ends_with(&format!("{name} is {kind}, not a regular file")),
                "{e}"
            );
        }
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        assert!(open_regular(&fifo).is_err());
        assert!(create_regular(&fifo).is_err());
        let file = dir.path().join("lock");
        create_regular(&file).unwrap();
        assert!(file.is_file());
    }
}
