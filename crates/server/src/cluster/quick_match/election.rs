//! Which node runs the pool: the holder of the key [`KEY`], taken by a compare-and-set create,
//! renewed by compare-and-set on its revision, given back at a drain.

use std::time::Duration;

use async_nats::jetstream::kv::{self, CreateErrorKind, Operation, UpdateErrorKind};
use async_nats::jetstream::stream::StorageType;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::pool::Pool;
use super::{BUCKET, KEY};
use crate::room::RoomContext;

/// The rounds for the matchmaker's key.
pub(super) struct Election {
    /// This node's NATS connection.
    pub(super) jetstream: async_nats::jetstream::Context,
    /// This node's name, the key's value while it holds it.
    pub(super) node: String,
    /// How long the key lasts without renewal.
    pub(super) ttl: Duration,
    /// How many NATS servers keep the bucket.
    pub(super) replicas: usize,
    /// What opening a room needs.
    pub(super) context: RoomContext,
    /// Who holds the key, as this node last learned.
    pub(super) holder: watch::Sender<Option<String>>,
}

/// The key, held by this node: its revision, when it was last renewed, and the pool it runs.
struct Held {
    revision: u64,
    renewed: Instant,
    pool: CancellationToken,
}

impl Election {
    /// Creates the bucket, then every third of the lease (jittered) takes, renews or reads the
    /// key, until the node drains; then gives the key back if it holds it.
    pub(super) async fn run(self) {
        let mut stopping = self.context.lifecycle.stopping();
        let every = self.ttl / 3;
        let bucket = loop {
            match self.bucket().await {
                Ok(bucket) => break bucket,
                Err(error) => tracing::warn!(%error, bucket = BUCKET, "cannot set up the bucket"),
            }
            tokio::select! {
                _ = stopping.wait_for(|stop| *stop) => return,
                () = tokio::time::sleep(crate::cluster::takeover::jittered(every)) => {}
            }
        };
        let mut held = None;
        loop {
            held = self.round(&bucket, held).await;
            tokio::select! {
                _ = stopping.wait_for(|stop| *stop) => break,
                () = tokio::time::sleep(crate::cluster::takeover::jittered(every)) => {}
            }
        }
        if let Some(held) = held {
            held.pool.cancel();
            let _ = bucket
                .delete_expect_revision(KEY, Some(held.revision))
                .await;
            tracing::info!("gave the quick-match matchmaker's key back");
        }
    }

    async fn bucket(&self) -> anyhow::Result<kv::Store> {
        Ok(self
            .jetstream
            .create_or_update_key_value(kv::Config {
                bucket: BUCKET.to_owned(),
                description: "Which node runs the quick-match pool (aeroplane-server)".to_owned(),
                history: 1,
                max_age: self.ttl,
                storage: StorageType::File,
                num_replicas: self.replicas,
                ..Default::default()
            })
            .await?)
    }

    /// One round: renews the key if this node holds it, else tries to take it, else reads who
    /// holds it. Answers whether (and how) this node holds it now.
    async fn round(&self, bucket: &kv::Store, held: Option<Held>) -> Option<Held> {
        let value = || bytes::Bytes::from(self.node.clone());
        if let Some(mut held) = held {
            match bucket.update(KEY, value(), held.revision).await {
                Ok(revision) => {
                    held.revision = revision;
                    held.renewed = Instant::now();
                    return Some(held);
                }
                Err(error)
                    if error.kind() != UpdateErrorKind::WrongLastRevision
                        && held.renewed.elapsed() + self.ttl / 3 < self.ttl =>
                {
                    tracing::warn!(%error, "cannot renew the matchmaker's key; trying again");
                    return Some(held);
                }
                Err(error) => {
                    tracing::warn!(%error, "lost the matchmaker's key; its waiters go elsewhere");
                    held.pool.cancel();
                    self.holder.send_replace(None);
                }
            }
        }
        match bucket.create(KEY, value()).await {
            Ok(revision) => match Pool::start(
                &self.jetstream.client(),
                &self.node,
                &self.context,
                self.ttl,
            )
            .await
            {
                Ok(pool) => {
                    tracing::info!(revision, "this node is the quick-match matchmaker");
                    self.holder.send_replace(Some(self.node.clone()));
                    return Some(Held {
                        revision,
                        renewed: Instant::now(),
                        pool,
                    });
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot serve as the matchmaker; giving the key back");
                    let _ = bucket.delete_expect_revision(KEY, Some(revision)).await;
                }
            },
            Err(error) if error.kind() == CreateErrorKind::AlreadyExists => {}
            Err(error) => tracing::warn!(%error, "cannot take the matchmaker's key"),
        }
        match bucket.entry(KEY).await {
            Ok(entry) => {
                let holder = entry
                    .filter(|entry| entry.operation == Operation::Put)
                    .map(|entry| String::from_utf8_lossy(&entry.value).into_owned());
                self.holder.send_if_modified(|known| {
                    let changed = *known != holder;
                    *known = holder;
                    changed
                });
            }
            Err(error) => tracing::warn!(%error, "cannot read the matchmaker's key"),
        }
        None
    }
}
