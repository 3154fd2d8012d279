import { test } from 'node:test';
import assert from 'node:assert/strict';

import { describeEvent, positionText, resultHeadline } from '../../js/messages.js';
import { turnsOf } from '../../js/views/replay.js';
import { ClockTracker, clockText } from '../../js/views/room-clock.js';

const text = (event, viewer = null) => describeEvent(event, null, viewer).map((l) => l.text).join(' ');

test('positions read the same everywhere: square from the own start, home lane, finish', () => {
  assert.equal(positionText('base'), 'base');
  assert.equal(positionText(0), 'square 0');
  assert.equal(positionText(50), 'square 50');
  assert.equal(positionText(53), 'home lane 3');
  assert.equal(positionText('finished'), 'finish');
});

test('a capture names the mover and the captured planes, counted from 1', () => {
  const moved = { type: 'moved', colour: 'red', plane: 1, from: 3, to: 7, finished: false, extra_roll: true, captures: [{ colour: 'yellow', planes: [0, 2], square: 7 }] };
  assert.match(text(moved), /Capture! Red plane 2 sent Yellow planes 1 and 3 back to base\. Red rolls again\./);
});

test('a turn the clock played says so, to the player and to the others', () => {
  const rolled = { type: 'rolled', colour: 'red', value: 3, legal: [0], by_clock: true };
  assert.equal(text(rolled, 'red'), 'Red rolled 3 (played for you: time ran out).');
  assert.equal(text(rolled, 'yellow'), 'Red rolled 3 (played for them: time ran out).');
  assert.equal(text({ ...rolled, by_clock: undefined }, 'red'), 'Red rolled 3.');
});

test('the game-over headline speaks to the viewer', () => {
  const seats = { red: { name: 'Ann' }, yellow: { name: 'Bob' } };
  const result = { winner: 'red', reason: 'resigned' };
  assert.equal(resultHeadline(result, 'red', seats), 'You won');
  assert.equal(resultHeadline(result, 'yellow', seats), 'You lost');
  assert.equal(resultHeadline(result, null, seats), 'Ann (Red) won');
  assert.equal(resultHeadline({ winner: null, reason: 'agreed' }, 'red', seats), 'Draw');
});

test('the move list groups a replay by turn, roll and move on one line', () => {
  const game = (red, yellow) => ({ planes: { red, yellow } });
  const base = ['base', 'base', 'base', 'base'];
  const steps = [
    { action: null, game: game(base, base) },
    { action: { colour: 'red', action: 'roll', value: 6 }, game: game(base, base) },
    { action: { colour: 'red', action: 'move', plane: 0 }, game: game([0, 'base', 'base', 'base'], base) },
    { action: { colour: 'red', action: 'roll', value: 2 }, game: game([0, 'base', 'base', 'base'], base) },
    { action: { colour: 'red', action: 'move', plane: 0 }, game: game([2, 'base', 'base', 'base'], base) },
    { action: { colour: 'yellow', action: 'roll', value: 4 }, game: game([2, 'base', 'base', 'base'], base) },
  ];
  const turns = turnsOf(steps);
  assert.deepEqual(turns.map((t) => [t.colour, t.first, t.last, t.text]), [
    ['red', 1, 4, 'rolled 6, plane 1 took off; rolled 2, plane 1 to square 2'],
    ['yellow', 5, 5, 'rolled 4'],
  ]);
});

test('the clock tracker counts down from a snapshot and counts one strike per time-out', () => {
  const clocks = new ClockTracker(() => {});
  try {
    clocks.fromSnapshot({
      phase: 'playing', game: { to_act: 'red' }, seats: { red: { connected: true }, yellow: { connected: false, grace_ms: 5000 } },
      clock: { per_decision_ms: 30000, remaining_ms: 20000, strikes: { red: 1, yellow: 0 }, max_strikes: 3 },
    });
    assert.ok(clocks.remaining('red') > 19000 && clocks.remaining('red') <= 20000);
    assert.equal(clocks.remaining('yellow'), null);
    assert.ok(clocks.grace('yellow') > 4000);
    const after = { phase: 'playing', game: { to_act: 'red' } };
    clocks.onEvent({ type: 'rolled', colour: 'red', by_clock: true, deadline_ms: 30000 }, after);
    clocks.onEvent({ type: 'moved', colour: 'red', by_clock: true, deadline_ms: 30000 }, after);
    assert.equal(clocks.strikes.red, 2);
    clocks.onEvent({ type: 'game_over' }, { phase: 'over', game: { to_act: 'red' } });
    assert.equal(clocks.remaining('red'), null);
  } finally {
    clocks.stop();
  }
  assert.equal(clockText(61000), '1:01');
  assert.equal(clockText(0), '0:00');
});
