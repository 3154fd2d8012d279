//! The deployment files, checked without a Docker engine: `docker-compose.yml` parses and has
//! what an operator needs (the single-node default and the `cluster` profile), and it and the `Dockerfile` reference only settings, files and
//! commands that exist. (`.ci/docker-steps` runs the Dockerfile's build and run steps outside
//! Docker.) When a `docker` client with the compose plugin is installed, `docker compose
//! config` validates the file as well.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_yaml_ng::Value;

/// The build command of the Dockerfile, which `.ci/docker-steps` runs too.
const BUILD: &str = "cargo build --release --locked -p aeroplane-server --bin aeroplane-server";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|error| panic!("{path}: {error}"))
}

/// The compose file with its `<<: *anchor` merges applied, as `docker compose` reads it.
fn compose() -> Value {
    let mut compose: Value =
        serde_yaml_ng::from_str(&read("docker-compose.yml")).expect("docker-compose.yml is YAML");
    compose.apply_merge().expect("the merge keys resolve");
    compose
}

/// The names of the services whose name starts with `prefix`, in order.
fn services_named(compose: &Value, prefix: &str) -> Vec<String> {
    get(compose, "services")
        .as_mapping()
        .expect("services is a mapping")
        .keys()
        .filter_map(Value::as_str)
        .filter(|name| name.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

/// Whether service `name` is only in profile `profile`.
fn only_in_profile(compose: &Value, name: &str, profile: &str) -> bool {
    get(compose, &format!("services.{name}"))
        .get("profiles")
        .is_some_and(|profiles| text(profiles) == profile)
}

fn get<'a>(value: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(value, |value, key| {
        value
            .get(key)
            .unwrap_or_else(|| panic!("docker-compose.yml lacks `{path}` (at `{key}`)"))
    })
}

fn text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Sequence(items) => items.iter().map(text).collect::<Vec<_>>().join(" "),
        other => serde_yaml_ng::to_string(other).unwrap(),
    }
}

/// The `--help` text of the real binary (names every setting and its variable).
fn help() -> String {
    let output = Command::new(crate::child::server_binary())
        .arg("--help")
        .output()
        .expect("the server binary runs");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_compose_file_runs_postgres_and_the_server_with_health_checks() {
    let compose = compose();
    let db = get(&compose, "services.db");
    assert!(text(get(db, "image")).starts_with("postgres:"));
    assert!(text(get(db, "healthcheck.test")).contains("pg_isready"));
    let db_volume = text(get(db, "volumes"));
    let (volume, _) = db_volume.split_once(':').expect("a named volume mount");
    get(&compose, &format!("volumes.{volume}"));

    let server = get(&compose, "services.server");
    assert_eq!(text(get(server, "build")), ".");
    assert_eq!(
        text(get(server, "depends_on.db.condition")),
        "service_healthy"
    );
    let database_url = text(get(server, "environment.DATABASE_URL"));
    assert!(
        database_url.starts_with("${DATABASE_URL"),
        "taken from the environment: {database_url}"
    );
    assert!(
        database_url.contains("postgres://") && database_url.contains("@db:5432/"),
        "{database_url}"
    );
    let healthcheck = text(get(server, "healthcheck.test"));
    assert!(
        healthcheck.contains("aeroplane-server probe") && healthcheck.contains("/healthz"),
        "the healthcheck is liveness, which holds while the database is down: {healthcheck}"
    );
    assert!(!text(get(server, "restart")).is_empty());
    let listen = text(get(server, "environment.AEROPLANE_LISTEN"));
    let port = listen.rsplit(':').next().unwrap();
    let ports = text(get(server, "ports"));
    assert!(
        ports.ends_with(&format!(":{port}")) && !ports.contains(' '),
        "{ports} publishes the listening port {port} and nothing else"
    );
    let metrics = text(get(server, "environment.AEROPLANE_METRICS_LISTEN"));
    let metrics_port = metrics.rsplit(':').next().unwrap();
    assert_ne!(metrics_port, port, "/metrics has a port of its own");
    assert!(
        !ports.contains(&format!(":{metrics_port}")),
        "the metrics port {metrics_port} is not published"
    );
    assert!(
        healthcheck.contains(&format!(":{port}/")),
        "the healthcheck probes port {port}"
    );
    let server_volume = text(get(server, "volumes"));
    let (volume, mount) = server_volume.split_once(':').unwrap();
    get(&compose, &format!("volumes.{volume}"));
    assert_eq!(
        mount,
        text(get(server, "environment.AEROPLANE_DATA_DIR")),
        "the data directory is the volume"
    );
}

#[test]
fn the_compose_cluster_profile_runs_three_nodes_on_a_three_server_nats_cluster() {
    let compose = compose();
    // `docker compose up` is unchanged: the single-node services are in no profile.
    for service in ["db", "server"] {
        let profiles = get(&compose, &format!("services.{service}")).get("profiles");
        assert!(profiles.is_none(), "{service} starts by default");
    }

    let nats = services_named(&compose, "nats-");
    assert_eq!(nats, ["nats-1", "nats-2", "nats-3"]);
    let mut volumes = Vec::new();
    for server in &nats {
        assert!(only_in_profile(&compose, server, "cluster"), "{server}");
        let service = get(&compose, &format!("services.{server}"));
        assert!(text(get(service, "image")).starts_with("nats:2."));
        let command = text(get(service, "command"));
        assert!(
            command.starts_with("-js -sd /data"),
            "JetStream on: {command}"
        );
        assert!(
            command.contains(&format!("--server_name {server}")),
            "{command}"
        );
        assert!(command.contains("--cluster_name aeroplane"), "{command}");
        for other in &nats {
            assert!(
                command.contains(&format!("nats://{other}:6222")),
                "{server} routes to {other}: {command}"
            );
        }
        assert!(text(get(service, "healthcheck.test")).contains("/healthz"));
        volumes.push(text(get(service, "volumes")));
    }

    let nodes = services_named(&compose, "node-");
    assert_eq!(nodes, ["node-1", "node-2", "node-3"]);
    let single = get(&compose, "services.server");
    let mut names = Vec::new();
    let mut ports = Vec::new();
    for node in &nodes {
        assert!(only_in_profile(&compose, node, "cluster"), "{node}");
        let service = get(&compose, &format!("services.{node}"));
        assert_eq!(text(get(service, "build")), ".");
        for dependency in std::iter::once("db").chain(nats.iter().map(String::as_str)) {
            assert_eq!(
                text(get(service, &format!("depends_on.{dependency}.condition"))),
                "service_healthy"
            );
        }
        let urls = text(get(service, "environment.AEROPLANE_NATS_URL"));
        let expected: Vec<String> = nats
            .iter()
            .map(|server| format!("nats://{server}:4222"))
            .collect();
        assert_eq!(urls, expected.join(","), "{node} knows every NATS server");
        assert_eq!(
            text(get(service, "environment.AEROPLANE_NATS_REPLICAS")),
            "3"
        );
        assert_eq!(
            text(get(service, "environment.DATABASE_URL")),
            text(get(single, "environment.DATABASE_URL")),
            "one database for every node"
        );
        let command = text(get(service, "command"));
        let name = command
            .strip_prefix("--node-id ")
            .expect("each node is named");
        names.push(name.to_owned());
        assert!(text(get(service, "healthcheck.test")).contains("/healthz"));
        assert!(!text(get(service, "stop_grace_period")).is_empty());
        volumes.push(text(get(service, "volumes")));
        ports.push(text(get(service, "ports")));
    }
    assert_eq!(names, nodes, "distinct node ids");
    for (index, value) in volumes.iter().enumerate() {
        let (volume, _) = value.split_once(':').expect("a named volume");
        get(&compose, &format!("volumes.{volume}"));
        assert!(
            !volumes[..index]
                .iter()
                .any(|other| other.starts_with(&format!("{volume}:"))),
            "each NATS server and node has a volume of its own: {volume}"
        );
    }
    for (index, port) in ports.iter().enumerate() {
        let host = port.rsplit_once(':').unwrap().0;
        assert!(
            !ports[..index].iter().any(|other| other.starts_with(host)),
            "{port}"
        );
    }
}

#[test]
fn compose_and_dockerfile_use_only_settings_the_server_has() {
    let help = help();
    let files = read("docker-compose.yml") + &read("Dockerfile");
    let mut names: Vec<&str> = files
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        // The published ports (`AEROPLANE_PORT`, `AEROPLANE_NODE_1_PORT`) are compose's own.
        .filter(|word| word.starts_with("AEROPLANE_") && !word.ends_with("_PORT"))
        .collect();
    names.push("DATABASE_URL");
    for name in names {
        assert!(
            help.contains(&format!("[env: {name}")),
            "`{name}` is no setting of aeroplane-server"
        );
    }
    // The flags the cluster nodes are started with.
    let compose = compose();
    for node in services_named(&compose, "node-") {
        let command = text(get(&compose, &format!("services.{node}.command")));
        for flag in command.split(' ').filter(|word| word.starts_with("--")) {
            assert!(
                help.contains(&format!("{flag} <")),
                "`{flag}` ({node}) is no flag of aeroplane-server"
            );
        }
    }
    for value in ["json", "probe"] {
        assert!(help.contains(value));
    }
}

#[test]
fn the_dockerfile_builds_and_runs_what_ci_checks() {
    let dockerfile = read("Dockerfile");
    assert!(
        dockerfile.contains(BUILD),
        "the Dockerfile builds with `{BUILD}`"
    );
    assert!(
        read(".ci/docker-steps").contains(BUILD),
        ".ci/docker-steps runs the same build"
    );
    assert!(
        read(".ci/run").contains(".ci/docker-steps"),
        "CI runs the Docker steps"
    );
    let stages = dockerfile
        .lines()
        .filter(|line| line.starts_with("FROM "))
        .count();
    assert!(stages >= 2, "a multi-stage build");
    let user = dockerfile
        .lines()
        .filter_map(|line| line.strip_prefix("USER "))
        .next_back()
        .expect("a USER line");
    assert!(
        user.trim() != "root" && user.trim() != "0",
        "runs as a non-root user"
    );
    let healthcheck = dockerfile
        .split("HEALTHCHECK")
        .nth(1)
        .expect("a HEALTHCHECK");
    assert!(
        healthcheck
            .lines()
            .take(2)
            .any(|line| line.contains("/healthz")),
        "the healthcheck is liveness: {healthcheck}"
    );
    // What the build copies and embeds exists; what it must not copy is ignored.
    for needed in [
        "Cargo.toml",
        "Cargo.lock",
        "crates/server",
        "migrations",
        "web/index.html",
    ] {
        assert!(root().join(needed).exists(), "{needed}");
    }
    let ignore = read(".dockerignore");
    for ignored in ["target/", ".git/"] {
        assert!(
            ignore.lines().any(|line| line.trim() == ignored),
            ".dockerignore lacks {ignored}"
        );
    }
}

#[test]
fn docker_compose_config_accepts_the_file_when_docker_is_installed() {
    let available = Command::new("docker")
        .args(["compose", "version"])
        .output()
        .is_ok_and(|output| output.status.success());
    if !available {
        eprintln!(
            "*** no `docker compose` on this machine: checked docker-compose.yml as YAML only ***"
        );
        return;
    }
    let output = Command::new("docker")
        .args(["compose", "-f"])
        .arg(Path::new(&root()).join("docker-compose.yml"))
        .args(["config", "--quiet"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_dockerfile_caches_dependencies_strips_the_binary_and_needs_no_syntax_line() {
    let dockerfile = read("Dockerfile");
    assert!(
        !dockerfile
            .lines()
            .any(|line| line.trim_start().starts_with("# syntax=")),
        "a `# syntax=` line makes BuildKit pull a frontend from Docker Hub"
    );
    let (dependencies, sources) = dockerfile
        .split_once("COPY . .")
        .expect("the sources are copied whole");
    assert!(
        dependencies.contains(BUILD) && sources.contains(BUILD),
        "the dependencies build in a layer of their own, before the sources are copied"
    );
    // Every workspace member's manifest is in the dependency layer, or `cargo build --locked`
    // fails there (and a member added later would silently break the cache).
    let mut members = vec!["bench/echo".to_owned()];
    for entry in std::fs::read_dir(root().join("crates")).unwrap() {
        let entry = entry.unwrap();
        if entry.path().join("Cargo.toml").exists() {
            members.push(format!("crates/{}", entry.file_name().to_string_lossy()));
        }
    }
    for member in &members {
        let copy = format!("COPY {member}/Cargo.toml {member}/");
        assert!(
            dependencies.lines().any(|line| line.trim() == copy),
            "the dependency layer lacks `{copy}`"
        );
    }
    assert!(dependencies.contains("COPY Cargo.toml Cargo.lock ./"));
    assert!(
        sources.contains("touch") && sources.contains("install -D --strip"),
        "the sources are touched (newer than the stubs' build) and the binary installed stripped"
    );
    let steps = read(".ci/docker-steps");
    let touch = "find bench crates -name '*.rs' -exec touch {} +";
    assert!(
        sources.contains(touch) && steps.contains(touch),
        "the Dockerfile and .ci/docker-steps touch the sources alike: {touch}"
    );
    assert!(steps.contains("install -D --strip") && steps.contains("readelf"));
    assert!(
        dependencies.contains("COPY .ci/stub-workspace .ci/")
            && dependencies.contains("RUN .ci/stub-workspace")
            && steps.contains(".ci/stub-workspace"),
        "the Dockerfile and .ci/docker-steps stub the members with the same script"
    );
}
