//! `aeroplane-server`: parse the settings, set up logging, serve until Ctrl-C.

use std::sync::Arc;

use aeroplane_server::Config;
use aeroplane_store::MemoryStore;
use anyhow::Context;
use clap::Parser;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Config::parse();
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    if config.log_json {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .json()
            .init();
    } else {
        tracing_subscriber::fmt().with_env_filter(filter).init();
    }
    // Finished games stay in memory until the persistence issue brings the database stores.
    let store = Arc::new(MemoryStore::new());
    let server = aeroplane_server::serve(config, store).await?;
    println!("aeroplane-server listening on http://{}", server.addr());
    tokio::signal::ctrl_c()
        .await
        .context("failed to wait for Ctrl-C")?;
    tracing::info!("shutting down");
    server.shutdown().await
}
