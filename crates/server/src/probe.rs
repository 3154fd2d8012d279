//! `aeroplane-server probe <url>`: a tiny HTTP/1.1 GET for container healthchecks, so the
//! runtime image needs no curl. Exit status 0 iff the answer is 2xx. Only `http://` URLs.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// GETs `url` and answers its status code.
pub fn get_status(url: &str, timeout: Duration) -> Result<u16, String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("`{url}` is not an http:// URL"))?;
    let (authority, path) = match rest.find('/') {
        Some(slash) => (&rest[..slash], &rest[slash..]),
        None => (rest, "/"),
    };
    if authority.is_empty() {
        return Err(format!("`{url}` has no host"));
    }
    let host_port = if authority.contains(':') && !authority.ends_with(']') {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    let addr = host_port
        .to_socket_addrs()
        .map_err(|error| format!("cannot resolve {authority}: {error}"))?
        .next()
        .ok_or_else(|| format!("{authority} resolves to no address"))?;
    let mut stream = TcpStream::connect_timeout(&addr, timeout)
        .map_err(|error| format!("cannot connect to {addr}: {error}"))?;
    stream
        .set_read_timeout(Some(timeout))
        .map_err(|error| error.to_string())?;
    stream
        .set_write_timeout(Some(timeout))
        .map_err(|error| error.to_string())?;
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nUser-Agent: aeroplane-probe\r\n\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|error| format!("cannot send the request: {error}"))?;
    let mut head = [0u8; 64];
    let mut read = 0;
    while read < 12 {
        let n = stream
            .read(&mut head[read..])
            .map_err(|error| format!("no answer: {error}"))?;
        if n == 0 {
            break;
        }
        read += n;
    }
    let line = String::from_utf8_lossy(&head[..read]);
    line.strip_prefix("HTTP/1.")
        .and_then(|rest| rest.get(2..5))
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| format!("not an HTTP answer: {line:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_that_is_not_http_is_refused() {
        assert!(get_status("https://example.org/", Duration::from_millis(10)).is_err());
        assert!(get_status("http:///x", Duration::from_millis(10)).is_err());
    }

    #[test]
    fn a_closed_port_is_an_error() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        assert!(
            get_status(
                &format!("http://127.0.0.1:{port}/readyz"),
                Duration::from_millis(500)
            )
            .is_err()
        );
    }
}
