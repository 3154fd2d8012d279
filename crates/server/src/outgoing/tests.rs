//! A closer's wake reaches its waiter whether or not the waiter registered at this wait; frames
//! are cut from one buffer, which is taken back once they are gone.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use aeroplane_protocol::error::CloseCode;

use super::{Closer, FRAME_BUFFER, encode};

/// A waker that counts its wakes.
#[derive(Default)]
struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl Count {
    fn wakes(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// Polls one wait of `closer`'s owner once with `waker`.
fn poll_owner(closer: &Closer, waker: &Waker) -> Poll<()> {
    pin!(closer.woken_by_owner()).poll(&mut Context::from_waker(waker))
}

/// Polls one wait of `closer` through [`Closer::woken`] once with `waker`.
fn poll_other(closer: &Closer, waker: &Waker) -> Poll<()> {
    pin!(closer.woken()).poll(&mut Context::from_waker(waker))
}

#[test]
fn an_owner_that_registered_once_is_woken_at_every_later_wait() {
    let closer = Closer::default();
    let count = Arc::new(Count::default());
    let waker = Waker::from(count.clone());
    for round in 1..=3 {
        // From the second wait on, nothing is registered: the waker left there is used.
        assert_eq!(poll_owner(&closer, &waker), Poll::Pending);
        closer.wake();
        assert_eq!(count.wakes(), round, "the wake did not reach the owner");
        assert_eq!(poll_owner(&closer, &waker), Poll::Ready(()));
    }
}

#[test]
fn a_wake_before_the_wait_is_seen_at_once_and_only_once() {
    let closer = Closer::default();
    let waker = Waker::from(Arc::new(Count::default()));
    assert_eq!(poll_owner(&closer, &waker), Poll::Pending);
    closer.wake();
    assert_eq!(poll_owner(&closer, &waker), Poll::Ready(()));
    assert_eq!(poll_owner(&closer, &waker), Poll::Pending);
    closer.close(CloseCode::RoomClosed);
    assert_eq!(poll_owner(&closer, &waker), Poll::Ready(()));
}

#[test]
fn every_wait_through_woken_registers_its_waker() {
    let closer = Closer::default();
    let (first, second) = (Arc::new(Count::default()), Arc::new(Count::default()));
    assert_eq!(
        poll_other(&closer, &Waker::from(first.clone())),
        Poll::Pending
    );
    assert_eq!(
        poll_other(&closer, &Waker::from(second.clone())),
        Poll::Pending
    );
    closer.wake();
    assert_eq!((first.wakes(), second.wakes()), (0, 1));
}

#[test]
fn the_owner_registers_again_after_a_wait_through_woken() {
    let closer = Closer::default();
    let (owner, other) = (Arc::new(Count::default()), Arc::new(Count::default()));
    let owner_waker = Waker::from(owner.clone());
    assert_eq!(poll_owner(&closer, &owner_waker), Poll::Pending);
    assert_eq!(
        poll_other(&closer, &Waker::from(other.clone())),
        Poll::Pending
    );
    // The other waker replaced the owner's: the owner's next wait puts its own back.
    assert_eq!(poll_owner(&closer, &owner_waker), Poll::Pending);
    closer.wake();
    assert_eq!((owner.wakes(), other.wakes()), (1, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wake_from_another_thread_ends_an_owners_wait_that_registered_nothing() {
    let closer = Arc::new(Closer::default());
    for _ in 0..100 {
        let waker = closer.clone();
        let woken = tokio::spawn(async move {
            tokio::task::yield_now().await;
            waker.wake();
        });
        closer.woken_by_owner().await;
        woken.await.unwrap();
    }
}

/// A `pong` for request `id`: a short message.
fn pong(id: u64) -> aeroplane_protocol::server::ServerMessage {
    aeroplane_protocol::server::ServerMessage::Pong(aeroplane_protocol::server::Pong {
        id: Some(id),
    })
}

#[test]
fn frames_are_cut_from_one_buffer_that_is_taken_back_once_they_are_gone() {
    let first = encode(&pong(1));
    let second = encode(&pong(2));
    assert_eq!(first.as_bytes(), pong(1).to_json().as_bytes());
    assert_eq!(second.as_bytes(), pong(2).to_json().as_bytes());
    let start = first.as_bytes().as_ptr();
    assert_eq!(
        second.as_bytes().as_ptr(),
        start.wrapping_add(first.as_bytes().len()),
        "the second frame follows the first in the same buffer"
    );
    drop((first, second));
    // Once the buffer is used up, the next frame starts it again: nothing else holds it.
    let mut id = 3;
    loop {
        let frame = encode(&pong(id));
        assert_eq!(frame.as_bytes(), pong(id).to_json().as_bytes());
        if frame.as_bytes().as_ptr() == start {
            break;
        }
        id += 1;
        assert!(id < FRAME_BUFFER as u64, "the buffer was never taken back");
    }
    // A frame still held keeps its bytes: the next ones go to another buffer.
    let held = encode(&pong(0));
    for id in 1..FRAME_BUFFER as u64 / 8 {
        encode(&pong(id));
    }
    assert_eq!(held.as_bytes(), pong(0).to_json().as_bytes());
}
