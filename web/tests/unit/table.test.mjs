import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  SEATING, finishProgress, formatTable, legalPlanes, movingWith, parseTable, ranking, seatingFor,
  stacksOf,
} from '../../js/table.js';

// The examples of docs/rules/README.md and the worked examples of flights.md and classic.md.
const EXAMPLES = [
  'flights red:b,b,b,b yellow:b,b,b,b red - 0 -',
  'flights red:b,b,b,b yellow:b,b,b,b blue:b,b,b,b red - 0 -',
  'classic red:b,b,b,b green:b,b,b,b yellow:b,b,b,b blue:b,b,b,b red - 0 -',
  'classic red:12,12,b,b yellow:3,b,b,b red 6 1 -',
  'classic red=1:f,f,f,f yellow:40,b,b,f blue:2,b,b,b yellow - 0 -',
  'flights red:b,b,b,b green:3,b,b,b yellow:b,b,b,b blue:b,b,b,b red - 0 -',
  'flights red:6,10,b,b yellow:b,b,b,b red - 2 1',
  'flights red:54,b,b,b yellow:b,b,b,b red 5 0 -',
  'flights red:5,b,b,b yellow=3:b,b,b,b blue:3,b,b,b blue - 0 -',
  'classic red:12,12,6,b yellow:b,b,b,b red - 2 012',
  'classic+jump-after-shortcut red:17,b,b,b yellow:b,b,b,b red 3 0 -',
  'classic red:f,f,f,55 yellow:40,b,b,b blue:2,b,b,b red 2 0 -',
  'plyyard red:b,b,12,f yellow:b,30,52,b yellow 4 0 -',
];

test('every example of the rules pages parses and is written back unchanged', () => {
  for (const line of EXAMPLES) assert.equal(formatTable(parseTable(line)), line, line);
});

test('a four-player flights line reads into seats, planes and counters', () => {
  const table = parseTable('flights red:b,b,b,b green:3,b,b,b yellow:b,b,b,b blue:b,b,b,b red - 0 -');
  assert.equal(table.ruleset, 'flights');
  assert.deepEqual(table.houseRules, []);
  assert.deepEqual(table.seats.map((s) => s.colour), ['red', 'green', 'yellow', 'blue']);
  assert.deepEqual(table.seats[1], { colour: 'green', place: null, planes: [3, 'base', 'base', 'base'] });
  assert.equal(table.toAct, 'red');
  assert.equal(table.roll, null);
  assert.equal(table.sixes, 0);
  assert.deepEqual(table.atStake, []);
});

test('an out seat carries its place and the ranking lists it', () => {
  const table = parseTable('classic red=1:f,f,f,f yellow:40,b,b,f blue:2,b,b,b yellow - 0 -');
  assert.deepEqual(table.seats[0], { colour: 'red', place: 1, planes: ['finished', 'finished', 'finished', 'finished'] });
  assert.deepEqual(ranking(table).map((s) => [s.colour, s.place]), [['red', 1]]);
});

test('the house rule and the planes at stake are read', () => {
  assert.deepEqual(parseTable('classic+jump-after-shortcut red:17,b,b,b yellow:b,b,b,b red 3 0 -').houseRules, ['jump-after-shortcut']);
  assert.deepEqual(parseTable('classic red:12,12,6,b yellow:b,b,b,b red - 2 012').atStake, [0, 1, 2]);
});

test('the seating per player count is red-yellow, then blue, then green', () => {
  assert.deepEqual(SEATING[2], ['red', 'yellow']);
  assert.deepEqual(seatingFor(3), ['red', 'yellow', 'blue']);
  assert.deepEqual(seatingFor(4), ['red', 'green', 'yellow', 'blue']);
  assert.throws(() => seatingFor(5), /no seating for 5 players/);
});

test('classic stacks are the planes of a seat at the same progress on the route', () => {
  assert.deepEqual(stacksOf([12, 12, 'base', 'base']), [[0, 1]]);
  assert.deepEqual(stacksOf([12, 7, 12, 7]), [[0, 2], [1, 3]]);
  assert.deepEqual(stacksOf(['base', 'base', 'finished', 'finished']), []);
  assert.deepEqual(stacksOf([53, 53, 53, 'finished']), [[0, 1, 2]]);
  assert.deepEqual(movingWith('classic', [12, 12, 'base', 3], 1), [0, 1]);
  assert.deepEqual(movingWith('flights', [12, 12, 'base', 3], 1), [1]);
});

test('legal planes follow each edition: a six launches, classic launches on even, flights bounces', () => {
  assert.deepEqual(legalPlanes(parseTable('classic red:b,b,b,b yellow:b,b,b,b red 2 0 -')), [0, 1, 2, 3]);
  assert.deepEqual(legalPlanes(parseTable('flights red:54,b,b,b yellow:b,b,b,b red 5 0 -')), [0]);
  assert.deepEqual(legalPlanes(parseTable('classic red:55,3,b,b yellow:b,b,b,b red 3 0 -')), [1]);
  assert.deepEqual(legalPlanes(parseTable('plyyard red:b,b,12,f yellow:b,30,52,b yellow 4 0 -')), [1, 2]);
  assert.equal(finishProgress('plyyard'), 56);
  assert.equal(finishProgress('classic'), 57);
});

const REFUSALS = [
  ['', /empty/],
  ['flights red:b,b,b,b red - 0 -', /7 to 9 fields/],
  ['ludo red:b,b,b,b yellow:b,b,b,b red - 0 -', /unknown ruleset "ludo"/],
  ['flights+jump-after-shortcut red:b,b,b,b yellow:b,b,b,b red - 0 -', /flights has no house rule/],
  ['plyyard red:b,b,b,b yellow:b,b,b,b blue:b,b,b,b red - 0 -', /plyyard is not played by 3 players/],
  ['flights red:b,b,b,b green:b,b,b,b yellow:b,b,b,b red - 0 -', /green does not play with 3 players/],
  ['flights yellow:b,b,b,b red:b,b,b,b red - 0 -', /turn order: red, yellow/],
  ['flights red:b,b,b,b red:b,b,b,b red - 0 -', /red is seated twice/],
  ['flights red:b,b,b yellow:b,b,b,b red - 0 -', /red has 3 planes, not 4/],
  ['flights red:b,b,b,57 yellow:b,b,b,b red - 0 -', /red plane 3 is "57".*0\.\.56/],
  ['plyyard red:b,b,b,56 yellow:b,b,b,b red - 0 -', /0\.\.55/],
  ['flights red:b,b,b,x yellow:b,b,b,b red - 0 -', /red plane 3 is "x"/],
  ['flights pink:b,b,b,b yellow:b,b,b,b red - 0 -', /unknown colour "pink"/],
  ['flights red:b,b,b,b yellow:b,b,b,b green - 0 -', /"green", is not seated/],
  ['flights red:b,b,b,b yellow:b,b,b,b red 7 0 -', /pending roll is "7"/],
  ['flights red:b,b,b,b yellow:b,b,b,b red - 3 -', /six counter is "3"/],
  ['flights red:b,b,b,b yellow:b,b,b,b red 6 0 -', /pending 6 needs a six counter of 1 or 2/],
  ['flights red:3,b,b,b yellow:b,b,b,b red 4 1 -', /pending 4 needs a six counter of 0/],
  ['flights red:b,b,b,b yellow:b,b,b,b red 3 0 -', /no legal plane for the pending 3/],
  ['classic red:55,b,b,b yellow:b,b,b,b red 3 0 -', /no legal plane for the pending 3/],
  ['flights red:6,b,b,b yellow:b,b,b,b red - 0 0', /six counter is 0/],
  ['flights red:6,10,b,b yellow:b,b,b,b red - 2 01', /only the plane moved last/],
  ['classic red:6,b,b,b yellow:b,b,b,b red - 1 1', /red plane 1 is at stake but not on the route/],
  ['classic red:6,10,b,b yellow:b,b,b,b red - 1 10', /ascending/],
  ['plyyard red:6,b,b,b yellow:b,b,b,b red - 1 0', /plyyard puts no plane at stake/],
  ['flights red:10,b,b,b yellow:36,b,b,b red - 0 -', /red and yellow planes share ring square 10/],
  ['plyyard red:10,b,b,b yellow:36,b,b,b red - 0 -', /share ring square 10/],
  ['classic red=2:f,f,f,f yellow:40,b,b,b blue:2,b,b,b yellow - 0 -', /finishers take the best free places/],
  ['flights red:5,b,b,b yellow=2:b,b,b,b blue:3,b,b,b blue - 0 -', /takes the worst free place/],
  ['flights red:5,b,b,b yellow=3:5,b,b,b blue:3,b,b,b blue - 0 -', /out \(place 3\) but has planes in play/],
  ['flights red:5,b,b,b yellow=3:b,b,b,b blue:3,b,b,b yellow - 0 -', /yellow is to act but is out/],
  ['flights red=2:b,b,b,b yellow:b,b,b,b yellow - 0 -', /fewer than two seats are in play/],
  ['classic red:f,f,f,f yellow:40,b,b,b blue:2,b,b,b yellow - 0 -', /must carry its place/],
  ['flights red:f,f,f,f yellow:40,b,b,b red - 0 -', /the game is over/],
  ['plyyard red=1:b,b,b,b yellow:b,b,b,b yellow - 0 -', /plyyard seats carry no place/],
];

test('malformed and inconsistent lines are refused with the reason', () => {
  for (const [line, why] of REFUSALS) {
    assert.throws(() => parseTable(line), why, `refuses: ${line}`);
  }
});

test('opposing planes may share a safe square in plyyard but no square in the editions', () => {
  assert.doesNotThrow(() => parseTable('plyyard red:8,b,b,b yellow:34,b,b,b red - 0 -'));
  assert.throws(() => parseTable('classic red:8,b,b,b yellow:34,b,b,b red - 0 -'), /share ring square 8/);
  // Lanes are private: the same progress in two lanes is two squares.
  assert.doesNotThrow(() => parseTable('classic red:53,b,b,b yellow:53,b,b,b red - 0 -'));
});
