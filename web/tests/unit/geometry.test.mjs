import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  ALL_COLOURS, SAFE_SQUARES, START_SQUARES, baseRect, baseSlot, laneCell, onCross, pathPoints,
  positionCell, positionPoint, ringCell, ringCells, squareKey,
} from '../../js/geometry.js';

const key = ([r, c]) => `${r},${c}`;
const adjacent = (a, b) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) === 1;

test('the ring has 52 distinct cells, all on the cross and outside the centre', () => {
  const cells = ringCells();
  assert.equal(cells.length, 52);
  assert.equal(new Set(cells.map(key)).size, 52);
  for (const cell of cells) {
    assert.ok(onCross(cell), `${cell} is on the cross`);
    const inCentre = cell[0] >= 6 && cell[0] <= 8 && cell[1] >= 6 && cell[1] <= 8;
    assert.ok(!inCentre, `${cell} is not in the centre`);
  }
});

test('consecutive ring cells touch, diagonally only at the four inner corners', () => {
  const touches = (a, b) => Math.max(Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1])) === 1;
  const diagonalSteps = [];
  for (let i = 0; i < 52; i += 1) {
    const a = ringCell(i);
    const b = ringCell((i + 1) % 52);
    assert.ok(touches(a, b), `ring ${i} touches ring ${(i + 1) % 52}`);
    if (!adjacent(a, b)) diagonalSteps.push(i);
  }
  assert.deepEqual(diagonalSteps, [4, 17, 30, 43]);
});

test('the ring runs clockwise on the screen', () => {
  // From Red's start (left arm, top row) travel goes east, then north up the top arm.
  assert.deepEqual(ringCell(0), [6, 1]);
  assert.deepEqual(ringCell(1), [6, 2]);
  assert.deepEqual(ringCell(5), [5, 6]);
  assert.deepEqual(ringCell(13), [1, 8]);
});

test('the safe squares are the four starts and the four stars', () => {
  assert.deepEqual(SAFE_SQUARES, [0, 8, 13, 21, 26, 34, 39, 47]);
  assert.deepEqual(START_SQUARES, { red: 0, green: 13, yellow: 26, blue: 39 });
});

test('Red starts on ring 0 and Yellow on ring 26, opposite each other', () => {
  assert.deepEqual(positionCell('red', 0), ringCell(0));
  assert.deepEqual(positionCell('yellow', 0), ringCell(26));
  const [r, c] = ringCell(0);
  assert.deepEqual(ringCell(26), [14 - r, 14 - c]);
});

test('progress 50 is two squares before the own start square', () => {
  assert.deepEqual(positionCell('red', 50), ringCell(50));
  assert.deepEqual(positionCell('yellow', 50), ringCell(24));
});

test('each home lane leads from the progress-50 square to the centre', () => {
  for (const colour of ALL_COLOURS) {
    const mouth = ringCell((START_SQUARES[colour] + 50) % 52);
    const lane = [1, 2, 3, 4, 5].map((step) => laneCell(colour, step));
    assert.ok(adjacent(mouth, lane[0]), `${colour} lane starts next to its mouth`);
    for (let i = 1; i < 5; i += 1) assert.ok(adjacent(lane[i - 1], lane[i]));
    const last = lane[4];
    const centreNeighbour = [[6, 7], [7, 6], [7, 8], [8, 7]].some((c) => adjacent(last, c));
    assert.ok(centreNeighbour, `${colour} lane ends next to the centre`);
  }
  assert.deepEqual(positionCell('red', 51), [7, 1]);
  assert.deepEqual(positionCell('red', 55), [7, 5]);
  assert.deepEqual(positionCell('yellow', 55), [7, 9]);
});

test('lanes, ring and bases never overlap', () => {
  const seen = new Set(ringCells().map(key));
  for (const colour of ALL_COLOURS) {
    for (let step = 1; step <= 5; step += 1) {
      const k = key(laneCell(colour, step));
      assert.ok(!seen.has(k), `lane cell ${k} is free`);
      seen.add(k);
    }
    const base = baseRect(colour);
    for (let plane = 0; plane < 4; plane += 1) {
      const slot = baseSlot(colour, plane);
      assert.ok(slot.x > base.x && slot.x < base.x + 6 && slot.y > base.y && slot.y < base.y + 6);
    }
  }
  assert.deepEqual(baseRect('red'), { x: 0, y: 0, size: 6 });
  assert.deepEqual(baseRect('yellow'), { x: 9, y: 9, size: 6 });
});

test('planes on the same ring square share a square key across colours', () => {
  assert.equal(squareKey('red', 26, 0), squareKey('yellow', 0, 3));
  assert.notEqual(squareKey('red', 'base', 0), squareKey('red', 'base', 1));
  assert.equal(squareKey('red', 'finished', 0), squareKey('red', 'finished', 2));
});

test('a path visits every square on the way, the lane and the finish included', () => {
  const path = pathPoints('red', 0, 48, 'finished');
  assert.equal(path.length, 9);
  assert.deepEqual(path[0], positionPoint('red', 48, 0));
  assert.deepEqual(path.at(-1), positionPoint('red', 'finished', 0));
  for (let i = 1; i < path.length - 1; i += 1) {
    const d = Math.abs(path[i].x - path[i - 1].x) + Math.abs(path[i].y - path[i - 1].y);
    assert.equal(d, 1, `step ${i} is one square`);
  }
  assert.equal(pathPoints('yellow', 2, 'base', 0).length, 2);
  assert.equal(pathPoints('yellow', 2, 17, 'base').length, 2);
});
