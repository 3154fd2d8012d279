// The room session (js/session.js) fed server messages by hand: event order, resync, the action
// awaiting its answer, the stale retry, the fairness bookkeeping, refusals and rematches.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { RoomSession } from '../../js/session.js';

/** A snapshot of an online game under way (Red's first plane out), Red to roll, at `event`. */
function snapshot({ phase = 'playing', event = 2, mode = 'online' } = {}) {
  return {
    room_id: '00000000-0000-0000-0000-000000000001',
    mode,
    phase,
    event,
    game: {
      ruleset: 'plyyard',
      planes: { red: [5, 'base', 'base', 'base'], yellow: ['base', 'base', 'base', 'base'] },
      to_act: 'red',
      phase: { kind: 'awaiting_roll' },
      sixes: 0,
      draw: { offer: null, may_offer: { red: true, yellow: true } },
    },
    seats: { red: { name: 'Ann', connected: true }, yellow: { name: 'Bob', connected: true } },
    fairness: { scheme: 'v1', commitment: 'c0ffee', red_seed: null, yellow_seed: null, server_seed: null },
    result: null,
    spectators: 0,
  };
}

function welcome(snap = snapshot(), { role = 'player', colour = 'red', token = 'tok' } = {}) {
  return { type: 'welcome', id: 1, protocol: 1, role, colour, token, snapshot: snap };
}

/** A session welcomed into `snap` as `colour` (or a spectator with `role: 'spectator'`). */
function joined(snap = snapshot(), options = {}) {
  const session = new RoomSession(options.localNames ? { localNames: options.localNames } : {});
  session.receive(welcome(snap, options));
  return session;
}

/** Receives `message` and, as the view does, applies the event it is told to show. */
function show(session, message) {
  const effects = session.receive(message);
  for (const effect of effects) if (effect.type === 'event') session.apply(effect.message);
  return effects;
}

const types = (effects) => effects.map((effect) => effect.type);
const sends = (effects) => effects.filter((effect) => effect.type === 'send').map((effect) => effect.message);
const logs = (effects) => effects.filter((effect) => effect.type === 'log').map((effect) => effect.text);

const rolled = (event, value = 3, legal = [], colour = 'red') => ({ type: 'rolled', event, colour, value, legal });
const passed = (event, from = 'red', to = 'yellow') => ({ type: 'turn_passed', event, from, to, reason: 'no_legal_move' });

test('a welcome seats a player, says who they are and hands over the snapshot', () => {
  const session = new RoomSession();
  const effects = session.receive(welcome(snapshot(), { colour: 'yellow', token: 'secret' }));
  assert.deepEqual(types(effects), ['welcome', 'log', 'snapshot']);
  assert.deepEqual(effects[0], { type: 'welcome', role: 'player', colour: 'yellow', token: 'secret' });
  assert.deepEqual(logs(effects), ['You are Yellow.']);
  assert.equal(session.seat, 'yellow');
  assert.equal(session.state.event, 2);
});

test('a same-device player holds both colours and a spectator none', () => {
  const local = joined(snapshot({ mode: 'local' }), { colour: null });
  assert.equal(local.seat, 'both');
  const spectator = new RoomSession();
  const effects = spectator.receive(welcome(snapshot(), { role: 'spectator', colour: null, token: null }));
  assert.equal(spectator.seat, null);
  assert.deepEqual(logs(effects), ['You are a spectator.']);
});

test('arriving in a game that has just started says so once', () => {
  const fresh = () => {
    const snap = snapshot();
    snap.game.planes.red[0] = 'base';
    return snap;
  };
  const session = new RoomSession();
  const first = session.receive(welcome(fresh()));
  assert.deepEqual(logs(first), ['You are Red.', 'The game has started. Red rolls first.']);
  const again = session.receive(welcome(fresh()));
  assert.deepEqual(logs(again), ['You are Red.']);
  const waiting = new RoomSession().receive(welcome({ ...fresh(), phase: 'waiting' }));
  assert.deepEqual(logs(waiting), ['You are Red.']);
  const underWay = new RoomSession().receive(welcome(snapshot()));
  assert.deepEqual(logs(underWay), ['You are Red.']);
});

test('the next event is shown before it is applied, then the one after it follows', () => {
  const session = joined();
  const effects = session.receive(rolled(3, 6, [0, 1, 2, 3]));
  assert.deepEqual(effects, [{ type: 'event', message: rolled(3, 6, [0, 1, 2, 3]) }]);
  assert.equal(session.state.event, 2, 'not applied until the view has shown it');
  assert.equal(session.action({ type: 'resign' }).seen, 2, 'an action meanwhile is on the position on screen');
  session.apply(effects[0].message);
  assert.equal(session.state.event, 3);
  assert.deepEqual(session.state.game.phase, { kind: 'awaiting_move', roll: 6, legal: [0, 1, 2, 3] });
  const move = { type: 'moved', event: 4, colour: 'red', plane: 1, from: 'base', to: 0, captures: [], finished: false, extra_roll: true };
  assert.deepEqual(types(show(session, move)), ['event']);
  assert.equal(session.state.game.planes.red[1], 0);
  assert.equal(session.state.event, 4);
});

test('an event already seen is dropped', () => {
  const session = joined();
  show(session, rolled(3));
  assert.deepEqual(session.receive(rolled(3)), []);
  assert.deepEqual(session.receive(rolled(2)), []);
  assert.equal(session.state.event, 3);
});

test('a skipped event number asks for a snapshot and ignores events until it comes', () => {
  const session = joined();
  const gap = session.receive(rolled(4));
  assert.deepEqual(sends(gap), [{ type: 'sync' }]);
  assert.equal(session.awaitingSync, true);
  assert.deepEqual(session.receive(passed(5)), [], 'no event is shown while the snapshot is awaited');
  assert.deepEqual(session.receive(rolled(3)), [], 'not even the missing one');
  const after = snapshot({ event: 5 });
  after.game.to_act = 'yellow';
  assert.deepEqual(types(session.receive({ type: 'snapshot', snapshot: after })), ['snapshot']);
  assert.equal(session.awaitingSync, false);
  assert.equal(session.state, after, 'the snapshot replaces the state');
  assert.deepEqual(types(session.receive(rolled(6, 2, [], 'yellow'))), ['event']);
});

test('messages without an event number, or before any snapshot, change nothing', () => {
  const session = new RoomSession();
  assert.deepEqual(session.receive(rolled(1)), []);
  assert.equal(session.action({ type: 'roll' }), null, 'no action before the first snapshot');
  const seated = joined();
  assert.deepEqual(seated.receive({ type: 'something_new', value: 1 }), []);
  assert.equal(seated.state.event, 2);
});

test('a game action carries the last event shown as seen', () => {
  const session = joined();
  assert.deepEqual(session.action({ type: 'roll' }), { type: 'roll', seen: 2 });
  show(session, rolled(3, 6, [0, 2]));
  assert.deepEqual(session.move(2), { type: 'move', plane: 2, seen: 3 });
  assert.deepEqual(session.action({ type: 'offer_draw' }), { type: 'offer_draw', seen: 3 });
});

test('a move is offered only to the player to act, with a roll to play, and not while busy', () => {
  const session = joined();
  assert.equal(session.move(0), null, 'nothing rolled yet');
  show(session, rolled(3, 6, [0]));
  const yellow = joined(snapshot(), { colour: 'yellow' });
  show(yellow, rolled(3, 6, [0]));
  assert.equal(yellow.move(0), null, 'not yellow’s turn');
  const move = session.move(0);
  session.sent(move, 7);
  assert.equal(session.move(0), null, 'the first move is still unanswered');
});

test('sending a game action makes the session busy until its answer or a refusal', () => {
  const session = joined();
  assert.equal(session.sent({ type: 'say', phrase: 'oops' }, 5), false, 'a quick message is not a game action');
  assert.equal(session.sent({ type: 'sync' }, 6), false);
  assert.equal(session.sent(session.action({ type: 'roll' }), null), false, 'not sent: not connected');
  assert.equal(session.busy, false);
  assert.equal(session.sent(session.action({ type: 'roll' }), 7), true);
  assert.equal(session.busy, true);
  show(session, rolled(3));
  assert.equal(session.busy, false, 'the event answers it');
  session.sent(session.action({ type: 'roll' }), 8);
  const refusal = session.receive({ type: 'error', id: 8, code: 'not_your_turn', message: 'it is not your turn' });
  assert.equal(session.busy, false, 'so does a refusal');
  assert.deepEqual(logs(refusal), ['it is not your turn']);
  assert.equal(refusal.at(-1).type, 'render');
  session.sent(session.action({ type: 'roll' }), 9);
  session.receive({ type: 'snapshot', snapshot: snapshot({ event: 3 }) });
  assert.equal(session.busy, false, 'and so does a snapshot');
});

test('a stale resign is sent again, with the new seen, after the snapshot', () => {
  const session = joined();
  const resign = session.action({ type: 'resign' });
  session.sent(resign, 11);
  const refusal = session.receive({ type: 'error', id: 11, code: 'stale', message: 'seen is not the current state' });
  assert.deepEqual(sends(refusal), [{ type: 'sync' }]);
  assert.deepEqual(logs(refusal), [], 'a stale refusal is not shown');
  assert.deepEqual(session.receive(rolled(3)), [], 'events wait for the snapshot');
  const effects = session.receive({ type: 'snapshot', snapshot: snapshot({ event: 4 }) });
  assert.deepEqual(types(effects), ['snapshot', 'send']);
  assert.deepEqual(sends(effects), [{ type: 'resign', seen: 4 }]);
});

test('a stale roll or move is left to the player, who now sees the new position', () => {
  const session = joined();
  session.sent(session.action({ type: 'roll' }), 12);
  session.receive({ type: 'error', id: 12, code: 'stale', message: '' });
  const effects = session.receive({ type: 'snapshot', snapshot: snapshot({ event: 4 }) });
  assert.deepEqual(types(effects), ['snapshot']);
});

test('a stale draw offer is not sent again once it is no longer allowed', () => {
  const session = joined();
  session.sent(session.action({ type: 'offer_draw' }), 13);
  session.receive({ type: 'error', id: 13, code: 'stale', message: '' });
  const over = snapshot({ event: 5 });
  over.phase = 'over';
  over.game.phase = { kind: 'over', winner: 'yellow', reason: 'resigned' };
  assert.deepEqual(sends(session.receive({ type: 'snapshot', snapshot: over })), []);
});

test('a stale refusal of some other request resends nothing', () => {
  const session = joined();
  session.sent(session.action({ type: 'resign' }), 14);
  session.receive({ type: 'error', id: 99, code: 'stale', message: '' });
  assert.deepEqual(sends(session.receive({ type: 'snapshot', snapshot: snapshot({ event: 3 }) })), []);
});

test('an undo replaces the state with the snapshot it carries', () => {
  const session = joined(snapshot({ mode: 'computer' }));
  show(session, rolled(3, 6, [0]));
  show(session, { type: 'moved', event: 4, colour: 'red', plane: 1, from: 'base', to: 0, captures: [], finished: false, extra_roll: true });
  assert.equal(session.state.game.planes.red[1], 0);
  const earlier = snapshot({ mode: 'computer', event: 3 });
  earlier.game.phase = { kind: 'awaiting_move', roll: 6, legal: [0, 1] };
  const effects = show(session, { type: 'undone', event: 5, colour: 'red', actions: 1, snapshot: earlier });
  assert.deepEqual(types(effects), ['event']);
  assert.equal(session.state.event, 5, 'the undo keeps its own event number');
  assert.deepEqual(session.state.game.planes.red, [5, 'base', 'base', 'base']);
  assert.deepEqual(session.move(1), { type: 'move', plane: 1, seen: 5 });
});

test('game over ends the game and every action', () => {
  const session = joined();
  show(session, {
    type: 'game_over', event: 3, result: { winner: 'yellow', reason: 'resigned' },
    server_seed: 'ab', commitment: 'c0ffee', red_seed: '', yellow_seed: '',
  });
  assert.equal(session.state.phase, 'over');
  assert.equal(session.state.fairness.server_seed, 'ab');
  const allowed = session.allowed();
  assert.equal(allowed.roll || allowed.move || allowed.resign || allowed.offerDraw, false);
});

test('the die belongs to whoever rolled it until the turn passes', () => {
  const session = joined();
  assert.equal(session.dieOwner, null);
  session.receive(rolled(3, 2, [], 'red'));
  assert.equal(session.dieOwner, 'red', 'set as the roll is shown');
  session.apply(rolled(3, 2, [], 'red'));
  show(session, passed(4));
  assert.equal(session.dieOwner, null);
  const moving = snapshot({ event: 9 });
  moving.game.to_act = 'yellow';
  moving.game.phase = { kind: 'awaiting_move', roll: 6, legal: [1] };
  session.receive({ type: 'snapshot', snapshot: moving });
  assert.equal(session.dieOwner, 'yellow');
});

test('a client that saw the game start keeps the commitment and every roll', () => {
  const session = joined(snapshot({ phase: 'waiting', event: 1 }));
  assert.equal(session.announced, 'c0ffee');
  assert.deepEqual(session.observedRolls, []);
  show(session, { type: 'player_connected', event: 2, colour: 'yellow', name: 'Bob' });
  show(session, { type: 'game_started', event: 3, commitment: 'c0ffee', red_seed: '', yellow_seed: '' });
  show(session, rolled(4, 5));
  show(session, passed(5));
  show(session, rolled(6, 2, [], 'yellow'));
  assert.deepEqual(session.observedRolls, [5, 2]);
  session.receive({ type: 'welcome', role: 'player', colour: 'red', token: 'tok', snapshot: snapshot({ event: 6 }) });
  assert.deepEqual(session.observedRolls, [5, 2], 'a reconnect that missed nothing keeps the list');
});

test('a missed event or a late arrival makes the observed rolls unknown', () => {
  const gap = joined(snapshot({ phase: 'waiting', event: 1 }));
  show(gap, { type: 'game_started', event: 2, commitment: 'c0ffee', red_seed: '', yellow_seed: '' });
  gap.receive(rolled(4));
  assert.equal(gap.observedRolls, null);
  assert.equal(gap.announced, 'c0ffee', 'the commitment was still seen before the first roll');

  const away = joined(snapshot({ phase: 'waiting', event: 1 }));
  show(away, { type: 'game_started', event: 2, commitment: 'c0ffee', red_seed: '', yellow_seed: '' });
  away.receive(welcome(snapshot({ event: 7 })));
  assert.equal(away.observedRolls, null, 'events went by while it was away');

  const late = joined(snapshot({ event: 8 }));
  assert.equal(late.observedRolls, null);
  assert.equal(late.announced, null);
});

test('refusals that need more than a line: a lost seat, taken seats, an older server', () => {
  const session = joined();
  const lost = session.receive({ type: 'error', id: 1, code: 'bad_token', message: 'no' });
  assert.deepEqual(types(lost), ['log', 'seat_lost', 'render']);
  assert.deepEqual(types(session.receive({ type: 'error', id: 2, code: 'seat_taken', message: 'no' })), ['log', 'watch_instead', 'render']);
  const old = session.receive({ type: 'error', id: 3, code: 'unknown_type', message: 'no' });
  assert.deepEqual(logs(old), ['This server does not offer that yet.']);
  assert.ok(session.unsupported.has('hint') && session.unsupported.has('undo'));
  const before = new RoomSession().receive({ type: 'error', id: 1, code: 'room_full', message: 'full' });
  assert.deepEqual(types(before), ['log', 'watch_instead'], 'nothing to render before a snapshot');
});

test('a join refused for an unknown player identity asks the view to renew it and join again', () => {
  const effects = new RoomSession().receive({ type: 'error', id: 1, code: 'bad_identity', message: 'unknown player' });
  assert.deepEqual(types(effects), ['log', 'identity_lost']);
});

test('an error without a request id is shown, and answers no action', () => {
  const session = joined();
  const effects = session.receive({ type: 'error', code: 'bad_message', message: 'that is not JSON' });
  assert.deepEqual(logs(effects), ['that is not JSON']);
  session.sent(session.action({ type: 'resign' }), 4);
  session.receive({ type: 'error', code: 'stale', message: '' });
  assert.deepEqual(sends(session.receive({ type: 'snapshot', snapshot: snapshot({ event: 3 }) })), [], 'not the resign');
});

test('a quick message is logged under the sender’s name, the local one on a shared device', () => {
  const session = joined();
  const said = session.receive({ type: 'said', colour: 'yellow', phrase: 'well_played' });
  assert.deepEqual(said, [{ type: 'log', text: 'Bob: “Well played!”', big: false, kind: 'said' }]);
  const local = joined(snapshot({ mode: 'local' }), { colour: null, localNames: { red: 'Kim', yellow: 'Lee' } });
  assert.equal(local.nameOf('yellow'), 'Lee');
});

test('rematch offers: the opponent’s is announced, both are remembered, a seat moves on', () => {
  const session = joined();
  assert.deepEqual(session.rematch('seed'), { type: 'rematch', client_seed: 'seed' });
  assert.deepEqual(types(session.receive({ type: 'rematch_offered', by: 'red' })), ['render_next']);
  const theirs = session.receive({ type: 'rematch_offered', by: 'yellow' });
  assert.deepEqual(logs(theirs), ['Bob wants a rematch.']);
  assert.deepEqual([...session.rematchBy].sort(), ['red', 'yellow']);
  const ready = { type: 'rematch_ready', room_id: 'r2', ws_path: '/ws/rooms/r2', colour: 'yellow', token: 't2' };
  assert.deepEqual(session.receive(ready), [{ ...ready, type: 'rematch_seat' }]);
  const spectator = joined(snapshot(), { role: 'spectator', colour: null });
  assert.deepEqual(types(spectator.receive({ ...ready, colour: null, token: null })), ['render_next']);
  assert.equal(spectator.rematchRoom, 'r2');
});

test('the spectator count changes only when it differs', () => {
  const session = joined();
  assert.equal(session.countSpectators(0), false);
  assert.equal(session.countSpectators(2), true);
  assert.equal(session.state.spectators, 2);
  assert.equal(new RoomSession().countSpectators(1), false);
});
