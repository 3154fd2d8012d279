//! `send-path`: what one small socket write costs the sender, `writev(2)` of a few slices
//! against `send(2)` of one copy of them (issue 18, stop 29; docs/benchmarks.md).
//!
//! The server's room writes a command's frames (each a header and a JSON payload) to a player's
//! socket in one system call. A closed loop over real WebSockets is too noisy on a shared
//! machine to see a change of a few per cent, so this measures the write alone: one loopback
//! TCP connection, the same bytes written alternately in blocks as `writev` of the slices and
//! as one `send` of their copy (std's `write_vectored` and `write` on a `TcpStream`), the
//! reader draining the other end on another thread. It prints the nanoseconds per write of
//! each way in every block and their medians.
//!
//!     cargo run --release -p aeroplane-bench-echo --bin send-path -- [blocks] [writes per block]

use std::io::{IoSlice, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Instant;

/// The slices of one write: three frames of the sizes a roll and a move send a player, each a
/// two-byte header and its payload.
const SLICES: [usize; 6] = [2, 96, 2, 160, 2, 72];

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let blocks: usize = args.next().and_then(|arg| arg.parse().ok()).unwrap_or(20);
    let writes: usize = args
        .next()
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(200_000);
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let mut sender = TcpStream::connect(listener.local_addr()?)?;
    let (mut receiver, _) = listener.accept()?;
    sender.set_nodelay(true)?;
    std::thread::spawn(move || {
        let mut buffer = vec![0u8; 1 << 16];
        while matches!(receiver.read(&mut buffer), Ok(read) if read > 0) {}
    });
    let parts: Vec<Vec<u8>> = SLICES.iter().map(|&length| vec![b'x'; length]).collect();
    let total: usize = SLICES.iter().sum();
    let (mut vectored, mut copied) = (Vec::new(), Vec::new());
    println!(
        "block  writev ns  send-of-a-copy ns  ({total} bytes in {} slices)",
        SLICES.len()
    );
    for block in 0..blocks {
        let started = Instant::now();
        for _ in 0..writes {
            let slices: Vec<IoSlice<'_>> = parts.iter().map(|part| IoSlice::new(part)).collect();
            let written = sender.write_vectored(&slices)?;
            assert_eq!(written, total, "a blocking socket takes the whole write");
        }
        vectored.push(started.elapsed().as_nanos() as f64 / writes as f64);
        let started = Instant::now();
        for _ in 0..writes {
            let mut stage = [0u8; 2048];
            let mut end = 0;
            for part in &parts {
                stage[end..end + part.len()].copy_from_slice(part);
                end += part.len();
            }
            sender.write_all(&stage[..end])?;
        }
        copied.push(started.elapsed().as_nanos() as f64 / writes as f64);
        println!("{block:5}  {:9.0}  {:17.0}", vectored[block], copied[block]);
    }
    let median = |values: &mut Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    let (vectored, copied) = (median(&mut vectored), median(&mut copied));
    println!(
        "median  {vectored:8.0}  {copied:17.0}  (send of a copy / writev: {:.2})",
        copied / vectored
    );
    Ok(())
}
