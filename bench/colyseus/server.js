// The Colyseus peer of the server load benchmark (docs/benchmarks.md, bench/run.sh).
//
// A minimal two-player room doing the same work per action as aeroplane-server: the server
// rolls the die, checks whose turn it is, that a roll comes before a move and that the plane is
// 0..3, and broadcasts the result to both players. The "game" is a stand-in: each move advances
// the plane by the roll (mod 56), the turn passes after every move, and the room ends the game
// after ACTIONS_PER_GAME actions (about the length of a random game of ours). Messages use
// Colyseus's own wire format (ROOM_DATA frames, msgpack payloads), as its SDK would.
//
// Usage: node server.js [--listen HOST:PORT]   (default 127.0.0.1:2567)
// Install first: `npm ci` in this directory. @colyseus/core 0.18 asks for Node 22 or newer but
// runs on the Node 20 of Debian here (npm only warns).
'use strict';

const { Server, Room } = require('@colyseus/core');
const { WebSocketTransport } = require('@colyseus/ws-transport');

const ACTIONS_PER_GAME = 300;
const COLOURS = ['red', 'yellow'];

class DiceRoom extends Room {
  onCreate() {
    this.maxClients = 2;
    this.autoDispose = true;
    this.seats = []; // sessionIds, in join order: red first
    this.toAct = 0;
    this.pending = null; // the roll awaiting a move
    this.planes = [[-1, -1, -1, -1], [-1, -1, -1, -1]];
    this.event = 0;
    this.actions = 0;
    this.over = false;

    this.onMessage('roll', (client) => {
      const seat = this.seatOf(client);
      if (seat === undefined) return;
      if (this.pending !== null) return this.refuse(client, 'move_first');
      const value = 1 + Math.floor(Math.random() * 6);
      this.pending = value;
      this.actions += 1;
      this.broadcastEvent('rolled', { colour: COLOURS[seat], value, legal: [0, 1, 2, 3] });
    });

    this.onMessage('move', (client, message) => {
      const seat = this.seatOf(client);
      if (seat === undefined) return;
      if (this.pending === null) return this.refuse(client, 'roll_first');
      const plane = message && message.plane;
      if (!Number.isInteger(plane) || plane < 0 || plane > 3) {
        return this.refuse(client, 'bad_field');
      }
      const from = this.planes[seat][plane];
      const to = (from + this.pending + 56) % 56;
      this.planes[seat][plane] = to;
      this.pending = null;
      this.toAct = 1 - seat;
      this.actions += 1;
      this.broadcastEvent('moved', {
        colour: COLOURS[seat], plane, from, to, captures: [], finished: false, extra_roll: false,
      });
      if (this.actions >= ACTIONS_PER_GAME) {
        this.over = true;
        this.broadcastEvent('game_over', { winner: COLOURS[seat], reason: 'finished' });
      }
    });
  }

  onJoin(client) {
    this.seats.push(client.sessionId);
    if (this.seats.length === 2) {
      this.broadcastEvent('game_started', { red: this.seats[0], yellow: this.seats[1] });
    }
  }

  onLeave() {}

  /** The acting player's seat, or undefined (after refusing) when it is not their turn. */
  seatOf(client) {
    const seat = this.seats.indexOf(client.sessionId);
    if (this.over) { this.refuse(client, 'game_over'); return undefined; }
    if (this.seats.length < 2) { this.refuse(client, 'not_started'); return undefined; }
    if (seat !== this.toAct) { this.refuse(client, 'not_your_turn'); return undefined; }
    return seat;
  }

  refuse(client, code) {
    client.send('error', { code });
  }

  broadcastEvent(type, body) {
    this.event += 1;
    body.event = this.event;
    this.broadcast(type, body);
  }
}

function listenAddress() {
  const at = process.argv.indexOf('--listen');
  const text = at >= 0 ? process.argv[at + 1] : '127.0.0.1:2567';
  const colon = text.lastIndexOf(':');
  return { host: text.slice(0, colon), port: Number(text.slice(colon + 1)) };
}

const { host, port } = listenAddress();
const server = new Server({
  greet: false,
  // Colyseus's default 4 KiB payload limit; no per-message deflate (its default too).
  transport: new WebSocketTransport({ pingInterval: 15000 }),
});
server.define('dice', DiceRoom);
// The accept backlog of tokio's TcpListener::bind, which our server and the echo server use
// (Node's default of 511 overflows when a thousand rooms connect at once).
const BACKLOG = 1024;
server.listen(port, host, BACKLOG).then(() => {
  console.log(`colyseus bench room listening on ${host}:${port}`);
});
