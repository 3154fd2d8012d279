//! The binary's command line: `--help`, a wrong value, and `probe`. (This test also makes
//! `cargo test` build the binary that the integration suite runs as a child process.)

use std::process::Command;

fn server() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_aeroplane-server"));
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy().into_owned();
        if name.starts_with("AEROPLANE_") || name == "DATABASE_URL" {
            command.env_remove(name);
        }
    }
    command
}

#[test]
fn help_shows_every_setting_with_its_default_and_variable() {
    let output = server().arg("--help").output().unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    for expected in [
        "--listen",
        "AEROPLANE_LISTEN",
        "127.0.0.1:8080",
        "--database-url",
        "DATABASE_URL",
        "--data-dir",
        "AEROPLANE_DATA_DIR",
        "./data",
        "--grace-ms",
        "--shutdown-deadline-ms",
        "--journal-sync-ms",
        "--max-frame-bytes",
        "--outgoing-queue",
        "--room-inbox",
        "--log-format",
        "AEROPLANE_LOG_FORMAT",
        "pretty",
        "json",
        "--log-level",
        "AEROPLANE_LOG_LEVEL",
        "info",
        "--allowed-origins",
        "AEROPLANE_ALLOWED_ORIGINS",
        "probe",
    ] {
        assert!(
            help.contains(expected),
            "--help lacks `{expected}`:\n{help}"
        );
    }
}

#[test]
fn a_wrong_value_stops_start_up_with_a_message_naming_the_setting() {
    let output = server().args(["--log-format", "xml"]).output().unwrap();
    assert!(!output.status.success());
    let error = String::from_utf8(output.stderr).unwrap();
    assert!(error.contains("--log-format"), "{error}");

    let output = server().env("AEROPLANE_GRACE_MS", "soon").output().unwrap();
    assert!(!output.status.success());
    let error = String::from_utf8(output.stderr).unwrap();
    assert!(error.contains("--grace-ms"), "{error}");
}

#[test]
fn probe_fails_for_a_closed_port() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let output = server()
        .args(["probe", &format!("http://127.0.0.1:{port}/readyz")])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
}
