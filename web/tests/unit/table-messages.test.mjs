import { test } from 'node:test';
import assert from 'node:assert/strict';

import { describeTableEvent, ordinal, placesOf, tableResultText } from '../../js/table-messages.js';
import { tableStep } from '../../js/views/replay.js';
import { parseRules } from '../../js/views/table-room.js';

const names = { red: 'Ann', yellow: 'Bob', blue: 'Cid', green: 'Dee' };
const name = (colour) => names[colour];

test('a step of a move reads as one short sentence, a crash and an arrival are announced', () => {
  assert.deepEqual(describeTableEvent({ type: 'launched', colour: 'blue', plane: 2 }), [{ text: 'Blue plane 3 took off.' }]);
  assert.equal(describeTableEvent({ type: 'walked', colour: 'red', planes: [0, 3], from: 12, to: 17 })[0].text,
    'Red planes 1 and 4 moved 12 → 17.');
  const crash = describeTableEvent({ type: 'sent_home', colour: 'green', planes: [1], square: 30 });
  assert.equal(crash[0].big, true);
  assert.match(crash[0].text, /Crash! Green plane 2/);
  assert.equal(describeTableEvent({ type: 'arrived', colour: 'yellow', planes: [0] })[0].big, true);
});

test('a player out is named with its place and why', () => {
  const [line] = describeTableEvent({ type: 'player_out', colour: 'blue', place: 3, reason: 'resigned' }, name);
  assert.equal(line.text, 'Cid (Blue) resigned: 3rd place.');
  assert.equal(line.big, true);
});

test('the ranking lists every seat, places first, seats without one last', () => {
  const result = { winner: 'yellow', reason: 'finished', places: { yellow: 1 } };
  assert.deepEqual(placesOf(result, ['red', 'green', 'yellow', 'blue']).map((p) => [p.colour, p.place]),
    [['yellow', 1], ['red', null], ['green', null], ['blue', null]]);
  assert.equal(ordinal(2), '2nd');
});

test('a result reads with the winner\'s name, a draw without one', () => {
  assert.equal(tableResultText({ winner: 'red', reason: 'resigned', places: {} }, name), 'Ann (Red) wins: the others resigned.');
  assert.equal(tableResultText({ winner: null, reason: 'agreed', places: {} }), 'Draw (agreed by every player).');
});

test('a replay step in the table notation reads leniently, places and a player out to act included', () => {
  const step = tableStep('classic+jump-after-shortcut red=1:f,f,53,55 yellow=3:b,b,b,b blue=2:b,26,0,b blue - 0 -');
  assert.equal(step.ruleset, 'classic');
  assert.deepEqual(step.houseRules, ['jump-after-shortcut']);
  assert.deepEqual(step.places, { red: 1, yellow: 3, blue: 2 });
  assert.deepEqual(step.game.planes.red, ['finished', 'finished', 53, 55]);
  assert.equal(step.game.phase.kind, 'awaiting_roll');
  const pending = tableStep('flights red:b,b,12,f yellow:b,30,52,b red 6 1 -');
  assert.equal(pending.game.phase.kind, 'awaiting_move');
  assert.ok(pending.game.phase.legal.includes(0), 'a six launches from the hangar');
});

test('a table\'s rules string names the edition and its house rules', () => {
  assert.deepEqual(parseRules('classic+jump-after-shortcut'), { ruleset: 'classic', houseRules: ['jump-after-shortcut'] });
  assert.deepEqual(parseRules('flights'), { ruleset: 'flights', houseRules: [] });
});
