use std::time::Duration;

use tokio::sync::mpsc::error::{SendError, TryRecvError, TrySendError};
use tokio::task::JoinHandle;

use super::{Sender, channel};

/// Sends `value` with a clone of `sender` from a task of its own, and lets that task run until
/// it waits (or has sent).
async fn send_in_a_task(
    sender: &Sender<i32>,
    value: i32,
) -> JoinHandle<Result<(), SendError<i32>>> {
    let sender = sender.clone();
    let sending = tokio::spawn(async move { sender.send(value).await });
    tokio::task::yield_now().await;
    sending
}

#[tokio::test(start_paused = true)]
async fn values_come_out_in_order_and_a_full_inbox_refuses_a_try() {
    let (sender, mut receiver) = channel(2);
    sender.try_send(1).unwrap();
    sender.send(2).await.unwrap();
    assert!(matches!(sender.try_send(3), Err(TrySendError::Full(3))));
    assert_eq!((sender.capacity(), sender.max_capacity()), (0, 2));
    assert_eq!(receiver.recv().await, Some(1));
    assert_eq!(sender.capacity(), 1);
    sender.try_send(3).unwrap();
    assert_eq!(receiver.try_recv(), Ok(2));
    assert_eq!(receiver.recv().await, Some(3));
    assert_eq!(receiver.try_recv(), Err(TryRecvError::Empty));
}

#[tokio::test(start_paused = true)]
async fn a_value_sent_now_gets_past_a_full_inbox_behind_what_is_queued_and_wakes_the_receiver() {
    let (sender, mut receiver) = channel(1);
    sender.try_send(1).unwrap();
    assert!(matches!(sender.try_send(2), Err(TrySendError::Full(2))));
    sender.send_now(3).unwrap();
    assert_eq!(sender.capacity(), 0);
    assert_eq!(receiver.recv().await, Some(1));
    assert_eq!(receiver.recv().await, Some(3));
    // A receiver waiting on an empty inbox is woken by it.
    let waiting = tokio::spawn(async move {
        let value = receiver.recv().await;
        (value, receiver)
    });
    tokio::task::yield_now().await;
    sender.send_now(4).unwrap();
    let (value, receiver) = waiting.await.unwrap();
    assert_eq!(value, Some(4));
    // Once the receiver is gone, the value comes back.
    drop(receiver);
    assert_eq!(sender.send_now(5), Err(5));
}

#[tokio::test(start_paused = true)]
async fn the_receiver_ends_once_every_sender_is_gone_and_the_inbox_is_empty() {
    let (sender, mut receiver) = channel(4);
    let other = sender.clone();
    sender.try_send("a").unwrap();
    drop(sender);
    other.try_send("b").unwrap();
    drop(other);
    assert_eq!(receiver.recv().await, Some("a"));
    assert_eq!(receiver.recv().await, Some("b"));
    assert_eq!(receiver.recv().await, None);
    assert_eq!(receiver.try_recv(), Err(TryRecvError::Disconnected));
}

#[tokio::test(start_paused = true)]
async fn a_waiting_receiver_wakes_for_a_value_and_for_the_last_sender_leaving() {
    let (sender, mut receiver) = channel(4);
    let reading = tokio::spawn(async move {
        let first = receiver.recv().await;
        let second = receiver.recv().await;
        (first, second)
    });
    tokio::task::yield_now().await;
    sender.try_send(7).unwrap();
    tokio::task::yield_now().await;
    drop(sender);
    let read = tokio::time::timeout(Duration::from_secs(10), reading)
        .await
        .expect("the receiver was never woken")
        .unwrap();
    assert_eq!(read, (Some(7), None));
}

#[tokio::test(start_paused = true)]
async fn a_send_to_a_full_inbox_waits_for_room() {
    let (sender, mut receiver) = channel(1);
    sender.try_send(1).unwrap();
    let sending = send_in_a_task(&sender, 2).await;
    assert!(!sending.is_finished(), "it waits while the inbox is full");
    assert_eq!(receiver.recv().await, Some(1));
    sending.await.unwrap().unwrap();
    assert_eq!(receiver.recv().await, Some(2));
}

#[tokio::test(start_paused = true)]
async fn every_waiting_sender_gets_in_even_when_the_receiver_takes_several_at_once() {
    let (sender, mut receiver) = channel(2);
    sender.try_send(0).unwrap();
    sender.try_send(0).unwrap();
    let senders: Vec<_> = (1..=3)
        .map(|value| {
            let sender = sender.clone();
            tokio::spawn(async move { sender.send(value).await })
        })
        .collect();
    tokio::task::yield_now().await;
    // Only the first take finds the inbox full and notifies a waiter; the room the second
    // leaves must reach the others all the same.
    assert_eq!((receiver.try_recv(), receiver.try_recv()), (Ok(0), Ok(0)));
    let mut got = Vec::new();
    for _ in 1..=3 {
        let value = tokio::time::timeout(Duration::from_secs(10), receiver.recv())
            .await
            .expect("a waiting sender was left waiting while the inbox had room");
        got.push(value.unwrap());
    }
    for sending in senders {
        sending.await.unwrap().unwrap();
    }
    got.sort_unstable();
    assert_eq!(got, [1, 2, 3]);
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_send_sends_nothing_and_passes_its_turn_on() {
    let (sender, mut receiver) = channel(1);
    sender.try_send(0).unwrap();
    let cancelled = send_in_a_task(&sender, 1).await;
    let waiting = send_in_a_task(&sender, 2).await;
    // The first waiter is notified of the room and cancelled before it runs.
    assert_eq!(receiver.recv().await, Some(0));
    cancelled.abort();
    let value = tokio::time::timeout(Duration::from_secs(10), receiver.recv())
        .await
        .expect("the other waiter never got the room");
    assert_eq!(value, Some(2));
    waiting.await.unwrap().unwrap();
    assert_eq!(receiver.try_recv(), Err(TryRecvError::Empty));
}

#[tokio::test(start_paused = true)]
async fn once_the_receiver_is_gone_sends_fail_and_waiting_senders_are_told() {
    let (sender, receiver) = channel(1);
    sender.try_send(0).unwrap();
    let waiting = send_in_a_task(&sender, 1).await;
    drop(receiver);
    let refused = tokio::time::timeout(Duration::from_secs(10), waiting)
        .await
        .expect("the waiting sender was never told")
        .unwrap();
    assert_eq!(refused.unwrap_err().0, 1);
    assert!(matches!(sender.try_send(2), Err(TrySendError::Closed(2))));
    assert_eq!(sender.send(3).await.unwrap_err().0, 3);
    assert_eq!(sender.capacity(), 0);
}

/// A value that holds a sender of the inbox it is queued in.
#[derive(Debug)]
struct Holder(#[allow(dead_code)] Sender<Holder>);

#[tokio::test(start_paused = true)]
async fn a_queued_value_holding_a_sender_of_its_own_inbox_is_dropped_with_the_receiver() {
    let (sender, receiver) = channel::<Holder>(2);
    sender.try_send(Holder(sender.clone())).unwrap();
    // Dropping the queued sender takes the inbox's lock: it must not be held then.
    drop(receiver);
    assert!(sender.try_send(Holder(sender.clone())).is_err());
}

#[tokio::test(start_paused = true)]
async fn a_weak_sender_does_not_keep_the_inbox_open() {
    let (sender, mut receiver) = channel(2);
    let weak = sender.downgrade();
    let upgraded = weak.upgrade().expect("a sender lives");
    drop(sender);
    upgraded.try_send(1).unwrap();
    drop(upgraded);
    assert!(weak.upgrade().is_none());
    assert_eq!(receiver.recv().await, Some(1));
    assert_eq!(receiver.recv().await, None);
}
