// A table room's session (protocol 2: the editions `flights` and `classic`, or two to four
// players) without a page. It is the room session of `session.js` (event order, resync, the
// action awaiting its answer, the stale retry, the fairness bookkeeping, refusals) with what
// differs at a table: the snapshot holds `table` instead of `game`, a move arrives as several
// step events (launched, walked, jumped, flew, sent_home, arrived, then extra_roll or
// turn_passed), players leave play one by one (`player_out`) and a draw needs every other player
// in play. `applyTableEvent` is the one follower of that stream in the browser: the room view and
// the tests use it, and a skipped event number still asks the server for a snapshot, so the
// position on the screen is never one the server did not reach. Pure: no DOM, no socket.

import { clone } from './gamestate.js';
import { colourName } from './messages.js';
import { RoomSession } from './session.js';

/** The seating order of turns (clockwise); a table seats a subset of it. */
export const TURN_ORDER = ['red', 'green', 'yellow', 'blue'];

/** The events that move planes: shown on the board as steps of one move. */
export const STEP_EVENTS = new Set(['launched', 'walked', 'jumped', 'flew', 'sent_home', 'arrived', 'third_six']);

/** The seat of `colour` in a table position, or undefined. */
export function seatOf(table, colour) {
  return table.seats.find((seat) => seat.colour === colour);
}

/** The planes of every seated colour, {red: [4 positions], ...}, as `BoardView.setState` takes them. */
export function planesOf(table) {
  return Object.fromEntries(table.seats.map((seat) => [seat.colour, seat.planes]));
}

/** The seated colours of a table position in turn order. */
export function coloursOf(table) {
  return TURN_ORDER.filter((colour) => table.seats.some((seat) => seat.colour === colour));
}

/** The colours still in play (no place yet). */
export function inPlay(table) {
  return table.seats.filter((seat) => seat.place == null).map((seat) => seat.colour);
}

const FAIRNESS_SEEDS = ['red_seed', 'yellow_seed', 'blue_seed', 'green_seed'];

function setPlanes(table, colour, planes, to) {
  const seat = seatOf(table, colour);
  if (seat) for (const plane of planes) seat.planes[plane] = to;
}

/** Applies one event of a table room to a snapshot-shaped state; returns the new state. */
export function applyTableEvent(previous, message) {
  if (message.type === 'undone') return { ...clone(message.snapshot), event: message.event };
  const state = clone(previous);
  const table = state.table;
  switch (message.type) {
    case 'player_connected':
      state.seats[message.colour] = { ...(state.seats[message.colour] ?? {}), name: message.name, connected: true };
      break;
    case 'player_disconnected':
      if (state.seats[message.colour]) state.seats[message.colour].connected = false;
      break;
    case 'game_started':
      state.phase = 'playing';
      state.fairness.commitment = message.commitment;
      for (const key of FAIRNESS_SEEDS) if (key in message) state.fairness[key] = message[key];
      break;
    case 'rolled':
      table.sixes = message.value === 6 ? table.sixes + 1 : 0;
      table.phase = message.legal.length > 0
        ? { kind: 'awaiting_move', roll: message.value, legal: [...message.legal] }
        : { kind: 'moving' }; // no legal move: `turn_passed` follows (flights F3.4, classic C3.3)
      // A roll by a receiver who has not accepted declines the standing offer (a
      // `draw_declined` follows); nothing to do here.
      break;
    case 'launched':
      setPlanes(table, message.colour, [message.plane], 0);
      table.phase = { kind: 'moving' };
      break;
    case 'walked':
    case 'jumped':
    case 'flew':
      setPlanes(table, message.colour, message.planes, message.to);
      table.phase = { kind: 'moving' };
      break;
    case 'arrived':
      setPlanes(table, message.colour, message.planes, 'finished');
      break;
    case 'sent_home':
      setPlanes(table, message.colour, message.planes, 'base');
      break;
    case 'third_six':
      setPlanes(table, message.colour, message.returned, 'base');
      table.at_stake = [];
      break;
    case 'extra_roll':
      table.phase = { kind: 'awaiting_roll' };
      break;
    case 'turn_passed':
      table.to_act = message.to;
      table.sixes = 0;
      table.at_stake = [];
      table.phase = { kind: 'awaiting_roll' };
      // The turn came back to `to`: it may offer a draw again.
      table.draw.barred = table.draw.barred.filter((colour) => colour !== message.to);
      break;
    case 'player_out': {
      const seat = seatOf(table, message.colour);
      if (seat) seat.place = message.place;
      // A player who leaves a game that goes on takes its planes to its hangar (flights F8.2,
      // classic C9.3); the resignation that leaves one player ends the game with planes in place.
      if (seat && message.reason !== 'finished' && inPlay(table).length > 1) {
        seat.planes = seat.planes.map((position) => (position === 'finished' ? position : 'base'));
      }
      break;
    }
    case 'draw_offered':
      table.draw.offer = message.by;
      table.draw.agreed = [message.by];
      if (!table.draw.barred.includes(message.by)) table.draw.barred.push(message.by);
      break;
    case 'draw_accepted':
      if (!table.draw.agreed.includes(message.by)) table.draw.agreed.push(message.by);
      break;
    case 'draw_declined':
    case 'draw_withdrawn':
    case 'draw_lapsed':
      table.draw.offer = null;
      table.draw.agreed = [];
      break;
    case 'game_over': {
      state.phase = 'over';
      state.result = message.result;
      state.notation = null;
      table.phase = { kind: 'over', winner: message.result.winner, reason: message.result.reason };
      table.draw.offer = null;
      table.draw.agreed = [];
      for (const [colour, place] of Object.entries(message.result.places ?? {})) {
        const seat = seatOf(table, colour);
        if (seat) seat.place = place;
      }
      state.fairness.server_seed = message.server_seed;
      state.fairness.commitment = message.commitment;
      for (const key of FAIRNESS_SEEDS) if (key in message) state.fairness[key] = message[key];
      break;
    }
    default:
      break;
  }
  if (typeof message.event === 'number') state.event = message.event;
  return state;
}

/**
 * What one viewer may do now at a table. `colours` are the seats this viewer holds (one, every
 * seat of a same-device room, or none for a spectator); the acting one is the seat to act.
 */
export function tablePermissions(state, colours) {
  const table = state.table;
  const live = state.phase === 'playing' && table.phase.kind !== 'over';
  const playing = inPlay(table);
  const acting = live && colours.includes(table.to_act) && playing.includes(table.to_act);
  const single = colours.length === 1 ? colours[0] : null;
  const mine = single && playing.includes(single) ? single : null;
  const offer = table.draw.offer;
  const drawsAllowed = Boolean(state.mode === 'online' && live && mine);
  return {
    roll: acting && table.phase.kind === 'awaiting_roll',
    move: acting && table.phase.kind === 'awaiting_move',
    resign: live && (mine !== null || (colours.length > 1 && acting)),
    offerDraw: drawsAllowed && !offer && !table.draw.barred.includes(mine),
    answerDraw: drawsAllowed && Boolean(offer) && !table.draw.agreed.includes(mine),
    withdrawDraw: drawsAllowed && offer === mine,
    resignAs: colours.length > 1 ? table.to_act : single,
  };
}

/** The room session of a table room (see the top of this file and of `session.js`). */
export class TableSession extends RoomSession {
  constructor(options = {}) {
    super(options);
    this.colours = []; // the seats this client holds
  }

  /** Takes in an event the view has shown; returns the new state. */
  apply(message) {
    this.state = applyTableEvent(this.state, message);
    return this.state;
  }

  /** What the viewer may do now (`tablePermissions`). */
  allowed() {
    return tablePermissions(this.state, this.colours);
  }

  /** A player's name: the local name of a same-device game, the seat's name, or the colour. */
  nameOf(colour) {
    return this.localNames?.[colour] ?? this.state?.seats?.[colour]?.name ?? colourName(colour);
  }

  welcome(message) {
    const snapshot = message.snapshot;
    const player = message.role === 'player';
    this.colours = !player ? [] : message.colours?.length ? [...message.colours] : [message.colour];
    this.seat = !player ? null : this.colours.length > 1 ? 'all' : message.colour;
    this.awaitingSync = false;
    if (this.observedRolls === null && snapshot.phase === 'waiting') {
      this.observedRolls = [];
      this.lastReceived = snapshot.event;
    } else if (this.observedRolls !== null && snapshot.event > this.lastReceived) {
      this.observedRolls = null;
    }
    if (this.announced === null && snapshot.phase === 'waiting') this.announced = snapshot.fairness.commitment;
    const you = this.seat === 'all' ? 'every colour on this device'
      : this.seat ? colourName(this.seat) : 'a spectator';
    this.setSnapshot(snapshot);
    return [
      { type: 'welcome', role: message.role, colour: message.colour, token: message.token },
      { type: 'log', text: `You are ${you}.`, big: false, kind: '' },
      { type: 'snapshot' },
    ];
  }

  setSnapshot(snapshot) {
    this.state = snapshot;
    this.busy = false;
    const table = snapshot.table;
    this.dieOwner = table?.phase.kind === 'awaiting_move' ? table.to_act : null;
  }
}
