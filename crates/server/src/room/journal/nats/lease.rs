//! Room leases: which node owns which open room, in a JetStream key-value bucket.
//!
//! One node acts for a live room at a time. Its lease is a key of the bucket [`BUCKET`] (the room
//! id) whose value is the owner's node name, in a bucket whose entries live `--lease-ms` (the
//! bucket's max age), so a lease that nobody renews lapses by itself when its node dies. A node
//! creates the key when it opens or restores a room (`create` fails while another node's lease
//! stands: then it leaves that room alone), renews it every third of its life by compare-and-set
//! on its revision (`update` with the last revision) and gives it back when the room closes (a
//! delete at its revision). A renewal refused because someone else wrote the key, or impossible
//! for so long that the lease may have lapsed, revokes the lease: the room stops acting. The
//! lease's revision is the room's epoch.
//!
//! A lease alone does not stop a node that was paused past its lease from writing once more; the
//! journal's expected-sequence check does (`nats/mod.rs`). The lease decides who *should* act,
//! the journal refuses whoever is late.

use std::collections::HashSet;
use std::time::Duration;

use async_nats::jetstream::kv::{self, CreateErrorKind, Operation, UpdateErrorKind};
use async_nats::jetstream::stream::StorageType;
use async_nats::jetstream::{self, context::CreateKeyValueError};
use futures_util::TryStreamExt;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use crate::config::NodeId;

/// The key-value bucket of room leases.
pub const BUCKET: &str = "aeroplane_leases";

/// The leases of one node: takes, renews and gives back the leases of its rooms.
#[derive(Clone, Debug)]
pub struct Leases {
    bucket: kv::Store,
    node: NodeId,
    ttl: Duration,
    /// The renewal tasks, so a shutdown can wait for the leases to be given back.
    tasks: TaskTracker,
}

/// Why a lease cannot be had or kept.
#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    /// Another node holds the room's lease.
    #[error("room {room} is leased to node {node}")]
    HeldElsewhere {
        /// The room.
        room: Uuid,
        /// The node that holds it.
        node: String,
    },
    /// The lease was taken by another node, or lapsed and was taken.
    #[error("the lease of room {0} has another owner now")]
    Lost(Uuid),
    /// The bucket did not answer as it should.
    #[error("the lease bucket failed: {0}")]
    Bucket(String),
}

impl Leases {
    /// The leases of `node`, each lasting `ttl` without renewal, in the bucket [`BUCKET`] kept by
    /// `replicas` servers (created, or its max age and replicas set, if needed).
    pub async fn open(
        jetstream: &jetstream::Context,
        node: NodeId,
        ttl: Duration,
        replicas: usize,
    ) -> Result<Leases, CreateKeyValueError> {
        let bucket = jetstream
            .create_or_update_key_value(kv::Config {
                bucket: BUCKET.to_owned(),
                description: "Which node owns which live room (aeroplane-server)".to_owned(),
                history: 1,
                max_age: ttl,
                storage: StorageType::File,
                num_replicas: replicas,
                ..Default::default()
            })
            .await?;
        Ok(Leases {
            bucket,
            node,
            ttl,
            tasks: TaskTracker::new(),
        })
    }

    /// This node's name.
    pub fn node(&self) -> &NodeId {
        &self.node
    }

    /// Takes `room`'s lease for this node: creates it, or takes back one this node's name held
    /// in an earlier run (a restart with the same `--node-id`). Fails with
    /// [`LeaseError::HeldElsewhere`] while another node's lease stands.
    pub async fn acquire(&self, room: Uuid) -> Result<Lease, LeaseError> {
        let key = room.to_string();
        let revision = match self.bucket.create(&key, self.value()).await {
            Ok(revision) => revision,
            Err(error) if error.kind() == CreateErrorKind::AlreadyExists => {
                self.take_back(room, &key).await?
            }
            Err(error) => return Err(LeaseError::Bucket(error.to_string())),
        };
        tracing::debug!(room_id = %room, node_id = %self.node, revision, "lease taken");
        Ok(Lease {
            leases: self.clone(),
            room,
            revision,
        })
    }

    /// Takes `room`'s lease for this node only if nobody holds it (it lapsed, was given back, or
    /// never was): the compare-and-set create alone, for a node taking over a room while it
    /// runs. Unlike [`Leases::acquire`] it never takes back a lease under this node's name,
    /// which a running node holds only for rooms it serves (or, under a duplicated
    /// `--node-id`, another process does). Fails with [`LeaseError::HeldElsewhere`] otherwise.
    pub async fn create(&self, room: Uuid) -> Result<Lease, LeaseError> {
        let key = room.to_string();
        // A second try when the lease lapsed between the create and the read of its holder.
        for _ in 0..2 {
            let holder = match self.bucket.create(&key, self.value()).await {
                Ok(revision) => {
                    tracing::debug!(room_id = %room, node_id = %self.node, revision, "lease created");
                    return Ok(Lease {
                        leases: self.clone(),
                        room,
                        revision,
                    });
                }
                Err(error) if error.kind() == CreateErrorKind::AlreadyExists => self
                    .bucket
                    .entry(&key)
                    .await
                    .map_err(|error| LeaseError::Bucket(error.to_string()))?,
                Err(error) => return Err(LeaseError::Bucket(error.to_string())),
            };
            if let Some(entry) = holder.filter(|entry| entry.operation == Operation::Put) {
                let node = String::from_utf8_lossy(&entry.value).into_owned();
                return Err(LeaseError::HeldElsewhere { room, node });
            }
        }
        Err(LeaseError::Bucket(format!(
            "the lease of room {room} kept changing"
        )))
    }

    /// Takes back a lease held under this node's name, at its revision.
    async fn take_back(&self, room: Uuid, key: &str) -> Result<u64, LeaseError> {
        let entry = self
            .bucket
            .entry(key)
            .await
            .map_err(|error| LeaseError::Bucket(error.to_string()))?;
        match entry {
            Some(entry)
                if entry.operation == Operation::Put
                    && entry.value == self.node.as_str().as_bytes() =>
            {
                self.bucket
                    .update(key, self.value(), entry.revision)
                    .await
                    .map_err(|_| LeaseError::Lost(room))
            }
            Some(entry) => Err(LeaseError::HeldElsewhere {
                room,
                node: String::from_utf8_lossy(&entry.value).into_owned(),
            }),
            // It lapsed or was given back meanwhile: one more try.
            None => self
                .bucket
                .create(key, self.value())
                .await
                .map_err(|error| LeaseError::Bucket(error.to_string())),
        }
    }

    /// How long a lease lasts without renewal (`--lease-ms`).
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The rooms whose lease some node holds now (lapsed and given-back leases are absent).
    pub async fn held(&self) -> Result<HashSet<Uuid>, LeaseError> {
        let keys = self
            .bucket
            .keys()
            .await
            .map_err(|error| LeaseError::Bucket(error.to_string()))?;
        let keys: Vec<String> = keys
            .try_collect()
            .await
            .map_err(|error| LeaseError::Bucket(error.to_string()))?;
        Ok(keys.iter().filter_map(|key| key.parse().ok()).collect())
    }

    fn value(&self) -> bytes::Bytes {
        self.node.as_str().to_owned().into()
    }

    /// Waits (at most `within`) until every kept lease has been given back.
    pub async fn settle(&self, within: Duration) {
        self.tasks.close();
        let _ = tokio::time::timeout(within, self.tasks.wait()).await;
        self.tasks.reopen();
    }
}

/// One room's lease, held by this node.
#[derive(Debug)]
pub struct Lease {
    leases: Leases,
    room: Uuid,
    revision: u64,
}

impl Lease {
    /// The room.
    pub fn room(&self) -> Uuid {
        self.room
    }

    /// The lease's revision in the bucket: the room's epoch, greater at every renewal.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Renews the lease once, by compare-and-set on its revision. Fails with
    /// [`LeaseError::Lost`] when another node wrote the key since (it took the lease).
    pub async fn renew(&mut self) -> Result<(), LeaseError> {
        let key = self.room.to_string();
        let leases = &self.leases;
        match leases
            .bucket
            .update(&key, leases.value(), self.revision)
            .await
        {
            Ok(revision) => {
                self.revision = revision;
                Ok(())
            }
            Err(error) if error.kind() == UpdateErrorKind::WrongLastRevision => {
                Err(LeaseError::Lost(self.room))
            }
            Err(error) => Err(LeaseError::Bucket(error.to_string())),
        }
    }

    /// Gives the lease back: deletes the key at its revision (refused, harmlessly, when another
    /// node has taken it meanwhile).
    pub async fn release(self) {
        let key = self.room.to_string();
        let deleted = self
            .leases
            .bucket
            .delete_expect_revision(&key, Some(self.revision))
            .await;
        if let Err(error) = deleted {
            tracing::debug!(room_id = %self.room, %error, "lease not given back");
        }
    }

    /// Keeps the lease renewed in the background until the [`KeptLease`] is dropped, then gives
    /// it back.
    pub fn keep(self) -> KeptLease {
        let revoked = CancellationToken::new();
        let stop = CancellationToken::new();
        let tasks = self.leases.tasks.clone();
        crate::metrics::cluster_room_owned(self.leases.node.as_str(), 1.0);
        tasks.spawn(self.renew_until(stop.clone(), revoked.clone()));
        KeptLease { revoked, stop }
    }

    /// Renews every third of the lease's life until `stop`, then gives the lease back. A
    /// renewal refused, or none for so long that the lease may lapse before the next try,
    /// cancels `revoked` and ends the task (the lease is not this node's any more).
    async fn renew_until(self, stop: CancellationToken, revoked: CancellationToken) {
        let node = self.leases.node.clone();
        self.renew_while_kept(stop, revoked).await;
        crate::metrics::cluster_room_owned(node.as_str(), -1.0);
    }

    /// [`Lease::renew_until`]'s loop.
    async fn renew_while_kept(mut self, stop: CancellationToken, revoked: CancellationToken) {
        let ttl = self.leases.ttl;
        let every = ttl / 3;
        let mut renewed = Instant::now();
        loop {
            tokio::select! {
                () = stop.cancelled() => {
                    self.release().await;
                    return;
                }
                () = tokio::time::sleep(every) => {}
            }
            match self.renew().await {
                Ok(()) => renewed = Instant::now(),
                Err(LeaseError::Bucket(error)) if renewed.elapsed() + every < ttl => {
                    crate::metrics::cluster_lease_renew_failed(self.leases.node.as_str());
                    tracing::warn!(room_id = %self.room, node_id = %self.leases.node, %error, "cannot renew the room's lease; trying again");
                }
                Err(error) => {
                    crate::metrics::cluster_lease_renew_failed(self.leases.node.as_str());
                    tracing::warn!(room_id = %self.room, node_id = %self.leases.node, %error, "lost the room's lease; letting the room go");
                    revoked.cancel();
                    return;
                }
            }
        }
    }
}

/// A lease renewed in the background; given back when dropped.
#[derive(Debug)]
pub struct KeptLease {
    revoked: CancellationToken,
    stop: CancellationToken,
}

impl KeptLease {
    /// Cancelled once the lease is lost.
    pub fn revoked(&self) -> &CancellationToken {
        &self.revoked
    }
}

impl Drop for KeptLease {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}
