//! Opening a file nagger did not write (a transcript, an agent's meta file, the
//! configuration) without blocking: a FIFO or a device in its place never hangs a hook.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Opens a file for reading without blocking on FIFOs, devices or sockets, and refuses
/// anything but a regular file.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc_nonblock())
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok(file)
}

#[cfg(target_os = "linux")]
fn libc_nonblock() -> i32 {
    0o4000 // O_NONBLOCK
}

#[cfg(not(target_os = "linux"))]
fn libc_nonblock() -> i32 {
    0x0004 // O_NONBLOCK on the BSDs and macOS
}
