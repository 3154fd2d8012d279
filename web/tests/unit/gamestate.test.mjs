import { test } from 'node:test';
import assert from 'node:assert/strict';

import { applyEvent, destination, permissions } from '../../js/gamestate.js';
import { describeEvent, resultText } from '../../js/messages.js';

function snapshot() {
  return {
    room_id: '00000000-0000-0000-0000-000000000001',
    mode: 'online',
    phase: 'waiting',
    event: 0,
    game: {
      ruleset: 'plyyard',
      planes: { red: ['base', 'base', 'base', 'base'], yellow: ['base', 'base', 'base', 'base'] },
      to_act: 'red',
      phase: { kind: 'awaiting_roll' },
      sixes: 0,
      draw: { offer: null, may_offer: { red: true, yellow: true } },
    },
    notation: 'b,b,b,b b,b,b,b red - 0',
    seats: { red: { name: 'Ann', connected: true }, yellow: null },
    fairness: { scheme: 'v1', commitment: 'c', red_seed: null, yellow_seed: null, server_seed: null },
    result: null,
  };
}

function play(state, ...events) {
  return events.reduce((s, e, i) => applyEvent(s, { event: s.event + 1, ...e }), state);
}

test('a seat and the start fill in the snapshot', () => {
  const s = play(snapshot(),
    { type: 'player_connected', colour: 'yellow', name: 'Bob' },
    { type: 'game_started', commitment: 'c', red_seed: 'r', yellow_seed: 'y' });
  assert.equal(s.phase, 'playing');
  assert.deepEqual(s.seats.yellow, { name: 'Bob', connected: true });
  assert.equal(s.fairness.yellow_seed, 'y');
  assert.equal(s.event, 2);
});

test('a six with a legal plane awaits a move, and the move deploys and keeps the turn', () => {
  let s = play(snapshot(), { type: 'game_started', commitment: 'c', red_seed: '', yellow_seed: '' });
  s = play(s, { type: 'rolled', colour: 'red', value: 6, legal: [0, 1, 2, 3] });
  assert.deepEqual(s.game.phase, { kind: 'awaiting_move', roll: 6, legal: [0, 1, 2, 3] });
  assert.equal(s.game.sixes, 1);
  assert.equal(permissions(s, 'red').move, true);
  assert.equal(permissions(s, 'yellow').move, false);
  assert.equal(permissions(s, null).move, false);
  s = play(s, { type: 'moved', colour: 'red', plane: 2, from: 'base', to: 0, captures: [], finished: false, extra_roll: true });
  assert.equal(s.game.planes.red[2], 0);
  assert.equal(permissions(s, 'red').roll, true);
});

test('a capture sends the captured planes home and a pass resets the six counter', () => {
  let s = snapshot();
  s.phase = 'playing';
  s.game.planes.yellow = [5, 5, 'base', 'base'];
  s = play(s,
    { type: 'rolled', colour: 'red', value: 3, legal: [0] },
    { type: 'moved', colour: 'red', plane: 0, from: 28, to: 31, captures: [{ colour: 'yellow', planes: [0, 1], square: 31 }], finished: false, extra_roll: true });
  assert.deepEqual(s.game.planes.yellow, ['base', 'base', 'base', 'base']);
  s = play(s, { type: 'rolled', colour: 'red', value: 2, legal: [] }, { type: 'turn_passed', from: 'red', to: 'yellow', reason: 'no_legal_move' });
  assert.equal(s.game.to_act, 'yellow');
  assert.equal(s.game.sixes, 0);
  assert.equal(permissions(s, 'yellow').roll, true);
});

test('draw offers follow the anti-spam rule of rules.md §5', () => {
  let s = snapshot();
  s.phase = 'playing';
  s = play(s, { type: 'draw_offered', by: 'red' });
  assert.equal(permissions(s, 'red').withdrawDraw, true);
  assert.equal(permissions(s, 'yellow').answerDraw, true);
  assert.equal(permissions(s, 'yellow').offerDraw, false);
  s = play(s, { type: 'draw_declined', by: 'yellow', implicit: false });
  assert.equal(permissions(s, 'red').offerDraw, false, 'red waits for a yellow turn to end');
  s = play(s, { type: 'turn_passed', from: 'red', to: 'yellow', reason: 'normal' });
  assert.equal(permissions(s, 'red').offerDraw, false);
  s = play(s, { type: 'turn_passed', from: 'yellow', to: 'red', reason: 'normal' });
  assert.equal(permissions(s, 'red').offerDraw, true);
  s.mode = 'computer';
  assert.equal(permissions(s, 'red').offerDraw, false, 'no draws against the computer');
});

test('game over reveals the seed and ends every permission', () => {
  let s = snapshot();
  s.phase = 'playing';
  s = play(s, { type: 'game_over', result: { winner: 'yellow', reason: 'resigned' }, server_seed: 'ab', commitment: 'c', red_seed: '', yellow_seed: 'y' });
  assert.equal(s.fairness.server_seed, 'ab');
  const p = permissions(s, 'red');
  assert.equal(p.roll || p.move || p.resign || p.offerDraw, false);
  assert.equal(resultText(s.result), 'Yellow wins: Red resigned.');
});

test('same-device play controls whichever colour is to act', () => {
  let s = snapshot();
  s.phase = 'playing';
  s.mode = 'local';
  assert.equal(permissions(s, 'both').roll, true);
  s = play(s, { type: 'turn_passed', from: 'red', to: 'yellow', reason: 'normal' });
  assert.equal(permissions(s, 'both').roll, true);
  assert.equal(permissions(s, 'both').resignAs, 'yellow');
});

test('destinations: deploy to 0, finish at 56', () => {
  assert.equal(destination('base', 6), 0);
  assert.equal(destination(10, 4), 14);
  assert.equal(destination(52, 4), 'finished');
});

test('messages name extra rolls, void sixes, no legal move, captures and finishes', () => {
  const s = snapshot();
  const text = (e) => describeEvent(e, s).map((l) => l.text).join(' ');
  assert.match(text({ type: 'turn_passed', from: 'red', to: 'yellow', reason: 'void_third_six' }), /Third six in a row/);
  assert.match(text({ type: 'turn_passed', from: 'red', to: 'yellow', reason: 'no_legal_move' }), /No legal move/);
  const moved = { type: 'moved', colour: 'red', plane: 1, from: 52, to: 'finished', captures: [], finished: true, extra_roll: true };
  assert.match(text(moved), /reached the finish/);
  assert.match(text(moved), /rolls again/);
  const capture = { ...moved, from: 3, to: 5, finished: false, captures: [{ colour: 'yellow', planes: [2], square: 5 }] };
  assert.match(text(capture), /Capture!/);
});

test('an undo replaces the state with the snapshot it carries', () => {
  let s = snapshot();
  s.phase = 'playing';
  s.mode = 'computer';
  const earlier = { ...snapshot(), phase: 'playing', mode: 'computer', event: 3 };
  earlier.game.phase = { kind: 'awaiting_move', roll: 6, legal: [0, 1, 2, 3] };
  s = play(s, { type: 'rolled', colour: 'red', value: 6, legal: [0, 1, 2, 3] },
    { type: 'moved', colour: 'red', plane: 0, from: 'base', to: 0, captures: [], finished: false, extra_roll: true });
  s = applyEvent(s, { type: 'undone', event: 9, colour: 'red', actions: 1, snapshot: earlier });
  assert.equal(s.event, 9);
  assert.deepEqual(s.game.planes.red, ['base', 'base', 'base', 'base']);
  assert.equal(permissions(s, 'red').move, true);
});

test('nobody may roll between a move without an extra roll, or a roll without a move, and the turn passing', () => {
  let s = play(snapshot(), { type: 'game_started', commitment: 'c', red_seed: '', yellow_seed: '' });
  s.mode = 'local';
  s = play(s, { type: 'rolled', colour: 'red', value: 3, legal: [] });
  assert.equal(permissions(s, 'both').roll, false, 'turn_passed follows a roll with no legal move');
  s = play(s, { type: 'turn_passed', from: 'red', to: 'yellow', reason: 'no_legal_move' });
  assert.equal(permissions(s, 'both').roll, true);
  s.game.planes.yellow[0] = 5;
  s = play(s, { type: 'rolled', colour: 'yellow', value: 2, legal: [0] },
    { type: 'moved', colour: 'yellow', plane: 0, from: 5, to: 7, captures: [], finished: false, extra_roll: false });
  assert.equal(permissions(s, 'both').roll, false, 'turn_passed follows a move without an extra roll');
  s = play(s, { type: 'turn_passed', from: 'yellow', to: 'red', reason: 'normal' });
  assert.equal(permissions(s, 'both').roll, true);
});
