//! The data directory (issue 20, points 5 and 12): owner-only modes for everything in it, found
//! or created, and a start that fails on a directory the server may not write says which path
//! and that it is a permission problem.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use aeroplane_protocol::server::ServerMessage;

use crate::child::server_binary;
use crate::support::{StoreKind, spawn_app_on};

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
}

/// Every directory and file under `dir` (itself included) with a mode other than owner-only.
fn readable_by_others(dir: &Path) -> Vec<(String, u32)> {
    let mut found = Vec::new();
    let meta = fs::symlink_metadata(dir).unwrap();
    let wanted = if meta.is_dir() { 0o700 } else { 0o600 };
    if mode(dir) != wanted {
        found.push((dir.display().to_string(), mode(dir)));
    }
    if meta.is_dir() {
        for entry in fs::read_dir(dir).unwrap().flatten() {
            found.extend(readable_by_others(&entry.path()));
        }
    }
    found
}

#[tokio::test]
async fn everything_in_the_data_directory_is_owner_only_found_or_created() {
    let app = spawn_app_on(StoreKind::Sqlite, |config| {
        // What an older server left, world-readable: a journal directory with a stray file.
        let rooms = config.data_dir.join("rooms");
        fs::create_dir_all(&rooms).unwrap();
        fs::write(rooms.join("notes.txt"), "left by hand").unwrap();
        for (path, mode) in [(&config.data_dir, 0o755), (&rooms, 0o755)] {
            fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
        }
        fs::set_permissions(rooms.join("notes.txt"), fs::Permissions::from_mode(0o644)).unwrap();
    })
    .await
    .expect("SQLite always runs");
    assert_eq!(readable_by_others(app.data_dir()), Vec::new(), "at start");

    // A live game's journal, and the SQLite files, are owner-only too.
    let room = app.create_room().await;
    let (mut red, _yellow) = app.start_game(&room).await;
    red.roll().await;
    red.recv_until(|m| matches!(m, ServerMessage::Rolled(_)))
        .await;
    assert!(crate::journals::journal_of(app.data_dir(), room.id).is_some());
    assert!(!crate::journals::segments(app.data_dir()).is_empty());
    assert!(
        app.data_dir()
            .join(aeroplane_store::SQLITE_FILE_NAME)
            .is_file()
    );
    assert_eq!(
        readable_by_others(app.data_dir()),
        Vec::new(),
        "while playing"
    );
}

#[test]
fn a_data_directory_the_server_may_not_write_fails_the_start_naming_the_path_and_permission() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    fs::create_dir_all(&data).unwrap();
    fs::set_permissions(root.path(), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(&data, fs::Permissions::from_mode(0o755)).unwrap();
    // As root, modes do not stop anyone: run the server as `nobody` instead, for whom the
    // directory (root's, 0755) is read-only.
    let as_root = fs::metadata("/proc/self").map(|meta| {
        use std::os::unix::fs::MetadataExt;
        meta.uid() == 0
    });
    let mut command = if as_root.unwrap_or(false) {
        let mut command = Command::new("setpriv");
        command
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(server_binary());
        command
    } else {
        fs::set_permissions(&data, fs::Permissions::from_mode(0o500)).unwrap();
        Command::new(server_binary())
    };
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy().into_owned();
        if name.starts_with("AEROPLANE_") || name == "DATABASE_URL" {
            command.env_remove(name);
        }
    }
    let output = command
        .args(["--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&data)
        .output()
        .expect("the server runs");
    fs::set_permissions(&data, fs::Permissions::from_mode(0o700)).unwrap();
    assert!(!output.status.success(), "the server must not start");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last = stderr.lines().last().unwrap_or_default();
    assert!(
        last.contains(&data.display().to_string()) && last.contains("permission denied"),
        "the error names the path and the permission problem: {last}"
    );
    assert!(!last.contains("code: 14"), "{last}");
}
