//! The server's process as Linux's `/proc` shows it, for the load generator's report: its peak
//! and present memory, and which process listens on the server's port when none was named
//! (`aeroplane-loadtest --server-pid`). Elsewhere than Linux every answer is `None`.

use std::net::IpAddr;

/// The peak resident set size of process `pid`, in KiB (`VmHWM` of `/proc/<pid>/status`).
pub fn peak_memory_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmHWM:")
}

/// The resident set size of process `pid` now, in KiB (`VmRSS` of `/proc/<pid>/status`).
pub fn resident_memory_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmRSS:")
}

/// A `kB` field of `/proc/<pid>/status`, in KiB.
fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The process listening on the server's port, when the server is on a loopback address.
pub fn local_server_pid(server: &str) -> Option<u32> {
    let authority = server.split_once("://")?.1.split('/').next()?;
    let (host, port) = authority.rsplit_once(':')?;
    let local = host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if !local {
        return None;
    }
    let port: u16 = port.parse().ok()?;
    let inode = listening_inode(port)?;
    let needle = format!("socket:[{inode}]");
    for process in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = process
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(process.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if std::fs::read_link(fd.path()).is_ok_and(|target| target.to_string_lossy() == needle)
            {
                return Some(pid);
            }
        }
    }
    None
}

/// The socket inode of a TCP socket listening on `port` (from /proc/net/tcp and tcp6).
fn listening_inode(port: u16) -> Option<String> {
    const LISTEN: &str = "0A";
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (Some(local), Some(state), Some(inode)) =
                (fields.get(1), fields.get(3), fields.get(9))
            else {
                continue;
            };
            let local_port = local
                .rsplit(':')
                .next()
                .and_then(|hex| u16::from_str_radix(hex, 16).ok());
            if *state == LISTEN && local_port == Some(port) {
                return Some((*inode).to_owned());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peak_memory_of_this_process_is_readable() {
        let kib = peak_memory_kib(std::process::id()).unwrap();
        assert!(kib > 100, "{kib} KiB");
    }
}
