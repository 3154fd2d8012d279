//! `aeroplane-server probe <url>`: an HTTP GET for container healthchecks, so the runtime image
//! needs no curl. Exit status 0 iff the answer is 2xx. Only `http://` URLs.
//!
//! It uses hyper's client connection (hyper is already here for the server) on a small
//! single-threaded runtime of its own, so the probe starts fast and parses nothing by hand.

use std::time::Duration;

use http_body_util::Empty;
use hyper::Uri;
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;

/// GETs `url` and answers its status code, all within `timeout`.
pub fn get_status(url: &str, timeout: Duration) -> Result<u16, String> {
    let uri: Uri = url
        .parse()
        .map_err(|error| format!("`{url}` is not a URL: {error}"))?;
    if uri.scheme_str() != Some("http") {
        return Err(format!("`{url}` is not an http:// URL"));
    }
    let authority = uri
        .authority()
        .filter(|authority| !authority.host().is_empty())
        .ok_or_else(|| format!("`{url}` has no host"))?
        .clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the probe's runtime: {error}"))?;
    runtime.block_on(async {
        tokio::time::timeout(timeout, fetch_status(uri, authority))
            .await
            .map_err(|_| format!("no answer from {url} within {timeout:?}"))?
    })
}

async fn fetch_status(uri: Uri, authority: hyper::http::uri::Authority) -> Result<u16, String> {
    let address = format!(
        "{}:{}",
        authority.host(),
        authority.port_u16().unwrap_or(80)
    );
    let stream = tokio::net::TcpStream::connect(&address)
        .await
        .map_err(|error| format!("cannot connect to {address}: {error}"))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|error| format!("no HTTP connection to {address}: {error}"))?;
    tokio::spawn(connection);
    let request = hyper::Request::get(uri)
        .header(hyper::header::HOST, authority.as_str())
        .header(hyper::header::USER_AGENT, "aeroplane-probe")
        .body(Empty::<Bytes>::new())
        .map_err(|error| format!("cannot build the request: {error}"))?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|error| format!("no answer from {address}: {error}"))?;
    Ok(response.status().as_u16())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_that_is_not_http_is_refused() {
        assert!(get_status("https://example.org/", Duration::from_millis(10)).is_err());
        assert!(get_status("http:///x", Duration::from_millis(10)).is_err());
        assert!(get_status("not a url", Duration::from_millis(10)).is_err());
    }

    #[test]
    fn a_closed_port_is_an_error() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = format!("http://127.0.0.1:{port}/readyz");
        assert!(get_status(&url, Duration::from_millis(500)).is_err());
    }

    #[test]
    fn the_status_of_a_real_answer_is_returned() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            use std::io::{Read, Write};
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = [0u8; 1024];
            let _ = stream.read(&mut request).unwrap();
            stream
                .write_all(b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n")
                .unwrap();
        });
        let url = format!("http://127.0.0.1:{port}/readyz");
        assert_eq!(get_status(&url, Duration::from_secs(5)), Ok(503));
        server.join().unwrap();
    }
}
