// Ratings shown the lichess way, a game told from one player's side, a live room in words, and
// which player narrows the game list to a finished room.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { colourOf, gameFromSide, liveRoomText, ratingText } from '../../js/players.js';
import { recordFilter } from '../../js/views/game-over.js';

const ANN = '11111111-1111-4111-8111-111111111111';
const BOB = '22222222-2222-4222-8222-222222222222';

test('a rating is rounded, with "?" while it is provisional', () => {
  assert.equal(ratingText({ rating: 1500, deviation: 350, provisional: true }), '1500?');
  assert.equal(ratingText({ rating: 1623.5, deviation: 60, provisional: false }), '1624');
  assert.equal(ratingText({ rating: 1499.49, provisional: false }), '1499');
  assert.equal(ratingText({ rank: 1, rating: 1711.8, deviation: 200, provisional: true, games: 3 }), '1712?');
  assert.equal(ratingText(1500.4), '1500');
});

test('a missing rating reads as a dash', () => {
  assert.equal(ratingText(null), '–');
  assert.equal(ratingText({}), '–');
  assert.equal(ratingText({ rating: Number.NaN }), '–');
});

const summary = (result, players = {
  red: { name: 'Ann', kind: 'human', player_id: ANN },
  yellow: { name: 'Bob', kind: 'human', player_id: BOB },
}) => ({ id: 'g', mode: 'online', players, result, moves: 10 });

test('a game reads from the player\'s side: won, lost or drawn, against whom, as which colour', () => {
  assert.deepEqual(gameFromSide(summary({ winner: 'red', reason: 'finished' }), ANN),
    { outcome: 'won', colour: 'red', opponent: 'Bob', text: 'Won against Bob (as Red)' });
  assert.equal(gameFromSide(summary({ winner: 'red', reason: 'resigned' }), BOB).text, 'Lost to Ann (as Yellow)');
  assert.equal(gameFromSide(summary({ winner: null, reason: 'agreed' }), BOB).outcome, 'draw');
  assert.equal(gameFromSide(summary({ winner: null, reason: 'agreed' }), BOB).text, 'Draw with Ann (as Yellow)');
});

test('the player is found by id even when both have the same name', () => {
  const players = { red: { name: 'Sam', player_id: ANN }, yellow: { name: 'Sam', player_id: BOB } };
  assert.equal(colourOf(players, BOB, 'Sam'), 'yellow');
});

test('without ids the player is found by name, and a stranger to the game by neither', () => {
  const players = { red: { name: 'Ann' }, yellow: { name: 'Bob' } };
  assert.equal(colourOf(players, ANN, 'Bob'), 'yellow');
  assert.equal(colourOf(players, ANN, 'Eve'), null);
  const withIds = { red: { name: 'Ann', player_id: BOB }, yellow: { name: 'Bob' } };
  assert.equal(colourOf(withIds, ANN, 'Bob'), null, 'a name is not trusted once the server says ids');
  assert.equal(gameFromSide(summary(null, players), ANN, 'Eve').text, 'Ann against Bob');
});

test('the computer is named as such', () => {
  const players = { red: { name: 'Ann', kind: 'human', player_id: ANN }, yellow: { name: 'Computer', kind: 'computer', level: 'hard' } };
  assert.equal(gameFromSide(summary({ winner: 'yellow', reason: 'finished' }, players), ANN).text, 'Lost to the computer (hard) (as Red)');
});

test('a live room reads as its kind, the player\'s seat and its phase', () => {
  assert.equal(liveRoomText({ mode: 'online', colour: 'yellow', phase: 'playing' }), 'Online game, you are Yellow, in play');
  assert.equal(liveRoomText({ mode: 'online', colour: 'red', phase: 'waiting' }), 'Online game, you are Red, waiting for a second player');
  assert.equal(liveRoomText({ mode: 'local', colour: 'red', phase: 'playing' }), 'Same-device game, both colours, in play');
});

test('a finished room\'s record is looked for by a player id when seats carry one, else by Red\'s name', () => {
  assert.equal(recordFilter({ red: { name: 'Ann', player_id: ANN }, yellow: { name: 'Bob', player_id: BOB } }), ANN);
  assert.equal(recordFilter({ red: { name: 'Computer' }, yellow: { name: 'Bob', player_id: BOB } }), BOB);
  assert.equal(recordFilter({ red: { name: 'Ann' }, yellow: { name: 'Bob' } }), 'Ann');
});

test('a game of three or four, or of another edition, is told by the player\'s place', () => {
  const CID = '33333333-3333-4333-8333-333333333333';
  const players = {
    red: { name: 'Ann', kind: 'human', player_id: ANN },
    yellow: { name: 'Bob', kind: 'human', player_id: BOB },
    blue: { name: 'Cid', kind: 'human', player_id: CID },
  };
  const game = {
    id: 'g', mode: 'online', ruleset: 'classic', players, moves: 40,
    result: { winner: 'yellow', reason: 'finished', places: { red: 3, yellow: 1, blue: 2 } },
  };
  assert.deepEqual(
    [gameFromSide(game, BOB).text, gameFromSide(game, CID).text, gameFromSide(game, ANN).outcome],
    ['1st of 3 in classic (as Yellow)', '2nd of 3 in classic (as Blue)', 'lost'],
  );
  assert.equal(gameFromSide(game, BOB).outcome, 'won');
  assert.equal(colourOf(players, CID), 'blue');
  const drawn = { ...game, ruleset: 'flights', result: { winner: null, reason: 'agreed', places: {} } };
  assert.deepEqual([gameFromSide(drawn, ANN).outcome, gameFromSide(drawn, ANN).text], ['draw', 'No place of 3 in flights (as Red)']);
  assert.equal(gameFromSide(game, 'someone-else').text, 'classic for 3: Ann, Bob, Cid');
});
