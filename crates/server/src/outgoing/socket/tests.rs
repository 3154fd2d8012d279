//! The socket queue's tests: frames past a full socket, around the staged size, a full queue
//! and a discard, the wait for room, and the frame headers.

use std::time::Duration;

use tokio::io::AsyncReadExt as _;
use tokio::net::{TcpListener, TcpStream};

use super::*;

/// A connected pair of sockets on loopback: this side's queue and the other side.
async fn pair() -> (SocketQueue, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let client = TcpStream::connect(listener.local_addr().unwrap());
    let (client, accepted) = tokio::join!(client, listener.accept());
    let (client, accepted) = (client.unwrap(), accepted.unwrap().0);
    // Small buffers, so that the socket is full after a few frames.
    socket2::SockRef::from(&accepted)
        .set_send_buffer_size(4096)
        .unwrap();
    socket2::SockRef::from(&client)
        .set_recv_buffer_size(4096)
        .unwrap();
    let (_read, write) = accepted.into_split();
    (SocketQueue::new(write, Arc::default()), client)
}

/// Reads `count` unmasked text frames (of any length under 64 KiB).
async fn read_frames(client: &mut TcpStream, count: usize) -> Vec<String> {
    let mut frames = Vec::new();
    for _ in 0..count {
        let mut header = [0u8; 2];
        client.read_exact(&mut header).await.unwrap();
        assert_eq!(header[0], 0x81, "a final text frame");
        let length = match header[1] {
            126 => usize::from(client.read_u16().await.unwrap()),
            length => usize::from(length),
        };
        let mut payload = vec![0u8; length];
        client.read_exact(&mut payload).await.unwrap();
        frames.push(String::from_utf8(payload).unwrap());
    }
    frames
}

/// Queues `texts` as text frames, flushing after every `every`-th one and at the end.
fn queue_flushing_every(queue: &SocketQueue, texts: &[String], every: usize) {
    for (number, text) in texts.iter().enumerate() {
        queue
            .push(Chunk::Text(text.as_str().into()), usize::MAX)
            .unwrap();
        if number % every == 0 {
            queue.flush();
        }
    }
    queue.flush();
}

/// Writes what is queued as the socket takes it while the client reads `count` frames.
async fn write_and_read_back(
    queue: &SocketQueue,
    client: &mut TcpStream,
    count: usize,
) -> Vec<String> {
    let writer = async {
        while queue.queued() > 0 {
            queue.write_when_ready().await;
        }
    };
    tokio::join!(writer, read_frames(client, count)).1
}

#[tokio::test]
async fn frames_queued_past_a_full_socket_all_arrive_whole_and_in_order() {
    let (queue, mut client) = pair().await;
    let sent: Vec<String> = (0..3_000)
        .map(|number| {
            format!(
                "{{\"frame\":{number},\"padding\":\"{}\"}}",
                "x".repeat(number % 60)
            )
        })
        .collect();
    queue_flushing_every(&queue, &sent, 7);
    assert!(
        queue.is_waiting(),
        "a client that reads nothing fills the socket"
    );
    assert_eq!(
        write_and_read_back(&queue, &mut client, sent.len()).await,
        sent
    );
    assert!(
        !queue.pending().chunks.spilled(),
        "a drained backlog leaves the heap: the queue is inline again"
    );
}

#[tokio::test]
async fn frames_below_and_above_the_staged_size_arrive_whole_and_in_order() {
    let (queue, mut client) = pair().await;
    // Lengths around `STAGE`: a write is a `send` of a copy or a `writev`, and a full
    // socket splits both anywhere.
    let lengths = [
        1,
        STAGE - 2,
        STAGE - 1,
        STAGE,
        STAGE + 1,
        3 * STAGE,
        40,
        125,
        126,
    ];
    let sent: Vec<String> = (0..90)
        .map(|number| "y".repeat(lengths[number % lengths.len()]) + &number.to_string())
        .collect();
    queue_flushing_every(&queue, &sent, 3);
    assert_eq!(
        write_and_read_back(&queue, &mut client, sent.len()).await,
        sent
    );
}

#[tokio::test(start_paused = true)]
async fn a_full_socket_is_waited_for_not_found_writable_at_once() {
    let (queue, mut client) = pair().await;
    queue.socket.as_ref().writable().await.unwrap();
    let frame = "z".repeat(1_000);
    let mut pushed = 0;
    while !queue.is_waiting() {
        queue
            .push(Chunk::Text(frame.as_str().into()), usize::MAX)
            .unwrap();
        queue.flush();
        pushed += 1;
    }
    // The write that found the socket full was a `send(2)` of our own: the wait for room
    // must still wait (a wait that ended at once would make the connection's task spin on
    // a full socket). The clock is paused: the second passes at once when nothing happens.
    let waited = tokio::time::timeout(Duration::from_secs(1), queue.write_when_ready()).await;
    assert!(waited.is_err(), "waits while the client reads nothing");
    let read = write_and_read_back(&queue, &mut client, pushed).await;
    assert!(read.iter().all(|text| *text == frame) && read.len() == pushed);
}

#[tokio::test]
async fn frames_left_behind_a_full_socket_are_copied_out_of_their_frame_buffer() {
    use aeroplane_protocol::server::{ErrorMessage, ServerMessage};

    let (queue, mut client) = pair().await;
    let message = ServerMessage::Error(ErrorMessage {
        id: None,
        code: aeroplane_protocol::error::ErrorCode::Malformed,
        message: "y".repeat(1_000),
    });
    let mut sent = Vec::new();
    while !queue.is_waiting() {
        let frame = crate::outgoing::encode(&message);
        queue.push(Chunk::Text(frame.clone()), usize::MAX).unwrap();
        queue.flush();
        sent.push(frame);
    }
    // One more behind the full socket: queued as a copy at once.
    let last = crate::outgoing::encode(&message);
    queue.push(Chunk::Text(last.clone()), usize::MAX).unwrap();
    sent.push(last);
    {
        let pending = queue.pending();
        assert!(!pending.chunks.is_empty());
        for chunk in &pending.chunks {
            let Chunk::Kept(kept) = chunk else {
                panic!("a frame waits in a frame buffer: {chunk:?}");
            };
            assert!(
                sent.iter()
                    .all(|frame| frame.as_bytes().as_ptr() != kept.as_bytes().as_ptr()),
                "a kept frame is a copy of its own"
            );
        }
    }
    let read = write_and_read_back(&queue, &mut client, sent.len()).await;
    assert!(read.iter().all(|text| *text == message.to_json()));
}

#[tokio::test]
async fn a_queue_that_is_full_refuses_a_frame_and_a_discard_keeps_a_frame_begun() {
    let (queue, mut client) = pair().await;
    let frame = |text: &str| Chunk::Text(text.into());
    queue.push(frame("one"), 2).unwrap();
    queue.push(frame("two"), 2).unwrap();
    assert_eq!(queue.push(frame("three"), 2), Err(SendError::Full));
    queue.discard();
    queue.push(frame("four"), 2).unwrap();
    queue.flush();
    assert_eq!(read_frames(&mut client, 1).await, ["four"]);
}

#[test]
fn text_headers_are_those_of_unmasked_final_text_frames() {
    let mut header = [0u8; MAX_HEADER];
    assert_eq!(text_header(&mut header, 5), 2);
    assert_eq!(header[..2], [0x81, 5]);
    assert_eq!(text_header(&mut header, 300), 4);
    assert_eq!(header[..4], [0x81, 126, 1, 44]);
    assert_eq!(text_header(&mut header, 70_000), 10);
    assert_eq!(header[..2], [0x81, 127]);
    for length in [0, 125, 126, 65_535, 65_536, 1 << 40] {
        assert_eq!(
            text_header_len(length),
            text_header(&mut header, length),
            "{length}"
        );
    }
}
