//! A room's inbox: a bounded channel of many senders and one receiver, laid out so that a send
//! and its receive touch two cache lines.
//!
//! Why not tokio's `mpsc`, which the room used until stop 39 of issue 18: it is built for
//! senders and a receiver on different cores, so it keeps the semaphore, the sending position
//! and the receiver's waker on cache lines of their own, and a value's slot and its block's
//! ready bits on two more. Under load every room's inbox is cold when a frame arrives (1,000
//! rooms take turns on one core), and each of those lines is a miss: the profile put the
//! channel at about 3% of the server's CPU, nearly all of it first touches (the semaphore's
//! line alone, at the connection's `try_send`, was 1%). It also allocated a block of 32 slots
//! for every room, idle or not (1.5 KiB). The channel crates looked at do no better here:
//! async-channel's queue pads its head and tail the same way and allocates every slot up
//! front, and flume allocates a waiter at every wait of its async receiver.
//!
//! Here everything a send and a receive need (the lock, the queue's bounds, the receiver's
//! waker, the capacity and the count of senders) is one [`Mutex`] on one 64-byte line, and the
//! value goes into a [`VecDeque`] grown on demand (a room rarely holds more than two). Only a
//! sender that finds the inbox full waits, on a [`Notify`] on the next line, which the receiver
//! touches only when it takes a value from a full inbox. A cache simulation of 1,000 rooms
//! counted 4.9% fewer L2 misses per action with it, and an idle room of two is about 2 KiB
//! smaller (docs/benchmarks.md, stop 39).
//!
//! The semantics are those of tokio's bounded channel, as far as the server uses them: `send`
//! waits for room and fails once the receiver is gone, `try_send` fails with `Full` or
//! `Closed`, `recv` is cancel-safe and answers `None` once every sender is gone and the queue is
//! empty, and a [`WeakSender`] does not keep the channel open.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Poll, Waker};

use tokio::sync::Notify;
use tokio::sync::mpsc::error::{SendError, TryRecvError, TrySendError};

/// A bounded inbox of capacity `capacity` (at least 1), its sender and its receiver.
pub fn channel<T>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    let capacity = u32::try_from(capacity.max(1)).unwrap_or(u32::MAX);
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            queue: VecDeque::new(),
            receiver: None,
            senders: 1,
            capacity,
        }),
        room: Notify::new(),
        waiting: AtomicUsize::new(0),
        max_capacity: capacity,
    });
    (
        Sender {
            shared: shared.clone(),
        },
        Receiver { shared },
    )
}

/// What the senders and the receiver share: the state on the first line; on the next, what
/// only a sender that found the inbox full needs, and a metric.
#[repr(C, align(64))]
#[derive(Debug)]
struct Shared<T> {
    state: Mutex<State<T>>,
    /// Notified when a value leaves a full inbox, and when the receiver goes.
    room: Notify,
    /// Senders waiting for room.
    waiting: AtomicUsize,
    /// The capacity the inbox was made with (`State::capacity` is 0 once it is closed).
    max_capacity: u32,
}

/// The state under the lock: 56 bytes, so that with the lock it fills one cache line
/// (`room/sizes.rs` checks it).
#[derive(Debug)]
pub(super) struct State<T> {
    queue: VecDeque<T>,
    /// The receiver's waker while it waits for a value.
    receiver: Option<Waker>,
    /// Live senders (a [`WeakSender`] is not one).
    senders: u32,
    /// How many values the queue may hold; 0 once the receiver is gone.
    capacity: u32,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // Nothing panics while the lock is held but an allocation failure, after which the
        // state is still whole.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The sending side; clone it for each sender.
#[derive(Debug)]
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// A sender that does not keep the inbox open; [`WeakSender::upgrade`] makes it a sender while
/// some other sender lives.
#[derive(Debug)]
pub struct WeakSender<T> {
    shared: Arc<Shared<T>>,
}

/// The receiving side.
#[derive(Debug)]
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
}

impl<T> Sender<T> {
    /// Puts `value` in the inbox if it has room, without waiting.
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        self.put(value, false)
    }

    /// Puts `value` in the inbox even when it is full, behind what is queued; fails only once
    /// the receiver is gone. For the rare command that must neither wait nor be lost (a
    /// shutdown's stop, `Registry::stop_all`): the inbox then holds one more than its capacity.
    pub fn send_now(&self, value: T) -> Result<(), T> {
        self.put(value, true).map_err(TrySendError::into_inner)
    }

    /// Queues `value` and wakes the receiver; refused once the receiver is gone, and when the
    /// inbox is full unless `past_capacity`.
    #[inline]
    fn put(&self, value: T, past_capacity: bool) -> Result<(), TrySendError<T>> {
        let mut state = self.shared.lock();
        if state.capacity == 0 {
            return Err(TrySendError::Closed(value));
        }
        if !past_capacity && state.queue.len() >= state.capacity as usize {
            return Err(TrySendError::Full(value));
        }
        state.queue.push_back(value);
        let receiver = state.receiver.take();
        drop(state);
        if let Some(receiver) = receiver {
            receiver.wake();
        }
        Ok(())
    }

    /// Puts `value` in the inbox, waiting while it is full; fails once the receiver is gone.
    /// Cancel-safe: a cancelled send has sent nothing.
    pub async fn send(&self, value: T) -> Result<(), SendError<T>> {
        let mut value = match self.try_send(value) {
            Ok(()) => return Ok(()),
            Err(TrySendError::Closed(value)) => return Err(SendError(value)),
            Err(TrySendError::Full(value)) => value,
        };
        let waiting = Waiting::new(&self.shared);
        loop {
            // Registered before the inbox is looked at again, so that a value received in
            // between is not missed.
            let room = self.shared.room.notified();
            tokio::pin!(room);
            room.as_mut().enable();
            match self.try_send(value) {
                Ok(()) => break,
                Err(TrySendError::Closed(value)) => return Err(SendError(value)),
                Err(TrySendError::Full(back)) => value = back,
            }
            room.await;
        }
        drop(waiting);
        // The receiver notifies one waiter when a value leaves a full inbox; if it took more
        // before that waiter ran, the room left is passed on to the next.
        if self.shared.waiting.load(Ordering::Acquire) > 0 && self.capacity() > 0 {
            self.shared.room.notify_one();
        }
        Ok(())
    }

    /// A sender that does not keep the inbox open.
    pub fn downgrade(&self) -> WeakSender<T> {
        WeakSender {
            shared: self.shared.clone(),
        }
    }

    /// How many more values the inbox has room for now (0 once it is closed).
    pub fn capacity(&self) -> usize {
        let state = self.shared.lock();
        (state.capacity as usize).saturating_sub(state.queue.len())
    }

    /// The capacity the inbox was made with.
    pub fn max_capacity(&self) -> usize {
        self.shared.max_capacity as usize
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Sender<T> {
        self.shared.lock().senders += 1;
        Sender {
            shared: self.shared.clone(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.senders -= 1;
        let receiver = if state.senders == 0 {
            state.receiver.take()
        } else {
            None
        };
        drop(state);
        if let Some(receiver) = receiver {
            receiver.wake();
        }
    }
}

impl<T> WeakSender<T> {
    /// A sender, if some sender still lives.
    pub fn upgrade(&self) -> Option<Sender<T>> {
        let mut state = self.shared.lock();
        if state.senders == 0 {
            return None;
        }
        state.senders += 1;
        Some(Sender {
            shared: self.shared.clone(),
        })
    }
}

impl<T> Receiver<T> {
    /// The next value; `None` once every sender is gone and the inbox is empty. Cancel-safe.
    pub async fn recv(&mut self) -> Option<T> {
        poll_fn(|cx| {
            let state = self.shared.lock();
            match self.take(state) {
                Ok(value) => Poll::Ready(Some(value)),
                Err((TryRecvError::Disconnected, _)) => Poll::Ready(None),
                Err((TryRecvError::Empty, mut state)) => {
                    if !state
                        .receiver
                        .as_ref()
                        .is_some_and(|waker| waker.will_wake(cx.waker()))
                    {
                        state.receiver = Some(cx.waker().clone());
                    }
                    Poll::Pending
                }
            }
        })
        .await
    }

    /// The next value if one is there.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        self.take(self.shared.lock()).map_err(|(error, _)| error)
    }

    /// Takes the first value, under the lock `state`; gives the lock back when there is none.
    fn take<'a>(
        &self,
        mut state: MutexGuard<'a, State<T>>,
    ) -> Result<T, (TryRecvError, MutexGuard<'a, State<T>>)> {
        let was_full = state.queue.len() >= state.capacity as usize;
        let Some(value) = state.queue.pop_front() else {
            let error = if state.senders == 0 {
                TryRecvError::Disconnected
            } else {
                TryRecvError::Empty
            };
            return Err((error, state));
        };
        drop(state);
        // Only a sender that found the inbox full waits; nobody waits for room otherwise.
        if was_full {
            self.shared.room.notify_one();
        }
        Ok(value)
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.capacity = 0;
        let queued = std::mem::take(&mut state.queue);
        drop(state);
        // Dropped outside the lock: a value may hold a sender of this very inbox.
        drop(queued);
        self.shared.room.notify_waiters();
    }
}

/// Counts a sender as waiting for room while it lives.
struct Waiting<'a, T> {
    shared: &'a Shared<T>,
}

impl<'a, T> Waiting<'a, T> {
    fn new(shared: &'a Shared<T>) -> Waiting<'a, T> {
        shared.waiting.fetch_add(1, Ordering::AcqRel);
        Waiting { shared }
    }
}

impl<T> Drop for Waiting<'_, T> {
    fn drop(&mut self) {
        self.shared.waiting.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests;
