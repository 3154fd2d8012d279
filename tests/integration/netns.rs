//! A network namespace joined to the test's by a veth pair, to cut a node off entirely (its
//! clients and its NATS server alike) by setting the link down, and to heal it.
//!
//! The namespace [`NAME`] holds one end of the pair with [`INSIDE`] (and its loopback); the
//! test's namespace holds the other with [`OUTSIDE`]. A node started in it
//! ([`Namespace::command`]) listens on [`INSIDE`] and reaches NATS through a relay on
//! [`OUTSIDE`]. Setting the link down drops every packet between the two without closing any
//! connection, as a pulled cable or a partitioned network does. This needs root (`ip netns`):
//! without it the test skips with a loud line, except under `CI`, where it fails. The guard
//! deletes the namespace and the link when dropped, even when the test fails; a leftover of an
//! earlier run that was killed is deleted first.

use std::net::{IpAddr, Ipv4Addr};
use std::process::Command;

/// The namespace's name.
const NAME: &str = "aeroplane-part";
/// The test's end of the veth pair.
const LINK: &str = "aeroplane-h";
/// The namespace's end of the veth pair.
const PEER: &str = "aeroplane-n";
/// The test's address on the pair (a private range, on no interface but this pair).
pub(crate) const OUTSIDE: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 213, 7, 1));
/// The namespace's address on the pair.
pub(crate) const INSIDE: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 213, 7, 2));

/// The namespace and its link, deleted when dropped.
pub(crate) struct Namespace(());

impl Namespace {
    /// Creates the namespace and the link, up; `None` (after a loud line) when this process may
    /// not, outside CI.
    pub(crate) fn create() -> Option<Namespace> {
        if let Some(problem) = cannot() {
            let ci =
                std::env::var("CI").is_ok_and(|ci| !ci.is_empty() && ci != "false" && ci != "0");
            assert!(
                !ci,
                "CI is set but the partition test cannot make a network namespace ({problem}): \
                 it must run in CI (as root, with iproute2)"
            );
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr().lock(),
                "\n*** SKIPPING THE NETWORK NAMESPACE PARTITION TEST: {problem}; run it as root \
                 with iproute2 (`ip netns`) ***\n"
            );
            return None;
        }
        Namespace::delete();
        let namespace = Namespace(());
        ip(&["netns", "add", NAME]);
        ip(&["link", "add", LINK, "type", "veth", "peer", "name", PEER]);
        ip(&["link", "set", PEER, "netns", NAME]);
        ip(&["addr", "add", &format!("{OUTSIDE}/24"), "dev", LINK]);
        ip(&["link", "set", LINK, "up"]);
        ip(&[
            "-n",
            NAME,
            "addr",
            "add",
            &format!("{INSIDE}/24"),
            "dev",
            PEER,
        ]);
        ip(&["-n", NAME, "link", "set", PEER, "up"]);
        ip(&["-n", NAME, "link", "set", "lo", "up"]);
        Some(namespace)
    }

    /// The command and first arguments that run a program in the namespace.
    pub(crate) fn command(&self) -> [&'static str; 4] {
        ["ip", "netns", "exec", NAME]
    }

    /// Sets the link down: nothing passes between the namespace and the test any more.
    pub(crate) fn cut(&self) {
        ip(&["link", "set", LINK, "down"]);
    }

    /// Sets the link up again.
    pub(crate) fn heal(&self) {
        ip(&["link", "set", LINK, "up"]);
    }

    /// Deletes the namespace (which deletes its end of the pair, and so the pair) and the link,
    /// whatever is left of them.
    fn delete() {
        let quiet = |args: &[&str]| {
            let _ = Command::new("ip").args(args).output();
        };
        quiet(&["netns", "del", NAME]);
        quiet(&["link", "del", LINK]);
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        Namespace::delete();
    }
}

/// Why this process cannot make a namespace, if it cannot.
fn cannot() -> Option<String> {
    let Ok(uid) = Command::new("id").arg("-u").output() else {
        return Some("`id` does not run".to_owned());
    };
    let uid = String::from_utf8_lossy(&uid.stdout).trim().to_owned();
    if uid != "0" {
        return Some(format!("not root (uid {uid})"));
    }
    match Command::new("ip").arg("-V").output() {
        Ok(output) if output.status.success() => None,
        _ => Some("`ip` (iproute2) does not run".to_owned()),
    }
}

/// Runs `ip args`, failing the test if it fails.
fn ip(args: &[&str]) {
    let output = Command::new("ip").args(args).output().expect("`ip` runs");
    assert!(
        output.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
}
