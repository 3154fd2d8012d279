//! The journal store on NATS JetStream (`--nats-url`): one stream, a subject per room, and a
//! lease per room in a key-value bucket ([`lease`]).
//!
//! Why a broker: a file journal lives and dies with its machine's disk, so a room can only come
//! back where it was. A JetStream stream is a durable, ordered log that any node reaches, with
//! compare-and-set on a subject's last sequence; it is the first step of issue 15 (rooms that
//! outlive their node). What this store does, against the two journal traits:
//!
//! - The stream [`STREAM`] (file storage, subjects `aeroplane.journal.<room id>`, kept by
//!   `--nats-replicas` servers of the NATS cluster so that losing one loses nothing) holds each
//!   room's entries: one message per `create`, `append` or `rewrite`, its payload the entries as
//!   JSON lines (the file store's format), its header [`KIND`] saying which.
//! - Every write waits for JetStream's acknowledgement (so `sync` has nothing to do; a write no
//!   server answers, as while a replicated stream elects a new leader, or whose acknowledgement
//!   does not come in time ([`FIRST_TRY_WAIT`], doubling), as when the client's server died with
//!   the write in flight, is tried again for up to [`NO_LEADER_RETRY`], the room waiting, under
//!   one message id so that it is stored once) and carries
//!   the subject's last sequence this journal knows (`Nats-Expected-Last-Subject-Sequence`).
//!   A writer that is late, because another node (or this node restarted) has written the room
//!   since, is refused; the refusal is a [`Revoked`] error, and the room stops acting for the
//!   room and closes its sockets (`room/task.rs`). That is the fencing. A write that gets no
//!   acknowledgement (the broker unreachable past the client's timeout, no leader past the
//!   retry) is an [`Unacknowledged`] error, and the room stops the same way: no client may hear
//!   of an action that is on no journal (issue 15), so the room is left to whichever node
//!   reaches the journal next, to take over from what it holds.
//! - `rewrite` (and `create`) is one message with `Nats-Rollup: sub`: the subject's earlier
//!   messages are gone in the same step, so a reader never sees half of one.
//! - `delete` writes a fenced, empty rollup (a tombstone) and purges the subject; `set_aside`
//!   appends a marker a later `load_all` skips, leaving the entries for an operator to read.
//! - `load_all` reads every room subject in order, skipping rooms whose lease another node holds
//!   and rooms set aside; [`NatsJournals::unowned`] lists the rooms nobody holds a lease on and
//!   [`NatsJournals::claim`] takes one of them, for a node taking over a dead node's rooms
//!   while it runs (`crate::cluster`).
//! - Each journal holds its room's lease, renewed in the background and given back when the
//!   journal is dropped; a lost lease cancels [`RoomJournal::revoked`] and refuses writes.

/// One room's journal: its writes, fenced and acknowledged.
mod journal;
mod lease;

use std::io;
use std::sync::Arc;
use std::time::Duration;

use async_nats::HeaderMap;
use async_nats::jetstream::context::{CreateKeyValueError, CreateStreamError, GetStreamError};
use async_nats::jetstream::stream::{self, DirectGetErrorKind, StorageType};
use async_nats::jetstream::{self, Context};
use futures_util::TryStreamExt;
use futures_util::future::{BoxFuture, FutureExt};
use uuid::Uuid;

use journal::{NatsJournal, subject};
pub use lease::{BUCKET, KeptLease, Lease, LeaseError, Leases};

use super::format::{Line, decode_lines, encode_lines};
use super::store::{JournalStore, Loaded, Revoked, RoomJournal, Unacknowledged};
use crate::config::{NatsUrls, NodeId};

/// The stream of every room's journal.
pub const STREAM: &str = "AEROPLANE_JOURNAL";

/// The subjects of the stream: one per room.
const SUBJECTS: &str = "aeroplane.journal.*";

/// The header that says what a journal message is (see [`Kind`]).
pub const KIND: &str = "Aeroplane-Journal";

/// How long a shutdown waits for the leases to be given back.
const SETTLE: Duration = Duration::from_secs(2);

/// How long a write is tried again while no NATS server answers for the stream (its replicas
/// electing a new leader after the loss of a server) or its acknowledgement does not come (the
/// client's server lost with the write in flight): the room waits for its acknowledgement
/// rather than going on with actions that are not journaled, and past this lets the room go
/// (or at once when its lease is lost meanwhile). No try waits past it.
const NO_LEADER_RETRY: Duration = Duration::from_secs(10);

/// How long the first try of a write waits for its acknowledgement; a try after one that timed
/// out waits twice as long as that one did (1, 2, 4 s, then the rest of [`NO_LEADER_RETRY`]).
///
/// Why not the client's 5 s: a write in flight when the client's server dies is never answered,
/// and the room, its players with it, waited the whole 5 s before the try on the new server.
/// A healthy stream acknowledges in milliseconds, and a try given up too early is harmless: the
/// next carries the same message id, so JetStream stores the write once and answers with its
/// sequence.
const FIRST_TRY_WAIT: Duration = Duration::from_secs(1);

/// The pause between two tries of a write.
const RETRY_PAUSE: Duration = Duration::from_millis(50);

/// What a journal message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Every entry, replacing what the subject held (a rollup).
    Rewrite,
    /// Entries to add at the end.
    Append,
    /// Nothing: the journal was deleted (a rollup, then the subject is purged).
    Deleted,
    /// The journal cannot be restored; later starts skip it.
    Aside,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Rewrite => "rewrite",
            Kind::Append => "append",
            Kind::Deleted => "deleted",
            Kind::Aside => "aside",
        }
    }

    fn of(headers: &HeaderMap) -> Option<Kind> {
        let kind = headers.get(KIND)?;
        [Kind::Rewrite, Kind::Append, Kind::Deleted, Kind::Aside]
            .into_iter()
            .find(|known| known.as_str() == kind.as_str())
    }
}

/// Why the NATS journal store cannot start.
#[derive(Debug, thiserror::Error)]
pub enum NatsError {
    /// No connection to the server.
    #[error("cannot connect to NATS at {url}: {source}")]
    Connect {
        /// The URLs tried.
        url: String,
        /// Why.
        source: async_nats::ConnectError,
    },
    /// The stream could not be created or updated (is JetStream enabled?).
    #[error("cannot set up the JetStream stream {STREAM}: {0}")]
    Stream(#[from] CreateStreamError),
    /// The stream could not be read back.
    #[error("cannot open the JetStream stream {STREAM}: {0}")]
    GetStream(#[from] GetStreamError),
    /// The lease bucket could not be created or updated.
    #[error("cannot set up the key-value bucket {BUCKET}: {0}")]
    Bucket(#[from] CreateKeyValueError),
}

/// How a claim takes a room's lease.
#[derive(Clone, Copy, Debug)]
enum Take {
    /// At start: also takes back a lease this node's name held in an earlier run.
    AtStart,
    /// While running: only a lease nobody holds.
    Unowned,
}

/// What [`NatsJournals::claim`] found.
#[derive(Debug)]
pub enum Claim {
    /// The journal, its lease now this node's.
    Loaded(Loaded),
    /// Another node holds the room's lease: the room is live there.
    Elsewhere {
        /// The owner's node name.
        node: String,
    },
    /// No journal to take: none, deleted (the game is over) or set aside.
    Missing,
    /// The broker did not answer as it should (logged).
    Failed(String),
}

/// The journals of every live game, as subjects of one JetStream stream, each room leased to
/// the node that writes it.
#[derive(Debug)]
pub struct NatsJournals {
    jetstream: Context,
    stream: stream::Stream,
    leases: Leases,
}

impl NatsJournals {
    /// Connects to one of the NATS servers `urls` as `node` (the client fails over to the
    /// others, and to the servers of their cluster it learns of), and sets up the stream and the
    /// lease bucket (leases lasting `lease` without renewal), each kept by `replicas` servers.
    pub async fn connect(
        urls: &NatsUrls,
        node: NodeId,
        lease: Duration,
        replicas: usize,
    ) -> Result<Arc<NatsJournals>, NatsError> {
        let client = async_nats::ConnectOptions::new()
            .name(format!("aeroplane-server {node}"))
            .connect(urls.servers().to_vec())
            .await
            .map_err(|source| NatsError::Connect {
                url: urls.to_string(),
                source,
            })?;
        let jetstream = jetstream::new(client);
        jetstream
            .create_or_update_stream(stream::Config {
                name: STREAM.to_owned(),
                description: Some("Live games' journals (aeroplane-server)".to_owned()),
                subjects: vec![SUBJECTS.to_owned()],
                storage: StorageType::File,
                num_replicas: replicas,
                allow_rollup: true,
                allow_direct: true,
                ..Default::default()
            })
            .await?;
        let stream = jetstream.get_stream(STREAM).await?;
        crate::metrics::cluster_started(node.as_str());
        let leases = Leases::open(&jetstream, node, lease, replicas).await?;
        Ok(Arc::new(NatsJournals {
            jetstream,
            stream,
            leases,
        }))
    }

    /// The JetStream context of the node's NATS connection (quick match uses it too).
    pub fn jetstream(&self) -> &Context {
        &self.jetstream
    }

    /// The leases of this node.
    pub fn leases(&self) -> &Leases {
        &self.leases
    }

    fn journal(&self, id: Uuid, last: u64, lease: Lease) -> NatsJournal {
        NatsJournal {
            jetstream: self.jetstream.clone(),
            stream: self.stream.clone(),
            id,
            subject: subject(id),
            last,
            lease: lease.keep(),
        }
    }

    /// Reads every room subject, leaving out rooms leased to another node and rooms set aside.
    async fn load_now(&self) -> Vec<Loaded> {
        let mut subjects = Vec::new();
        let listed = self.stream.info_with_subjects(SUBJECTS).await;
        let listed = match listed {
            Ok(info) => info.try_collect::<Vec<_>>().await,
            Err(error) => Err(error),
        };
        match listed {
            Ok(found) => subjects.extend(found.into_iter().map(|(subject, _)| subject)),
            Err(error) => {
                tracing::error!(%error, stream = STREAM, "cannot list the journals");
                return Vec::new();
            }
        }
        subjects.sort();
        let mut loaded = Vec::new();
        for subject in subjects {
            let Some(id) = subject
                .rsplit('.')
                .next()
                .and_then(|id| id.parse::<Uuid>().ok())
            else {
                continue;
            };
            if let Claim::Loaded(found) = self.claim_with(id, Take::AtStart).await {
                loaded.push(found);
            }
        }
        loaded
    }

    /// The rooms whose journal is on the stream but whose lease nobody holds: their node died
    /// (the lease lapsed) or gave them back (a drain). Journals set aside (and deletes whose
    /// purge did not happen) are listed too; [`NatsJournals::claim`] leaves them alone.
    pub async fn unowned(&self) -> Vec<Uuid> {
        let listed = self.stream.info_with_subjects(SUBJECTS).await;
        let listed = match listed {
            Ok(info) => info.try_collect::<Vec<_>>().await,
            Err(error) => Err(error),
        };
        let subjects = match listed {
            Ok(found) => found,
            Err(error) => {
                tracing::warn!(%error, stream = STREAM, "cannot list the journals");
                return Vec::new();
            }
        };
        let leased = match self.leases.held().await {
            Ok(leased) => leased,
            Err(error) => {
                tracing::warn!(%error, "cannot list the room leases");
                return Vec::new();
            }
        };
        let mut unowned: Vec<Uuid> = subjects
            .into_iter()
            .filter_map(|(subject, _)| subject.rsplit('.').next()?.parse::<Uuid>().ok())
            .filter(|id| !leased.contains(id))
            .collect();
        unowned.sort();
        unowned
    }

    /// Takes room `id`'s lease and reads its journal, if the journal exists and nobody holds
    /// the lease (compare-and-set: of several nodes trying at once, one wins).
    pub async fn claim(&self, id: Uuid) -> Claim {
        self.claim_with(id, Take::Unowned).await
    }

    /// [`NatsJournals::claim`], taking the lease as `take` says.
    async fn claim_with(&self, id: Uuid, take: Take) -> Claim {
        let subject = subject(id);
        let last = self.stream.direct_get_last_for_subject(&subject).await;
        match last.as_ref().map(|message| Kind::of(&message.headers)) {
            Ok(Some(Kind::Aside)) => return Claim::Missing,
            Ok(Some(Kind::Deleted)) => {
                // A delete whose purge did not happen: finish it.
                let _ = self.stream.purge().filter(&subject).await;
                return Claim::Missing;
            }
            Ok(_) => {}
            Err(error) if error.kind() == DirectGetErrorKind::NotFound => return Claim::Missing,
            Err(error) => {
                tracing::error!(%error, room_id = %id, "cannot read a journal");
                return Claim::Failed(error.to_string());
            }
        }
        let lease = match take {
            Take::AtStart => self.leases.acquire(id).await,
            Take::Unowned => self.leases.create(id).await,
        };
        let lease = match lease {
            Ok(lease) => lease,
            Err(LeaseError::HeldElsewhere { node, .. }) => {
                tracing::info!(room_id = %id, owner = %node, "not restoring a room another node owns");
                return Claim::Elsewhere { node };
            }
            Err(error) => {
                tracing::warn!(%error, room_id = %id, "cannot take the room's lease");
                return Claim::Failed(error.to_string());
            }
        };
        let (entries, last) = match self.read(&subject).await {
            Ok((entries, last)) => (Ok(entries), last),
            Err(error) => (Err(error), last.map_or(0, |message| message.sequence)),
        };
        Claim::Loaded(Loaded {
            name: format!("{STREAM}/{subject}"),
            entries,
            journal: Box::new(self.journal(id, last, lease)),
        })
    }

    /// The connection to the NATS servers, for what nodes send each other
    /// (`crate::cluster::forward`).
    pub fn client(&self) -> async_nats::Client {
        self.jetstream.client()
    }

    /// Whether the connection to the NATS server is up (for `/readyz`).
    pub fn connected(&self) -> bool {
        self.jetstream.client().connection_state() == async_nats::connection::State::Connected
    }

    /// A subject's entries in order, and its last sequence. An unreadable entry is ignored with
    /// everything after it, as in the file store (the messages after it still count for the
    /// last sequence, which the next write expects).
    async fn read(&self, subject: &str) -> io::Result<(Vec<Line>, u64)> {
        let mut entries = Vec::new();
        let mut next = 1;
        let mut last = 0;
        let mut readable = true;
        loop {
            let message = match self
                .stream
                .direct_get_next_for_subject(subject, Some(next))
                .await
            {
                Ok(message) => message,
                Err(error) if error.kind() == DirectGetErrorKind::NotFound => break,
                Err(error) => return Err(io::Error::other(error)),
            };
            next = message.sequence + 1;
            last = message.sequence;
            let kind = Kind::of(&message.headers);
            if kind == Some(Kind::Rewrite) {
                entries.clear();
            }
            if readable && matches!(kind, Some(Kind::Rewrite | Kind::Append)) {
                let text = String::from_utf8_lossy(&message.payload);
                if let Err(error) = decode_lines(&text, &mut entries) {
                    tracing::warn!(%error, subject, "journal ends in an unreadable entry; ignoring it and what follows");
                    readable = false;
                }
            }
        }
        Ok((entries, last))
    }
}

impl JournalStore for NatsJournals {
    fn create<'a>(
        &'a self,
        id: Uuid,
        entries: &'a [Line],
    ) -> BoxFuture<'a, io::Result<Box<dyn RoomJournal>>> {
        async move {
            let lease = self.leases.acquire(id).await.map_err(|error| match error {
                LeaseError::Bucket(_) => io::Error::other(Unacknowledged(error.to_string())),
                LeaseError::HeldElsewhere { .. } | LeaseError::Lost(_) => {
                    io::Error::other(Revoked(error.to_string()))
                }
            })?;
            let mut journal = self.journal(id, 0, lease);
            journal
                .publish(Kind::Rewrite, encode_lines(entries), false)
                .await?;
            Ok(Box::new(journal) as Box<dyn RoomJournal>)
        }
        .boxed()
    }

    fn load_all(&self) -> BoxFuture<'_, Vec<Loaded>> {
        self.load_now().boxed()
    }

    /// JetStream acknowledged every write already; at shutdown (`all`), waits a little for the
    /// leases of the closed rooms to be given back.
    fn sync(&self, all: bool) -> BoxFuture<'_, ()> {
        async move {
            if all {
                self.leases.settle(SETTLE).await;
            }
        }
        .boxed()
    }
}
