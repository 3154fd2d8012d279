//! Forcing the data directory's file system to disk, in one place for the two parts of the
//! server that do it: the outbox's sync rounds and the room journals' periodic sync.
//!
//! On Linux one `syncfs(2)` writes every dirty page of a file system at once, which costs far
//! less than forcing each file (and its directory) alone when many were written. Elsewhere the
//! callers force their files one by one.

use std::fs::File;
use std::io;

/// Forces everything written to the file system that holds `directory` (an open handle on
/// any file or directory of it) to disk: `syncfs(2)`.
#[cfg(target_os = "linux")]
pub fn sync_file_system(directory: &File) -> io::Result<()> {
    rustix::fs::syncfs(directory).map_err(io::Error::from)
}
