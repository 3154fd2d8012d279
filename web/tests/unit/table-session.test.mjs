import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { TableSession, applyTableEvent, tablePermissions } from '../../js/table-session.js';

// Streams recorded from a real server (a script joined a table room over its WebSocket, played
// it with random legal moves and asked for a snapshot at the end): every message in order, the
// last one the `sync` answer. Following the stream must reach the server's final position.
function recorded(name) {
  return JSON.parse(readFileSync(new URL(`./fixtures/table-${name}.json`, import.meta.url)));
}

function follow(messages) {
  const session = new TableSession();
  const sent = [];
  for (const message of messages.slice(0, -1)) {
    for (const effect of session.receive(message)) {
      if (effect.type === 'event') session.apply(effect.message);
      if (effect.type === 'send') sent.push(effect.message);
    }
  }
  return { session, sent, final: messages.at(-1).snapshot };
}

function essentials(state) {
  return {
    phase: state.phase,
    event: state.event,
    seats: state.table.seats,
    sixes: state.table.sixes,
    table_phase: state.table.phase.kind === 'moving' ? 'moving' : state.table.phase,
    draw: state.table.draw.offer,
  };
}

for (const name of ['flights-4p-local', 'classic-3p-local', 'classic-3p-computer']) {
  test(`following the recorded ${name} stream reaches the server's final position`, () => {
    const { messages } = recorded(name);
    const { session, sent, final } = follow(messages);
    assert.deepEqual(sent, [], 'no event number was skipped, so no snapshot was asked for');
    assert.deepEqual(essentials(session.state), essentials(final));
    if (final.phase === 'playing') assert.equal(session.state.table.to_act, final.table.to_act);
  });
}

test('every recorded position after a turn passes equals the position the moves reached', () => {
  // A classic stack moves as one: a walk of two planes puts both on the square.
  const { messages } = recorded('classic-3p-computer');
  const stackWalk = messages.find((m) => m.type === 'walked' && m.planes.length > 1);
  assert.ok(stackWalk, 'the recording has a stack move');
  const { session } = follow(messages.slice(0, messages.indexOf(stackWalk) + 1).concat([{ type: 'noop' }]));
  const seat = session.state.table.seats.find((s) => s.colour === stackWalk.colour);
  for (const plane of stackWalk.planes) assert.equal(seat.planes[plane], stackWalk.to);
});

test('a local table room holds every seat and acts for the seat to act', () => {
  const { messages } = recorded('flights-4p-local');
  const session = new TableSession();
  session.receive(messages[0]);
  assert.deepEqual(session.colours, ['red', 'green', 'yellow', 'blue']);
  assert.equal(session.seat, 'all');
  const started = messages.findIndex((m) => m.type === 'game_started');
  for (const message of messages.slice(1, started + 1)) {
    for (const effect of session.receive(message)) if (effect.type === 'event') session.apply(effect.message);
  }
  const allowed = session.allowed();
  assert.equal(allowed.roll, true);
  assert.equal(allowed.offerDraw, false, 'no draws on one device');
  assert.equal(allowed.resignAs, 'red');
});

test('the ranking of the classic game comes from player_out and game_over', () => {
  const { messages } = recorded('classic-3p-local');
  const { session } = follow(messages);
  const places = Object.fromEntries(session.state.table.seats.map((s) => [s.colour, s.place]));
  assert.deepEqual(places, session.state.result.places);
  assert.equal(session.state.phase, 'over');
  assert.equal(session.state.fairness.blue_seed, 'x');
});

function onlineTable() {
  return {
    mode: 'online', phase: 'playing', event: 10, seats: {}, fairness: {},
    table: {
      rules: 'classic', to_act: 'red', sixes: 0, at_stake: [],
      phase: { kind: 'awaiting_roll' },
      draw: { offer: null, agreed: [], barred: [] },
      seats: ['red', 'yellow', 'blue'].map((colour) => ({ colour, place: null, planes: ['base', 'base', 'base', 'base'] })),
    },
  };
}

test('a draw offer waits for every other player in play and shows who accepted', () => {
  let state = onlineTable();
  state = applyTableEvent(state, { type: 'draw_offered', event: 11, by: 'yellow' });
  assert.equal(tablePermissions(state, ['yellow']).withdrawDraw, true);
  assert.equal(tablePermissions(state, ['yellow']).offerDraw, false);
  assert.equal(tablePermissions(state, ['red']).answerDraw, true);
  state = applyTableEvent(state, { type: 'draw_accepted', event: 12, by: 'red' });
  assert.deepEqual(state.table.draw.agreed, ['yellow', 'red']);
  assert.equal(tablePermissions(state, ['red']).answerDraw, false, 'red has answered');
  assert.equal(tablePermissions(state, ['blue']).answerDraw, true);
  state = applyTableEvent(state, { type: 'draw_declined', event: 13, by: 'blue', implicit: true });
  assert.equal(state.table.draw.offer, null);
  assert.equal(tablePermissions(state, ['yellow']).offerDraw, false, 'yellow waits for its turn');
  state = applyTableEvent(state, { type: 'turn_passed', event: 14, from: 'red', to: 'yellow', reason: 'normal' });
  assert.equal(tablePermissions(state, ['yellow']).offerDraw, true);
});

test('a player out of play may no longer act, offer or answer; the others play on', () => {
  let state = onlineTable();
  state = applyTableEvent(state, { type: 'player_out', event: 11, colour: 'red', place: 3, reason: 'resigned' });
  state = applyTableEvent(state, { type: 'turn_passed', event: 12, from: 'red', to: 'yellow', reason: 'normal' });
  const red = tablePermissions(state, ['red']);
  assert.equal(red.roll || red.resign || red.offerDraw, false);
  assert.equal(tablePermissions(state, ['yellow']).roll, true);
});

test('a move in progress allows no roll until the turn passes or an extra roll is given', () => {
  let state = onlineTable();
  state = applyTableEvent(state, { type: 'rolled', event: 11, colour: 'red', value: 6, legal: [0, 1, 2, 3] });
  assert.equal(tablePermissions(state, ['red']).move, true);
  state = applyTableEvent(state, { type: 'launched', event: 12, colour: 'red', plane: 2 });
  assert.equal(state.table.seats[0].planes[2], 0);
  assert.deepEqual(tablePermissions(state, ['red']).roll || tablePermissions(state, ['red']).move, false);
  state = applyTableEvent(state, { type: 'extra_roll', event: 13, colour: 'red' });
  assert.equal(tablePermissions(state, ['red']).roll, true);
  assert.equal(state.table.sixes, 1);
});

test('a skipped event number asks for a snapshot instead of guessing', () => {
  const session = new TableSession();
  const { messages } = recorded('flights-4p-local');
  session.receive(messages[0]);
  const later = { ...messages[10], event: session.state.event + 5 };
  assert.deepEqual(session.receive(later), [{ type: 'send', message: { type: 'sync' } }]);
});
