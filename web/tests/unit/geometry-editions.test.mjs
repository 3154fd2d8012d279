import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  ALL_COLOURS, START_SQUARES, centrePoint, finishProgressOf, flightLine, jumpProgresses,
  jumpSquares, landing, moveSteps, movePoints, pathPoints, positionCell, positionPoint, ringCell,
  ringCells, runwayCell, runwayLength, squareColour, squareKey, stepPoints, laneCell,
} from '../../js/geometry.js';

const key = ([r, c]) => `${r},${c}`;
const adjacent = (a, b) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) === 1;
const EDITIONS = ['flights', 'classic'];

test('the ring squares repeat red, green, yellow, blue and each start square has its own colour', () => {
  assert.deepEqual([0, 1, 2, 3, 4, 51].map(squareColour), ['red', 'green', 'yellow', 'blue', 'red', 'blue']);
  for (const colour of ALL_COLOURS) assert.equal(squareColour(START_SQUARES[colour]), colour);
  for (const colour of ALL_COLOURS) {
    assert.equal(ringCells().filter((_, i) => squareColour(i) === colour).length, 13);
  }
});

test('jump squares are own-colour squares 4..44 without the flight square (flights F1.7, F5)', () => {
  assert.deepEqual(jumpProgresses('flights'), [4, 8, 12, 16, 20, 24, 28, 32, 40, 44]);
  assert.deepEqual(jumpSquares('red', 'flights'), [4, 8, 12, 16, 20, 24, 28, 32, 40, 44]);
  assert.deepEqual(jumpSquares('yellow', 'flights').slice(0, 3), [30, 34, 38]);
  for (const colour of ALL_COLOURS) {
    for (const square of jumpSquares(colour, 'flights')) assert.equal(squareColour(square), colour);
  }
  assert.deepEqual(jumpProgresses('plyyard'), []);
});

test('classic jump squares are 4..44 without the shortcut square (classic C1.4)', () => {
  assert.deepEqual(jumpProgresses('classic'), [4, 8, 12, 16, 24, 28, 32, 36, 40, 44]);
  assert.deepEqual(jumpSquares('green', 'classic').slice(0, 2), [17, 21]);
});

test('the flight line goes from progress 36 to 48 (flights F1.8: red 36→48, yellow 10→22, green 49→9, blue 23→35)', () => {
  const ends = Object.fromEntries(ALL_COLOURS.map((c) => [c, [flightLine(c, 'flights').fromRing, flightLine(c, 'flights').toRing]]));
  assert.deepEqual(ends, { red: [36, 48], green: [49, 9], yellow: [10, 22], blue: [23, 35] });
  const red = flightLine('red', 'flights');
  assert.equal(red.crosses, null);
  assert.deepEqual(red.points, [positionPoint('red', 36, 0, 'flights'), positionPoint('red', 48, 0, 'flights')]);
  for (const colour of ALL_COLOURS) {
    const line = flightLine(colour, 'flights');
    assert.equal(squareColour(line.fromRing), colour);
    assert.equal(squareColour(line.toRing), colour);
  }
  assert.equal(flightLine('red', 'plyyard'), null);
});

test('the classic shortcut goes from 20 to 32 across the opposite lane at its third square (C1.5)', () => {
  const red = flightLine('red', 'classic');
  assert.deepEqual([red.fromRing, red.toRing], [20, 32]);
  assert.deepEqual(red.crosses, { colour: 'yellow', progress: 53 });
  assert.equal(red.points.length, 3);
  assert.deepEqual(red.points[1], positionPoint('yellow', 53, 0, 'classic'));
  assert.deepEqual(flightLine('green', 'classic').crosses, { colour: 'blue', progress: 53 });
  // The crossed lane square touches the shortcut square: the line leaves it straight across.
  assert.ok(adjacent(ringCell(20), positionCell('yellow', 53, 'classic')));
});

test('the editions have a runway of six squares and the centre at 57', () => {
  for (const ruleset of EDITIONS) {
    assert.equal(runwayLength(ruleset), 6);
    assert.equal(finishProgressOf(ruleset), 57);
    const seen = new Set(ringCells().map(key));
    for (const colour of ALL_COLOURS) {
      const mouth = ringCell((START_SQUARES[colour] + 50) % 52);
      const runway = [51, 52, 53, 54, 55, 56].map((p) => positionCell(colour, p, ruleset));
      assert.ok(adjacent(mouth, runway[0]), `${colour} runway starts next to its entrance`);
      for (let i = 1; i < 6; i += 1) assert.ok(adjacent(runway[i - 1], runway[i]));
      for (const cell of runway) {
        assert.ok(!seen.has(key(cell)), `${cell} is one square only`);
        seen.add(key(cell));
      }
      assert.deepEqual(runway.slice(0, 5), [1, 2, 3, 4, 5].map((s) => laneCell(colour, s)));
      assert.equal(positionCell(colour, 57, ruleset), null);
      assert.deepEqual(positionPoint(colour, 57, 2, ruleset), centrePoint(colour, ruleset));
      assert.deepEqual(positionPoint(colour, 'finished', 2, ruleset), centrePoint(colour, ruleset));
    }
    // The sixth squares sit in the centre block, around its middle cell.
    assert.deepEqual(runwayCell('red', 6, ruleset), [7, 6]);
    assert.deepEqual(runwayCell('yellow', 6, ruleset), [7, 8]);
  }
  assert.throws(() => runwayCell('red', 6), /out of range/);
  assert.equal(squareKey('red', 56, 0, 'flights'), 'lane:red:56');
  assert.equal(squareKey('red', 57, 0, 'flights'), 'finish:red');
  assert.equal(squareKey('red', 56, 0), 'finish:red');
});

test('the centre points of the four colours are apart', () => {
  for (const ruleset of EDITIONS) {
    const points = ALL_COLOURS.map((c) => centrePoint(c, ruleset));
    for (let i = 0; i < 4; i += 1) {
      for (let j = i + 1; j < 4; j += 1) {
        assert.ok(Math.hypot(points[i].x - points[j].x, points[i].y - points[j].y) > 0.4);
      }
    }
  }
});

test('a four-colour path walks every square of the route to the centre', () => {
  for (const colour of ALL_COLOURS) {
    const path = pathPoints(colour, 1, 0, 'finished', 'flights');
    assert.equal(path.length, 58);
    assert.deepEqual(path[0], positionPoint(colour, 0, 1, 'flights'));
    assert.deepEqual(path.at(-1), centrePoint(colour, 'flights'));
    for (let i = 1; i < 57; i += 1) {
      const d = Math.hypot(path[i].x - path[i - 1].x, path[i].y - path[i - 1].y);
      assert.ok(d > 0.99 && d < 1.42, `${colour} step ${i} goes to a neighbouring square`);
    }
  }
});

test('the steps of a move: walk, jump, flight, as in the worked examples', () => {
  assert.deepEqual(moveSteps('red', 1, 3, 'flights'), [{ kind: 'walk', from: 1, to: 4 }, { kind: 'jump', from: 4, to: 8 }]);
  assert.deepEqual(moveSteps('red', 29, 3, 'flights'), [
    { kind: 'walk', from: 29, to: 32 }, { kind: 'jump', from: 32, to: 36 }, { kind: 'flight', from: 36, to: 48 },
  ]);
  assert.deepEqual(moveSteps('red', 30, 6, 'flights'), [{ kind: 'walk', from: 30, to: 36 }, { kind: 'flight', from: 36, to: 48 }]);
  assert.deepEqual(moveSteps('red', 54, 5, 'flights'), [{ kind: 'walk', from: 54, to: 55, bounce: true }]);
  assert.deepEqual(moveSteps('red', 'base', 6, 'flights'), [{ kind: 'walk', from: 'base', to: 0 }]);
  assert.equal(moveSteps('red', 'base', 4, 'flights'), null);
  assert.deepEqual(moveSteps('red', 'base', 4, 'classic'), [{ kind: 'walk', from: 'base', to: 0 }]);
  assert.deepEqual(moveSteps('red', 13, 3, 'classic'), [
    { kind: 'walk', from: 13, to: 16 }, { kind: 'jump', from: 16, to: 20 }, { kind: 'flight', from: 20, to: 32 },
  ]);
  assert.deepEqual(moveSteps('red', 17, 3, 'classic'), [{ kind: 'walk', from: 17, to: 20 }, { kind: 'flight', from: 20, to: 32 }]);
  assert.deepEqual(moveSteps('red', 17, 3, 'classic', ['jump-after-shortcut']), [
    { kind: 'walk', from: 17, to: 20 }, { kind: 'flight', from: 20, to: 32 }, { kind: 'jump', from: 32, to: 36 },
  ]);
  assert.equal(moveSteps('red', 55, 3, 'classic'), null);
  assert.deepEqual(moveSteps('red', 55, 2, 'classic'), [{ kind: 'walk', from: 55, to: 'finished' }]);
  assert.deepEqual(moveSteps('red', 44, 4, 'flights'), [{ kind: 'walk', from: 44, to: 48 }], 'no jump from 48');
  assert.deepEqual(moveSteps('red', 48, 3, 'plyyard'), [{ kind: 'walk', from: 48, to: 51 }]);
  assert.equal(landing(29, moveSteps('red', 29, 3, 'flights')), 48);
});

test('the path of a move with a jump then a flight follows the walk, the hop and the dashed line', () => {
  const steps = [
    { kind: 'walk', from: 29, to: 32 }, { kind: 'jump', from: 32, to: 36 }, { kind: 'flight', from: 36, to: 48 },
    { kind: 'sent_home', colour: 'yellow', planes: [0] },
  ];
  const points = movePoints('red', 0, steps, 'flights');
  const at = (p) => positionPoint('red', p, 0, 'flights');
  assert.deepEqual(points, [at(29), at(30), at(31), at(32), at(36), at(48)]);
  const shortcut = stepPoints('red', 0, { kind: 'flight', from: 20, to: 32 }, 'classic');
  assert.deepEqual(shortcut, [positionPoint('red', 20, 0, 'classic'), positionPoint('yellow', 53, 0, 'classic'), positionPoint('red', 32, 0, 'classic')]);
  const bounce = stepPoints('red', 0, { kind: 'walk', from: 54, to: 55, bounce: true }, 'flights');
  assert.deepEqual(bounce, [at(54), at(55), at(56), centrePoint('red', 'flights'), at(56), at(55)]);
});
