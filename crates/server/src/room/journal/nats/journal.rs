//! One room's journal on the stream: fenced writes, rollups, tombstones and markers, each
//! acknowledged by JetStream before the room goes on.

use std::io;

use async_nats::HeaderMap;
use async_nats::header::{NATS_EXPECTED_LAST_SUBJECT_SEQUENCE, NATS_MESSAGE_ID};
use async_nats::jetstream::context::PublishErrorKind;
use async_nats::jetstream::stream;
use async_nats::jetstream::{self, Context};
use futures_util::future::{BoxFuture, FutureExt};
use uuid::Uuid;

use super::super::format::{Line, encode_lines};
use super::super::store::{Revoked, RoomJournal, Unacknowledged};
use super::{FIRST_TRY_WAIT, KIND, KeptLease, Kind, NO_LEADER_RETRY, RETRY_PAUSE};

/// The subject of room `id`'s journal.
pub(super) fn subject(id: Uuid) -> String {
    format!("aeroplane.journal.{id}")
}

/// The refusal of a write whose room's lease was lost.
fn lease_lost(id: Uuid) -> io::Error {
    io::Error::other(Revoked(format!("the lease of room {id} was lost")))
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
            return Err(lease_lost(self.id));
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
                // Timed out, or no server answered for longer than the retry: the write may or
                // may not be stored, and nothing of it may be sent.
                io::Error::other(Unacknowledged(format!("room {}: {error}", self.id)))
            }
        };
        // A write tried again is stored once: JetStream keeps the first message of an id (within
        // the stream's duplicate window, two minutes) and answers a later one with its sequence.
        headers.insert(NATS_MESSAGE_ID, Uuid::new_v4().to_string());
        let id = self.id;
        let revoked = self.lease.revoked().clone();
        let started = std::time::Instant::now();
        let mut wait = FIRST_TRY_WAIT;
        let mut retries = 0_u32;
        let acknowledged = loop {
            // Each try waits for its acknowledgement at most `wait` (doubled after each try that
            // timed out), and never past the retry's end: a try lost with its connection is tried
            // again on the next one soon after.
            let wait_now = wait.min(NO_LEADER_RETRY.saturating_sub(started.elapsed()));
            let tried = async {
                let sent = self.jetstream.publish_with_headers(
                    self.subject.clone(),
                    headers.clone(),
                    payload.clone().into(),
                );
                tokio::time::timeout(wait_now, async { sent.await?.await })
                    .await
                    .unwrap_or_else(|_| Err(PublishErrorKind::TimedOut.into()))
            };
            let tried = tokio::select! {
                tried = tried => tried,
                // The lease lapsed while the write waited (a broker out of reach): whatever
                // becomes of the write, the room is another node's now.
                () = revoked.cancelled() => {
                    crate::metrics::journal_appended(false, started.elapsed().as_secs_f64());
                    return Err(lease_lost(id));
                }
            };
            // No responders (nothing was stored), or no acknowledgement in time (the connection
            // lost with the write in flight, perhaps stored): trying again, under the same id,
            // writes it once either way.
            let kind = tried.as_ref().err().map(|error| error.kind());
            if kind == Some(PublishErrorKind::TimedOut) {
                wait = (wait * 2).min(NO_LEADER_RETRY);
            }
            let again = matches!(
                kind,
                Some(PublishErrorKind::StreamNotFound | PublishErrorKind::TimedOut)
            );
            if !again || started.elapsed() >= NO_LEADER_RETRY {
                break tried;
            }
            retries += 1;
            if let (1, Err(error)) = (retries, &tried) {
                tracing::warn!(
                    room_id = %id,
                    %error,
                    "a journal write was not acknowledged; trying it again"
                );
            }
            tokio::time::sleep(RETRY_PAUSE).await;
        };
        crate::metrics::journal_appended(acknowledged.is_ok(), started.elapsed().as_secs_f64());
        if retries > 0 && acknowledged.is_ok() {
            tracing::info!(
                room_id = %id,
                tries = retries + 1,
                waited_ms = started.elapsed().as_millis(),
                "a journal write tried again was acknowledged"
            );
        }
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
