// A room session as the client lives it, without a page: what to make of each server message
// and what to send. It keeps the room's snapshot in step with the numbered events
// (`gamestate.js`), notices a skipped event number and asks for a fresh snapshot (`sync`), knows
// when a game action is waiting for its answer (`busy`), resends a board-independent action the
// server refused as `stale`, and keeps what the fairness check needs: the commitment announced
// before the first roll and every roll seen live. Rematch offers and the server's refusals are
// here too. Pure: no DOM, no WebSocket, no timers, tested under Node.
//
// `receive(message)` returns effects, plain objects the view carries out in order:
//
// - `{type: 'welcome', role, colour, token}`: the server placed this client (a player saves its
//   seat token); the snapshot that came with it follows as a `snapshot` effect.
// - `{type: 'snapshot'}`: `state` was replaced (welcome or sync): draw everything again.
// - `{type: 'event', message}`: show this numbered event (animate a move), then `apply` it.
// - `{type: 'send', message}`: send this to the server, then report it with `sent`.
// - `{type: 'log', text, big, kind}`: a line for the room's messages (`big`: announce it too).
// - `{type: 'render'}`, `{type: 'render_next'}`: draw the room, or only what comes after the game.
// - `{type: 'hint', message}`: point at the hinted plane.
// - `{type: 'seat_lost'}`: the seat token was refused; forget it and watch instead.
// - `{type: 'watch_instead'}`: the seats are taken; join again as a spectator.
// - `{type: 'identity_lost'}`: the player identity the join carried is unknown to the server;
//   renew it (`identity.js`) and join again.
// - `{type: 'rematch_seat', room_id, colour, token, ws_path}`: go to the rematch, in this seat.
//
// An event moves `state` on only when the view has shown it (`apply`, after the move's
// animation), so an action taken meanwhile carries the `seen` of the position on the screen:
// the stale rule (docs/protocol.md §2) is there so nobody acts on a position they have not seen.

import { applyEvent, permissions } from './gamestate.js';
import { PHRASES, colourName } from './messages.js';

/** The actions that do not depend on the board, resent after a `stale` refusal if still allowed. */
const RESENT_IF = {
  resign: 'resign',
  offer_draw: 'offerDraw',
  accept_draw: 'answerDraw',
  decline_draw: 'answerDraw',
  withdraw_draw: 'withdrawDraw',
};

const SYNC = { type: 'send', message: { type: 'sync' } };
const RENDER = { type: 'render' };
const RENDER_NEXT = { type: 'render_next' };

function log(text, big = false, kind = '') {
  return { type: 'log', text, big, kind };
}

export class RoomSession {
  /** `localNames`: the players' names of a same-device game ({red, yellow}), or null. */
  constructor({ localNames = null } = {}) {
    this.localNames = localNames;
    this.state = null; // the room's snapshot, as far as the view has shown it
    this.seat = null; // 'red' | 'yellow' | 'both' (same device) | null (spectator)
    this.awaitingSync = false; // a `sync` was asked for: events wait for the snapshot
    this.busy = false; // a game action was sent and its answer has not come yet
    this.pending = null; // {id, message} of that action
    this.retry = null; // an action refused as `stale`, to resend after the snapshot
    this.dieOwner = null; // whose roll the die shows, until the turn passes
    this.announced = null; // the commitment seen before the first roll
    this.observedRolls = null; // every roll seen live, when this client saw the game start
    this.lastReceived = null; // the last event number counted in `observedRolls`
    this.startAnnounced = false;
    this.rematchBy = new Set();
    this.rematchRoom = null; // the rematch's room, for a spectator to follow
    this.unsupported = new Set(); // actions this server does not know ('hint', 'undo')
  }

  /** What to do about one server message: a list of effects (see the top of this file). */
  receive(message) {
    switch (message.type) {
      case 'welcome':
        return this.welcome(message);
      case 'snapshot':
        this.awaitingSync = false;
        this.setSnapshot(message.snapshot);
        return [{ type: 'snapshot' }, ...this.resendAfterSync()];
      case 'error':
        return this.refused(message);
      case 'hint':
        return [{ type: 'hint', message }];
      case 'said':
        return [log(`${this.nameOf(message.colour)}: “${PHRASES[message.phrase] ?? message.phrase}”`, false, 'said')];
      case 'rematch_offered':
        this.rematchBy.add(message.by);
        return message.by === this.seat
          ? [RENDER_NEXT]
          : [log(`${this.nameOf(message.by)} wants a rematch.`, true), RENDER_NEXT];
      case 'rematch_ready':
        if (message.token) return [{ ...message, type: 'rematch_seat' }];
        this.rematchRoom = message.room_id;
        return [RENDER_NEXT];
      default:
        return this.event(message);
    }
  }

  /** Takes in an event the view has shown (an `event` effect's message); returns the new state. */
  apply(message) {
    this.state = applyEvent(this.state, message);
    return this.state;
  }

  /** What the viewer may do now (`gamestate.js` `permissions`). */
  allowed() {
    return permissions(this.state, this.seat);
  }

  /** The game action `message` carrying `seen`, the last event shown; null before any snapshot. */
  action(message) {
    return this.state ? { ...message, seen: this.state.event } : null;
  }

  /** The move of `plane`, or null when the viewer may not move now or is waiting for an answer. */
  move(plane) {
    if (!this.state || !this.allowed().move || this.busy) return null;
    return this.action({ type: 'move', plane });
  }

  /** Asks for a rematch with the browser's `clientSeed`; returns the message to send. */
  rematch(clientSeed) {
    this.rematchBy.add(this.seat);
    return { type: 'rematch', client_seed: clientSeed };
  }

  /**
   * Notes that `message` went out with request id `id` (null when not connected). A game action
   * (one carrying `seen`) makes the session busy until its events or its refusal come back.
   * Returns whether it did, that is whether the controls should be drawn again.
   */
  sent(message, id) {
    if (id == null || !message || !('seen' in message)) return false;
    this.pending = { id, message };
    this.busy = true;
    return true;
  }

  /** Sets the spectator count from the room's status; returns whether it changed. */
  countSpectators(count) {
    if (!this.state || this.state.spectators === count) return false;
    this.state.spectators = count;
    return true;
  }

  /** A player's name: the local name of a same-device game, the seat's name, or the colour. */
  nameOf(colour) {
    return this.localNames?.[colour] ?? this.state?.seats?.[colour]?.name ?? colourName(colour);
  }

  welcome(message) {
    const snapshot = message.snapshot;
    this.seat = message.role !== 'player' ? null : snapshot.mode === 'local' ? 'both' : message.colour;
    this.awaitingSync = false;
    if (this.observedRolls === null && snapshot.phase === 'waiting') {
      this.observedRolls = [];
      this.lastReceived = snapshot.event;
    } else if (this.observedRolls !== null && snapshot.event > this.lastReceived) {
      this.observedRolls = null; // events went by while this client was away
    }
    if (this.announced === null && snapshot.phase === 'waiting') {
      this.announced = snapshot.fairness.commitment;
    }
    const you = this.seat === 'both' ? 'both colours on this device'
      : this.seat ? colourName(this.seat) : 'a spectator';
    const effects = [
      { type: 'welcome', role: message.role, colour: message.colour, token: message.token },
      log(`You are ${you}.`),
    ];
    if (!this.startAnnounced && justStarted(snapshot)) {
      // A quick match or rematch starts before anyone connects: say so to whoever arrives.
      this.startAnnounced = true;
      effects.push(log('The game has started. Red rolls first.', true));
    }
    this.setSnapshot(snapshot);
    effects.push({ type: 'snapshot' });
    return effects;
  }

  setSnapshot(snapshot) {
    this.state = snapshot;
    this.busy = false;
    this.dieOwner = snapshot.game.phase.kind === 'awaiting_move' ? snapshot.game.to_act : null;
  }

  /**
   * A numbered event: the next one is shown; an old one, or any while a snapshot is awaited, is
   * dropped; a skipped number asks for a snapshot.
   */
  event(message) {
    if (typeof message.event !== 'number' || !this.state) return [];
    this.observe(message);
    if (this.awaitingSync || message.event <= this.state.event) return [];
    if (message.event !== this.state.event + 1) {
      this.awaitingSync = true;
      return [SYNC];
    }
    this.busy = false;
    if (message.type === 'rolled') this.dieOwner = message.colour;
    if (message.type === 'turn_passed') this.dieOwner = null;
    return [{ type: 'event', message }];
  }

  /**
   * Keeps every roll value this connection received, in event order, as long as it received
   * every event since before the first roll; a missing event number makes the list unknown.
   */
  observe(message) {
    if (this.observedRolls === null || message.event <= this.lastReceived) return;
    if (message.event !== this.lastReceived + 1) {
      this.observedRolls = null;
      return;
    }
    this.lastReceived = message.event;
    if (message.type === 'rolled') this.observedRolls.push(message.value);
  }

  /** An `error` answer: the action it refused is answered; some codes need more than a line. */
  refused(message) {
    this.busy = false;
    const refused = this.pending && this.pending.id === message.id ? this.pending.message : null;
    this.pending = null;
    const effects = [];
    switch (message.code) {
      case 'stale':
        this.retry = refused;
        this.awaitingSync = true;
        effects.push(SYNC);
        break;
      case 'bad_token':
        effects.push(log('Your seat could not be reclaimed; you are watching instead.', true), { type: 'seat_lost' });
        break;
      case 'bad_identity':
        effects.push(log('The server did not recognise this browser\'s player; joining again.'), { type: 'identity_lost' });
        break;
      case 'room_full':
      case 'seat_taken':
        effects.push(log('The seats are taken; you are watching.', true), { type: 'watch_instead' });
        break;
      case 'unknown_type':
        this.unsupported.add('hint').add('undo');
        effects.push(log('This server does not offer that yet.'));
        break;
      case 'nothing_to_undo':
        effects.push(log('There is no move of yours to take back.'));
        break;
      case 'rate_limited':
        effects.push(log('One quick message every two seconds, please.'));
        break;
      default:
        effects.push(log(message.message || message.code, true));
    }
    if (this.state) effects.push(RENDER);
    return effects;
  }

  /**
   * After a `stale` refusal and the snapshot that follows, sends again an action that does not
   * depend on the board (resign and the draw actions) if it is still allowed; a roll or a move is
   * left to the player, who now sees the new position.
   */
  resendAfterSync() {
    const retry = this.retry;
    this.retry = null;
    const permission = RESENT_IF[retry?.type];
    if (!permission || !this.allowed()[permission]) return [];
    const { seen: _old, ...action } = retry;
    return [{ type: 'send', message: this.action(action) }];
  }
}

/** Whether a snapshot shows a game that has just started: every plane at base, Red to roll. */
function justStarted(snapshot) {
  const game = snapshot.game;
  const planes = game.planes.red.concat(game.planes.yellow);
  return snapshot.phase === 'playing' && planes.every((p) => p === 'base')
    && game.phase.kind === 'awaiting_roll' && game.to_act === 'red';
}
