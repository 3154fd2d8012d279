// One room's WebSocket: joins on every (re)connect, reconnects after a drop with growing delays,
// pings to keep the line alive and notices when the server stops answering.

const PING_EVERY_MS = 15000;
const PONG_TIMEOUT_MS = 10000;
const RETRY_DELAYS_MS = [300, 700, 1500, 3000, 5000];
// Close codes after which reconnecting would be wrong (docs/protocol.md §6): the room closed,
// the client broke the protocol, or another connection took this seat with its token.
const FINAL_CLOSE_CODES = new Set([1000, 4000, 4001]);

export class RoomConnection {
  /**
   * `url`: the room's WebSocket URL. `joinMessage()`: the `join` to send on every connect (it is
   * asked each time, so it carries the latest seat token). `onMessage(message)`: every server
   * message. `onStatus(status)`: 'connecting', 'open', 'reconnecting' or 'closed' (with the close event).
   */
  constructor({ url, joinMessage, onMessage, onStatus }) {
    this.url = url;
    this.joinMessage = joinMessage;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.socket = null;
    this.stopped = false;
    this.attempt = 0;
    this.nextId = 1;
    this.pingTimer = null;
    this.pongTimer = null;
  }

  connect() {
    this.stopped = false;
    this.onStatus(this.attempt === 0 ? 'connecting' : 'reconnecting');
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.addEventListener('open', () => {
      this.attempt = 0;
      this.send(this.joinMessage());
      this.startPings();
    });
    socket.addEventListener('message', (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === 'pong') {
        clearTimeout(this.pongTimer);
        return;
      }
      if (message.type === 'welcome') this.onStatus('open');
      this.onMessage(message);
    });
    socket.addEventListener('close', (event) => {
      if (this.socket !== socket) return;
      this.stopPings();
      this.socket = null;
      if (this.stopped || FINAL_CLOSE_CODES.has(event.code)) {
        this.stopped = true;
        this.onStatus('closed', event);
        return;
      }
      this.onStatus('reconnecting', event);
      const delay = RETRY_DELAYS_MS[Math.min(this.attempt, RETRY_DELAYS_MS.length - 1)];
      this.attempt += 1;
      this.retryTimer = setTimeout(() => this.connect(), delay);
    });
  }

  /** Sends a message with a fresh request id; returns the id (or null when not connected). */
  send(message) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return null;
    const id = this.nextId;
    this.nextId += 1;
    this.socket.send(JSON.stringify({ ...message, id }));
    return id;
  }

  startPings() {
    this.stopPings();
    this.pingTimer = setInterval(() => {
      this.send({ type: 'ping' });
      clearTimeout(this.pongTimer);
      // No pong in time: the line is dead even if the browser has not noticed; start again.
      this.pongTimer = setTimeout(() => this.socket?.close(), PONG_TIMEOUT_MS);
    }, PING_EVERY_MS);
  }

  stopPings() {
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
  }

  /** Closes for good (leaving the page); no reconnect follows. */
  close() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.stopPings();
    if (this.socket) {
      this.send({ type: 'leave' });
      this.socket.close(1000);
    } else {
      this.onStatus('closed');
    }
  }
}
