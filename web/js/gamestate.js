// The room as the client knows it: a snapshot (protocol `Snapshot`) kept up to date by applying
// numbered room events. No rule is decided here: legal planes come from `rolled` events and
// snapshots, which the server's rules crate computed. Pure functions, tested under Node.

export const OPPONENT = { red: 'yellow', yellow: 'red' };

export function clone(value) {
  return JSON.parse(JSON.stringify(value));
}

/** Applies one room event to a snapshot-shaped state and returns the new state. */
export function applyEvent(previous, message) {
  if (message.type === 'undone') {
    // An undo carries the room as it is now; render it instead of applying anything.
    return { ...clone(message.snapshot), event: message.event };
  }
  const state = clone(previous);
  const game = state.game;
  switch (message.type) {
    case 'player_connected':
      state.seats[message.colour] = { name: message.name, connected: true };
      break;
    case 'player_disconnected':
      if (state.seats[message.colour]) state.seats[message.colour].connected = false;
      break;
    case 'game_started':
      state.phase = 'playing';
      state.fairness.commitment = message.commitment;
      state.fairness.red_seed = message.red_seed;
      state.fairness.yellow_seed = message.yellow_seed;
      break;
    case 'rolled':
      game.sixes = message.value === 6 ? game.sixes + 1 : 0;
      // A roll with no legal move (or a void third six) is followed by `turn_passed`.
      game.phase = message.legal.length > 0
        ? { kind: 'awaiting_move', roll: message.value, legal: [...message.legal] }
        : { kind: 'passing' };
      break;
    case 'moved':
      game.planes[message.colour][message.plane] = message.to;
      for (const capture of message.captures) {
        for (const plane of capture.planes) game.planes[capture.colour][plane] = 'base';
      }
      // Without an extra roll the turn passes next (`turn_passed`): until then nobody may roll,
      // or a roll sent in between is refused as stale.
      game.phase = message.extra_roll === false ? { kind: 'passing' } : { kind: 'awaiting_roll' };
      break;
    case 'turn_passed':
      game.to_act = message.to;
      game.sixes = 0;
      game.phase = { kind: 'awaiting_roll' };
      // The turn passed from the opponent to `to`: its embargo on draw offers is over.
      game.draw.may_offer[message.to] = true;
      break;
    case 'draw_offered':
      game.draw.offer = message.by;
      game.draw.may_offer[message.by] = false;
      break;
    case 'draw_accepted':
    case 'draw_declined':
    case 'draw_withdrawn':
      game.draw.offer = null;
      break;
    case 'game_over':
      state.phase = 'over';
      state.result = message.result;
      state.notation = null;
      game.phase = { kind: 'over', winner: message.result.winner, reason: message.result.reason };
      game.draw.offer = null;
      state.fairness.server_seed = message.server_seed;
      state.fairness.commitment = message.commitment;
      state.fairness.red_seed = message.red_seed;
      state.fairness.yellow_seed = message.yellow_seed;
      break;
    default:
      break;
  }
  if (typeof message.event === 'number') state.event = message.event;
  return state;
}

/** What one viewer may do now. `seat` is the viewer's colour, 'both' (same device) or null. */
export function permissions(state, seat) {
  const game = state.game;
  const live = state.phase === 'playing' && game.phase.kind !== 'over';
  const controls = (colour) => seat === 'both' || seat === colour;
  const acting = live && controls(game.to_act);
  const mine = seat === 'both' ? game.to_act : seat;
  const offer = game.draw.offer;
  const drawsAllowed = state.mode === 'online' && live && seat && seat !== 'both';
  return {
    roll: acting && game.phase.kind === 'awaiting_roll',
    move: acting && game.phase.kind === 'awaiting_move',
    resign: live && Boolean(seat),
    offerDraw: Boolean(drawsAllowed && !offer && game.draw.may_offer[mine]),
    answerDraw: Boolean(drawsAllowed && offer && offer !== mine),
    withdrawDraw: Boolean(drawsAllowed && offer === mine),
    resignAs: seat === 'both' ? game.to_act : seat,
  };
}

/** The JSON position a plane reaches from `position` with `roll` (deployment included). */
export function destination(position, roll) {
  if (position === 'base') return 0;
  const to = position + roll;
  return to >= 56 ? 'finished' : to;
}
