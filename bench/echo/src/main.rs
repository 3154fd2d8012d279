//! `bench-echo`: the WebSocket echo server of the load benchmark (see the library's docs).

use clap::Parser;
use tokio::signal::unix::SignalKind;

/// A bare WebSocket echo server: each text message is answered with itself.
#[derive(Debug, Parser)]
#[command(name = "bench-echo", version)]
struct Args {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:18282")]
    listen: std::net::SocketAddr,
    /// Worker threads of the tokio runtime (0: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if args.threads > 0 {
        runtime.worker_threads(args.threads);
    }
    runtime.enable_all().build()?.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen).await?;
        println!("bench-echo listening on {}", listener.local_addr()?);
        let mut terminate = tokio::signal::unix::signal(SignalKind::terminate())?;
        // SIGTERM ends the process through `main`'s return, so that exit handlers run (those
        // of an instrumented build write its profile: bench/pgo.sh).
        tokio::select! {
            served = aeroplane_bench_echo::serve(listener) => served,
            _ = terminate.recv() => Ok(()),
        }
    })
}
