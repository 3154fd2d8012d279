// Board geometry of rules.md §1–§2 on the 15×15 cross, as pure functions (no DOM).
//
// Grid cells are [row, col] with row 0 at the top and col 0 at the left. Points are {x, y} in
// cell units (x = col + 0.5 and y = row + 0.5 at a cell's centre), so a board drawn at any scale
// just multiplies them.
//
// Layout, seen on the screen: Red's base is the top-left corner, then clockwise Green (top-right),
// Yellow (bottom-right) and Blue (bottom-left). Each arm of the cross is 3 cells wide and 6 long;
// the ring runs along its two outer columns and across its tip (13 cells per arm, 52 in all), and
// the middle column of each arm is the home lane (5 cells) of the colour whose base is to its left
// when travelling clockwise. Ring index 0 is Red's start square, the second cell of the top row of
// the left arm, and travel is clockwise (east along that row, then north up the top arm, ...).

export const SIZE = 15;
export const RING_LEN = 52;
export const LAST_RING_PROGRESS = 50;
export const FINISH_PROGRESS = 56;

/** Colours in clockwise order from ring index 0; the index is the number of quarter turns. */
export const ALL_COLOURS = ['red', 'green', 'yellow', 'blue'];
/** The two colours that play (rules.md §1); Green and Blue bases are inactive. */
export const PLAYING_COLOURS = ['red', 'yellow'];
export const START_SQUARES = { red: 0, green: 13, yellow: 26, blue: 39 };
export const STAR_SQUARES = [8, 21, 34, 47];
export const SAFE_SQUARES = [0, 8, 13, 21, 26, 34, 39, 47];

// Red's quarter of the ring, ring indices 0..=12; the other quarters are its rotations.
const RED_QUARTER = [
  [6, 1], [6, 2], [6, 3], [6, 4], [6, 5],
  [5, 6], [4, 6], [3, 6], [2, 6], [1, 6], [0, 6],
  [0, 7], [0, 8],
];

/** Turns a cell a quarter turn clockwise about the centre, `times` times. */
export function rotateCell([row, col], times) {
  let cell = [row, col];
  for (let i = 0; i < ((times % 4) + 4) % 4; i += 1) {
    cell = [cell[1], SIZE - 1 - cell[0]];
  }
  return cell;
}

/** Turns a point a quarter turn clockwise about the centre, `times` times. */
export function rotatePoint({ x, y }, times) {
  let point = { x, y };
  for (let i = 0; i < ((times % 4) + 4) % 4; i += 1) {
    point = { x: SIZE - point.y, y: point.x };
  }
  return point;
}

function quarterTurns(colour) {
  const turns = ALL_COLOURS.indexOf(colour);
  if (turns < 0) throw new Error(`unknown colour ${colour}`);
  return turns;
}

/** The grid cell of ring square `index` (0..=51). */
export function ringCell(index) {
  if (!Number.isInteger(index) || index < 0 || index >= RING_LEN) {
    throw new Error(`ring index out of range: ${index}`);
  }
  return rotateCell(RED_QUARTER[index % 13], Math.floor(index / 13));
}

/** Every ring cell in travel order. */
export function ringCells() {
  return Array.from({ length: RING_LEN }, (_, i) => ringCell(i));
}

export function isSafe(index) {
  return SAFE_SQUARES.includes(index);
}

export function isStar(index) {
  return STAR_SQUARES.includes(index);
}

/** The grid cell of home-lane square `step` (1..=5) of `colour`. */
export function laneCell(colour, step) {
  if (!Number.isInteger(step) || step < 1 || step > 5) {
    throw new Error(`home-lane step out of range: ${step}`);
  }
  return rotateCell([7, step], quarterTurns(colour));
}

/** The ring index of progress `p` (0..=50) for `colour`. */
export function ringIndexOf(colour, progress) {
  return (START_SQUARES[colour] + progress) % RING_LEN;
}

/** Whether a grid cell lies on the cross (an arm or the centre). */
export function onCross([row, col]) {
  const inBand = (v) => v >= 6 && v <= 8;
  return row >= 0 && row < SIZE && col >= 0 && col < SIZE && (inBand(row) || inBand(col));
}

/** The 6×6 corner square of a colour's base, as {x, y, size} in cell units. */
export function baseRect(colour) {
  const corners = [{ x: 0, y: 0 }, { x: 6, y: 0 }, { x: 6, y: 6 }, { x: 0, y: 6 }].map((p) =>
    rotatePoint(p, quarterTurns(colour)),
  );
  const x = Math.min(...corners.map((p) => p.x));
  const y = Math.min(...corners.map((p) => p.y));
  return { x, y, size: 6 };
}

/** The point where plane `plane` (0..=3) of `colour` waits in its base. */
export function baseSlot(colour, plane) {
  const slots = [{ x: 2, y: 2 }, { x: 4, y: 2 }, { x: 2, y: 4 }, { x: 4, y: 4 }];
  return rotatePoint(slots[plane], quarterTurns(colour));
}

/** The centre triangle of `colour` in the finish (three points), pointing at the centre. */
export function finishTriangle(colour) {
  const red = [{ x: 6, y: 6 }, { x: 6, y: 9 }, { x: 7.5, y: 7.5 }];
  return red.map((p) => rotatePoint(p, quarterTurns(colour)));
}

/** Where finished planes of `colour` gather: inside its centre triangle. */
export function finishPoint(colour) {
  return rotatePoint({ x: 6.55, y: 7.5 }, quarterTurns(colour));
}

export function cellCentre([row, col]) {
  return { x: col + 0.5, y: row + 0.5 };
}

/**
 * The grid cell of a plane of `colour` at a position of the JSON form ("base", 0..=55,
 * "finished"), or null for base and finish, which are not cells.
 */
export function positionCell(colour, position) {
  if (typeof position !== 'number') return null;
  if (position <= LAST_RING_PROGRESS) return ringCell(ringIndexOf(colour, position));
  return laneCell(colour, position - LAST_RING_PROGRESS);
}

/** The point at which plane `plane` of `colour` at `position` is drawn (before stacking). */
export function positionPoint(colour, position, plane) {
  if (position === 'base') return baseSlot(colour, plane);
  if (position === 'finished' || position === FINISH_PROGRESS) return finishPoint(colour);
  return cellCentre(positionCell(colour, position));
}

/** A key that is equal for two (colour, position) pairs exactly when they share a square. */
export function squareKey(colour, position, plane) {
  if (position === 'base') return `base:${colour}:${plane}`;
  if (position === 'finished' || position === FINISH_PROGRESS) return `finish:${colour}`;
  if (position <= LAST_RING_PROGRESS) return `ring:${ringIndexOf(colour, position)}`;
  return `lane:${colour}:${position}`;
}

/**
 * The points a plane passes through moving from `from` to `to` (JSON positions), the start
 * point first: a deployment goes straight from the base slot to the start square; an advance
 * visits every square on the way; a capture (to "base") flies straight home.
 */
export function pathPoints(colour, plane, from, to) {
  const start = positionPoint(colour, from, plane);
  if (from === 'base' || to === 'base') return [start, positionPoint(colour, to, plane)];
  const end = to === 'finished' ? FINISH_PROGRESS : to;
  const points = [start];
  for (let p = from + 1; p <= end; p += 1) {
    points.push(positionPoint(colour, p === FINISH_PROGRESS ? 'finished' : p, plane));
  }
  return points;
}
