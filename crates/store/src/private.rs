//! The data directory is private: directories `0700`, files `0600`, owner only.
//!
//! It holds what nobody else may read: the journals of live games carry the seat tokens and the
//! still secret server seed, the outbox and the SQLite file every player's name and game. So
//! everything the server creates there is created owner-only ([`create_dir_all`],
//! [`create_file`]), and at start [`prepare_data_dir`] takes back what an older version or an
//! operator left readable by others. (Unix only: elsewhere the modes are left to the system.)
//!
//! A directory the server cannot write (it belongs to another user, as after a `docker run` with
//! a volume created by root) fails the start with an error that names the path and says it is a
//! permission problem, instead of SQLite's `(code: 14) unable to open database file`.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

#[cfg(unix)]
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};

/// The mode of every directory under the data directory.
pub const DIR_MODE: u32 = 0o700;
/// The mode of every file under the data directory.
pub const FILE_MODE: u32 = 0o600;

/// Why the data directory cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DataDirError {
    /// The server may not create, write or change something in the data directory.
    #[error(
        "permission denied on {path} ({what}){owner}: the data directory must belong to the \
         user the server runs as (e.g. `chown -R <uid> <dir>`), or be writable by it"
    )]
    Permission {
        /// The path concerned.
        path: PathBuf,
        /// What the server was doing.
        what: &'static str,
        /// ", owned by uid N" when known.
        owner: String,
    },
    /// Any other failure of the file system.
    #[error("{path} ({what}): {source}")]
    Io {
        /// The path concerned.
        path: PathBuf,
        /// What the server was doing.
        what: &'static str,
        /// What the operating system said.
        source: io::Error,
    },
}

impl DataDirError {
    fn new(path: &Path, what: &'static str, source: io::Error) -> DataDirError {
        if source.kind() == io::ErrorKind::PermissionDenied {
            DataDirError::Permission {
                path: path.to_owned(),
                what,
                owner: owner_of(path),
            }
        } else {
            DataDirError::Io {
                path: path.to_owned(),
                what,
                source,
            }
        }
    }
}

/// ", owned by uid N" for the nearest existing ancestor of `path`, or nothing.
fn owner_of(path: &Path) -> String {
    #[cfg(unix)]
    if let Some(meta) = path.ancestors().find_map(|path| fs::metadata(path).ok()) {
        return format!(", owned by uid {}", meta.uid());
    }
    let _ = path;
    String::new()
}

/// Creates `dir` and its missing parents with owner-only modes.
pub fn create_dir_all(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    builder.mode(DIR_MODE);
    builder.create(dir)
}

/// Creates (or truncates) the file at `path` for writing (and reading: the journal log maps its
/// segments into memory), owner-only.
pub fn create_file(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(true);
    #[cfg(unix)]
    options.mode(FILE_MODE);
    options.open(path)
}

/// Makes the data directory ready: creates it (owner-only) if missing, checks that the server
/// may write in it, and makes every directory in it `0700` and every file `0600`. Symbolic links
/// are left alone.
pub fn prepare_data_dir(dir: &Path) -> Result<(), DataDirError> {
    create_dir_all(dir).map_err(|error| DataDirError::new(dir, "creating it", error))?;
    let probe = dir.join(".aeroplane-write-test");
    create_file(&probe)
        .and_then(|_| fs::remove_file(&probe))
        .map_err(|error| DataDirError::new(dir, "writing in it", error))?;
    restrict(dir)
}

/// Sets owner-only modes on `path` and, for a directory, on everything in it.
fn restrict(path: &Path) -> Result<(), DataDirError> {
    let meta = fs::symlink_metadata(path)
        .map_err(|error| DataDirError::new(path, "reading its mode", error))?;
    let mode = if meta.is_dir() {
        DIR_MODE
    } else if meta.is_file() {
        FILE_MODE
    } else {
        return Ok(());
    };
    set_mode(path, &meta, mode)?;
    if meta.is_dir() {
        let entries =
            fs::read_dir(path).map_err(|error| DataDirError::new(path, "listing it", error))?;
        for entry in entries {
            let entry = entry.map_err(|error| DataDirError::new(path, "listing it", error))?;
            restrict(&entry.path())?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn set_mode(path: &Path, meta: &fs::Metadata, mode: u32) -> Result<(), DataDirError> {
    if meta.permissions().mode() & 0o7777 == mode {
        return Ok(());
    }
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(|error| DataDirError::new(path, "making it owner-only", error))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _meta: &fs::Metadata, _mode: u32) -> Result<(), DataDirError> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn what_was_left_readable_is_made_owner_only() {
        let root = tempfile::tempdir().unwrap();
        let data = root.path().join("data");
        fs::create_dir_all(data.join("rooms")).unwrap();
        fs::write(data.join("rooms").join("a.jsonl"), "{}").unwrap();
        fs::set_permissions(&data, fs::Permissions::from_mode(0o755)).unwrap();
        fs::set_permissions(data.join("rooms"), fs::Permissions::from_mode(0o777)).unwrap();
        fs::set_permissions(
            data.join("rooms").join("a.jsonl"),
            fs::Permissions::from_mode(0o644),
        )
        .unwrap();
        prepare_data_dir(&data).unwrap();
        assert_eq!(mode(&data), DIR_MODE);
        assert_eq!(mode(&data.join("rooms")), DIR_MODE);
        assert_eq!(mode(&data.join("rooms").join("a.jsonl")), FILE_MODE);
        assert!(!data.join(".aeroplane-write-test").exists());
    }

    #[test]
    fn new_directories_and_files_are_owner_only() {
        let root = tempfile::tempdir().unwrap();
        let nested = root.path().join("a").join("b");
        create_dir_all(&nested).unwrap();
        create_file(&nested.join("f")).unwrap();
        assert_eq!(mode(&root.path().join("a")), DIR_MODE);
        assert_eq!(mode(&nested), DIR_MODE);
        assert_eq!(mode(&nested.join("f")), FILE_MODE);
    }
}
