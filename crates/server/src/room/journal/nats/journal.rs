//! One room's journal on the stream: fenced writes, rollups, tombstones and markers, each
//! acknowledged by JetStream before the room goes on.

use std::io;

use async_nats::HeaderMap;
use async_nats::header::NATS_EXPECTED_LAST_SUBJECT_SEQUENCE;
use async_nats::jetstream::context::PublishErrorKind;
use async_nats::jetstream::stream;
use async_nats::jetstream::{self, Context};
use futures_util::future::{BoxFuture, FutureExt};
use uuid::Uuid;

use super::super::format::{Line, encode_lines};
use super::super::store::{Revoked, RoomJournal};
use super::{KIND, KeptLease, Kind, NO_LEADER_RETRY, RETRY_PAUSE};

/// The subject of room `id`'s journal.
pub(super) fn subject(id: Uuid) -> String {
    format!("aeroplane.journal.{id}")
}

/// One room's journal: its subject, the last sequence it knows, and its room's lease.
#[derive(Debug)]
pub(super) struct NatsJournal {
    pub(super) jetstream: Context,
    pub(super) stream: stream::Stream,
    pub(super) id: Uuid,
    pub(super) subject: String,
    /// The subject's last sequence as this journal wrote or read it; a write expects it.
    pub(super) last: u64,
    pub(super) lease: KeptLease,
}

impl NatsJournal {
    /// Publishes one message and waits for JetStream's acknowledgement; `fenced`: only if the
    /// subject's last sequence is still [`NatsJournal::last`].
    pub(super) async fn publish(
        &mut self,
        kind: Kind,
        payload: String,
        fenced: bool,
    ) -> io::Result<()> {
        if self.lease.revoked().is_cancelled() {
            return Err(io::Error::other(Revoked(format!(
                "the lease of room {} was lost",
                self.id
            ))));
        }
        let mut headers = HeaderMap::new();
        headers.insert(KIND, kind.as_str());
        if matches!(kind, Kind::Rewrite | Kind::Deleted) {
            headers.insert("Nats-Rollup", "sub");
        }
        if fenced {
            headers.insert(NATS_EXPECTED_LAST_SUBJECT_SEQUENCE, self.last.to_string());
        }
        let refused = |error: jetstream::context::PublishError| {
            if error.kind() == PublishErrorKind::WrongLastSequence {
                io::Error::other(Revoked(format!(
                    "room {} was written by another writer since sequence {}",
                    self.id, self.last
                )))
            } else {
                io::Error::other(error)
            }
        };
        let started = std::time::Instant::now();
        let acknowledged = loop {
            let tried = async {
                self.jetstream
                    .publish_with_headers(
                        self.subject.clone(),
                        headers.clone(),
                        payload.clone().into(),
                    )
                    .await?
                    .await
            }
            .await;
            // No responders: nothing was stored, so trying again cannot write twice.
            let unanswered = tried
                .as_ref()
                .is_err_and(|error| error.kind() == PublishErrorKind::StreamNotFound);
            if !unanswered || started.elapsed() >= NO_LEADER_RETRY {
                break tried;
            }
            if self.lease.revoked().is_cancelled() {
                return Err(io::Error::other(Revoked(format!(
                    "the lease of room {} was lost",
                    self.id
                ))));
            }
            tokio::time::sleep(RETRY_PAUSE).await;
        };
        crate::metrics::journal_appended(acknowledged.is_ok(), started.elapsed().as_secs_f64());
        let acknowledged = acknowledged.map_err(refused)?;
        self.last = acknowledged.sequence;
        Ok(())
    }
}

impl RoomJournal for NatsJournal {
    fn append<'a>(&'a mut self, entries: &'a [Line]) -> BoxFuture<'a, io::Result<()>> {
        self.publish(Kind::Append, encode_lines(entries), true)
            .boxed()
    }

    fn rewrite<'a>(&'a mut self, entries: &'a [Line]) -> BoxFuture<'a, io::Result<()>> {
        self.publish(Kind::Rewrite, encode_lines(entries), true)
            .boxed()
    }

    fn delete(mut self: Box<Self>) -> BoxFuture<'static, io::Result<()>> {
        async move {
            self.publish(Kind::Deleted, String::new(), true).await?;
            self.stream
                .purge()
                .filter(&self.subject)
                .await
                .map_err(io::Error::other)?;
            Ok(())
        }
        .boxed()
    }

    fn set_aside(mut self: Box<Self>) -> BoxFuture<'static, io::Result<()>> {
        async move { self.publish(Kind::Aside, String::new(), true).await }.boxed()
    }

    fn revoked(&self) -> Option<tokio_util::sync::CancellationToken> {
        Some(self.lease.revoked().clone())
    }
}
