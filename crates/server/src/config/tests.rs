//! The settings' defaults, parsing and refusals.

use super::*;

#[test]
fn the_documented_defaults_hold() {
    let config = Config::try_parse_from(["aeroplane-server"]).unwrap();
    assert_eq!(config.grace(), Duration::from_secs(60));
    assert_eq!(config.max_frame_bytes, 4096);
}

#[test]
fn flags_override_defaults() {
    let config = Config::try_parse_from([
        "aeroplane-server",
        "--listen",
        "0.0.0.0:9000",
        "--grace-ms",
        "5",
    ])
    .unwrap();
    assert_eq!(config.listen.port(), 9000);
    assert_eq!(config.grace_ms, 5);
}

#[test]
fn a_wrong_value_names_its_setting() {
    for (flag, value) in [
        ("--listen", "nowhere"),
        ("--grace-ms", "soon"),
        ("--log-format", "xml"),
        ("--log-level", "loud=="),
        ("--database-url", "mysql://db"),
        ("--allowed-origins", "example.org"),
        ("--journal-sync-ms", "0"),
        ("--ipv6-prefix-len", "129"),
        ("--node-id", "a node"),
        ("--lease-ms", "10"),
        ("--nats-url", "nats://[::1"),
        ("--nats-replicas", "0"),
        ("--nats-replicas", "6"),
    ] {
        let error = Config::try_parse_from(["aeroplane-server", flag, value])
            .expect_err(flag)
            .to_string();
        assert!(error.contains(flag), "{flag}: {error}");
    }
}

#[test]
fn nats_url_takes_a_comma_separated_list_of_servers() {
    let config = Config::try_parse_from([
        "aeroplane-server",
        "--nats-url",
        "nats://10.0.0.1:4222, nats://10.0.0.2:4223,10.0.0.3",
    ])
    .unwrap();
    let urls = config.nats_url().expect("servers");
    let ports: Vec<u16> = urls.servers().iter().map(|server| server.port()).collect();
    assert_eq!(ports, [4222, 4223, 4222]);
    assert_eq!(config.nats_replicas(), 1, "one replica by default");
    let empty = Config::try_parse_from(["aeroplane-server", "--nats-url", ""]).unwrap();
    assert!(empty.nats_url().is_none(), "an empty list is unset");
    let three = Config::try_parse_from(["aeroplane-server", "--nats-replicas", "3"]).unwrap();
    assert_eq!(three.nats_replicas(), 3);
}

#[test]
fn origins_are_a_comma_separated_list() {
    let config = Config::try_parse_from([
        "aeroplane-server",
        "--allowed-origins",
        "https://play.example.org,http://localhost:5173/",
    ])
    .unwrap();
    assert!(config.origin_allowed("https://play.example.org", None));
    assert!(config.origin_allowed("http://localhost:5173", Some("other:1")));
    assert!(!config.origin_allowed("https://evil.example", None));
}

#[test]
fn by_default_only_the_same_origin_is_allowed() {
    let config = Config::try_parse_from(["aeroplane-server"]).unwrap();
    let host = Some("play.example.org:8080");
    assert!(config.origin_allowed("http://play.example.org:8080", host));
    assert!(config.origin_allowed("https://PLAY.example.org:8080/", host));
    assert!(!config.origin_allowed("https://evil.example", host));
    assert!(!config.origin_allowed("https://play.example.org", host));
    assert!(!config.origin_allowed("null", host));
    assert!(!config.origin_allowed("http://play.example.org:8080", None));
    let any = Config::try_parse_from(["aeroplane-server", "--allowed-origins", "*"]).unwrap();
    assert!(any.origin_allowed("https://anything.example", host));
}

#[test]
fn probe_is_a_subcommand() {
    let config =
        Config::try_parse_from(["aeroplane-server", "probe", "http://127.0.0.1:1/readyz"]).unwrap();
    assert!(matches!(config.command, Some(Command::Probe { .. })));
}
