// Board geometry of rules.md §1–§2 on the 15×15 cross, as pure functions (no DOM), and of the
// editions `flights` and `classic` (docs/rules/flights.md F1, classic.md C1), which share its
// ring, corners and lanes and add a coloured ring, jumps, a flight or shortcut and a longer runway.
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
//
// The editions' runway has six squares (progress 51..56): the five lane cells and, sixth, the
// cell of the centre 3×3 in front of the lane (inside the colour's centre triangle). Their centre
// (progress 57) is a point of the middle cell on the colour's side, where its finished planes are
// drawn as one counted token. Every function that depends on the edition takes the ruleset as
// its last, optional argument; without it the answer is plyyard's, exactly as before.

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

/** Whether ring square `index` is safe in plyyard (a start square or a star). */
export function isSafe(index) {
  return SAFE_SQUARES.includes(index);
}

/** Whether ring square `index` carries a star in plyyard. */
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

/** The point at the centre of a grid cell. */
export function cellCentre([row, col]) {
  return { x: col + 0.5, y: row + 0.5 };
}

// ---- The editions ----------------------------------------------------------------------------

/** The rulesets whose board this module draws. */
export const RULESETS = ['plyyard', 'flights', 'classic'];

// What differs between the boards: where the finish is, how long the lane is, from which
// progress a plane jumps, and where the flight (flights F1.8) or shortcut (classic C1.5) goes.
const EDITIONS = {
  plyyard: { finish: 56, lane: 5, jumpsFrom: [], line: null },
  flights: {
    finish: 57,
    lane: 6,
    // F1.7 and F5 step 2: own-colour squares 4..44 (0 is only reached by a launch, which never
    // jumps; 48 has no jump), except the flight square 36.
    jumpsFrom: [4, 8, 12, 16, 20, 24, 28, 32, 40, 44],
    line: { from: 36, to: 48, crosses: null },
  },
  classic: {
    finish: 57,
    lane: 6,
    // C1.4: own-colour squares 4..44 except the shortcut square 20.
    jumpsFrom: [4, 8, 12, 16, 24, 28, 32, 36, 40, 44],
    line: { from: 20, to: 32, crosses: 53 },
  },
};

function edition(ruleset) {
  const found = EDITIONS[ruleset];
  if (!found) throw new Error(`unknown ruleset ${ruleset}`);
  return found;
}

/** The progress of the finish (the centre) in `ruleset`: 56 in plyyard, 57 in the editions. */
export function finishProgressOf(ruleset = 'plyyard') {
  return edition(ruleset).finish;
}

/** The number of home-lane (runway) squares in `ruleset`: 5 in plyyard, 6 in the editions. */
export function runwayLength(ruleset = 'plyyard') {
  return edition(ruleset).lane;
}

/** The colour of ring square `index` in the editions (flights F1.2: the colours repeat every 4). */
export function squareColour(index) {
  if (!Number.isInteger(index) || index < 0 || index >= RING_LEN) {
    throw new Error(`ring index out of range: ${index}`);
  }
  return ALL_COLOURS[index % 4];
}

/** The progresses from which a plane that stops there jumps 4 on (none in plyyard). */
export function jumpProgresses(ruleset = 'plyyard') {
  return [...edition(ruleset).jumpsFrom];
}

/** The ring indices of `colour`'s jump squares in `ruleset`, in travel order. */
export function jumpSquares(colour, ruleset = 'plyyard') {
  return jumpProgresses(ruleset).map((p) => ringIndexOf(colour, p));
}

/** The grid cell of runway square `step` (1..=5 in plyyard, 1..=6 in the editions) of `colour`. */
export function runwayCell(colour, step, ruleset = 'plyyard') {
  const length = runwayLength(ruleset);
  if (!Number.isInteger(step) || step < 1 || step > length) {
    throw new Error(`runway step out of range: ${step}`);
  }
  return rotateCell([7, step], quarterTurns(colour));
}

/**
 * The dashed flight line of flights (F1.8) or the shortcut of classic (C1.5) of `colour`, or
 * null in plyyard: {from, to} progresses, {fromRing, toRing} ring indices, the crossed lane
 * square of the opposite colour (classic) as {colour, progress} or null, and the points of the
 * line from its square to its landing square (through the crossed lane square).
 */
export function flightLine(colour, ruleset = 'plyyard') {
  const line = edition(ruleset).line;
  if (!line) return null;
  const fromRing = ringIndexOf(colour, line.from);
  const toRing = ringIndexOf(colour, line.to);
  const opposite = ALL_COLOURS[(quarterTurns(colour) + 2) % 4];
  const crosses = line.crosses === null ? null : { colour: opposite, progress: line.crosses };
  const points = [cellCentre(ringCell(fromRing))];
  if (crosses) points.push(cellCentre(runwayCell(opposite, crosses.progress - LAST_RING_PROGRESS, ruleset)));
  points.push(cellCentre(ringCell(toRing)));
  return { from: line.from, to: line.to, fromRing, toRing, crosses, points };
}

/** Where the planes of `colour` that reached the centre are drawn in `ruleset`. */
export function centrePoint(colour, ruleset = 'plyyard') {
  if (ruleset === 'plyyard') return finishPoint(colour);
  edition(ruleset);
  return rotatePoint({ x: 7.12, y: 7.5 }, quarterTurns(colour));
}

function isFinish(position, ruleset) {
  return position === 'finished' || position === finishProgressOf(ruleset);
}

/**
 * The grid cell of a plane of `colour` at a position of the JSON form ("base", a progress,
 * "finished"), or null for base and finish, which are not cells.
 */
export function positionCell(colour, position, ruleset = 'plyyard') {
  // A numeric plyyard 56 stays an error here, as it always was (its finish is not a cell).
  if (typeof position !== 'number' || (ruleset !== 'plyyard' && isFinish(position, ruleset))) return null;
  if (position <= LAST_RING_PROGRESS) return ringCell(ringIndexOf(colour, position));
  return runwayCell(colour, position - LAST_RING_PROGRESS, ruleset);
}

/** The point at which plane `plane` of `colour` at `position` is drawn (before stacking). */
export function positionPoint(colour, position, plane, ruleset = 'plyyard') {
  if (position === 'base') return baseSlot(colour, plane);
  if (isFinish(position, ruleset)) return centrePoint(colour, ruleset);
  return cellCentre(positionCell(colour, position, ruleset));
}

/** A key that is equal for two (colour, position) pairs exactly when they share a square. */
export function squareKey(colour, position, plane, ruleset = 'plyyard') {
  if (position === 'base') return `base:${colour}:${plane}`;
  if (isFinish(position, ruleset)) return `finish:${colour}`;
  if (position <= LAST_RING_PROGRESS) return `ring:${ringIndexOf(colour, position)}`;
  return `lane:${colour}:${position}`;
}

/**
 * The points a plane passes through moving from `from` to `to` (JSON positions), the start
 * point first: a deployment goes straight from the base slot to the start square; an advance
 * visits every square on the way; a capture (to "base") flies straight home.
 */
export function pathPoints(colour, plane, from, to, ruleset = 'plyyard') {
  const start = positionPoint(colour, from, plane, ruleset);
  if (from === 'base' || to === 'base') return [start, positionPoint(colour, to, plane, ruleset)];
  const finish = finishProgressOf(ruleset);
  const end = to === 'finished' ? finish : to;
  const points = [start];
  for (let p = from + 1; p <= end; p += 1) {
    points.push(positionPoint(colour, p === finish ? 'finished' : p, plane, ruleset));
  }
  return points;
}

/**
 * The points of one step of a move, the start point first: `{kind: 'walk', from, to, bounce}`
 * visits every square (with `bounce`, on to the centre and back to `to`, flights F6.2);
 * `{kind: 'jump', from, to}` hops straight; `{kind: 'flight', from, to}` follows the dashed
 * line (through the crossed lane square of a classic shortcut).
 */
export function stepPoints(colour, plane, step, ruleset = 'plyyard') {
  if (step.kind === 'walk') {
    if (!step.bounce) return pathPoints(colour, plane, step.from, step.to, ruleset);
    const finish = finishProgressOf(ruleset);
    const there = pathPoints(colour, plane, step.from, 'finished', ruleset);
    const back = [];
    for (let p = finish - 1; p >= step.to; p -= 1) back.push(positionPoint(colour, p, plane, ruleset));
    return [...there, ...back];
  }
  const from = positionPoint(colour, step.from, plane, ruleset);
  const to = positionPoint(colour, step.to, plane, ruleset);
  if (step.kind === 'jump') return [from, to];
  if (step.kind === 'flight') {
    const line = flightLine(colour, ruleset);
    const through = line && line.points.length === 3 ? [line.points[1]] : [];
    return [from, ...through, to];
  }
  throw new Error(`a plane's path has no step of kind ${step.kind}`);
}

/** The points of a whole move (its walk, jump and flight steps in order), the start point once. */
export function movePoints(colour, plane, steps, ruleset = 'plyyard') {
  const points = [];
  for (const step of steps) {
    if (step.kind === 'sent_home') continue;
    const part = stepPoints(colour, plane, step, ruleset);
    points.push(...(points.length === 0 ? part : part.slice(1)));
  }
  return points;
}

/**
 * The steps of a move of a plane of `colour` from `from` for `roll` (walk, then jump, then
 * flight or shortcut; flights.md F5, classic.md C5), or null when the plane may not move. It
 * says where the plane goes, not whom it sends home (the server's events say that).
 */
export function moveSteps(colour, from, roll, ruleset = 'plyyard', houseRules = []) {
  const { finish, jumpsFrom, line } = edition(ruleset);
  const done = (p) => (p === finish ? 'finished' : p);
  if (from === 'finished') return null;
  if (from === 'base') {
    const launches = ruleset === 'classic' ? roll % 2 === 0 : roll === 6;
    return launches ? [{ kind: 'walk', from: 'base', to: 0 }] : null;
  }
  let at = from + roll;
  if (at > finish) {
    if (ruleset !== 'flights') return null;
    return [{ kind: 'walk', from, to: finish - (at - finish), bounce: true }];
  }
  const steps = [{ kind: 'walk', from, to: done(at) }];
  if (at > LAST_RING_PROGRESS) return steps;
  const direct = at;
  if (jumpsFrom.includes(at)) {
    steps.push({ kind: 'jump', from: at, to: at + 4 });
    at += 4;
  }
  if (line && at === line.from) {
    steps.push({ kind: 'flight', from: at, to: line.to });
    at = line.to;
    if (houseRules.includes('jump-after-shortcut') && direct === line.from) {
      steps.push({ kind: 'jump', from: at, to: at + 4 });
    }
  }
  return steps;
}

/** Where a plane ends after the steps of a move (the last step's `to`), or `from` if none. */
export function landing(from, steps) {
  const moves = (steps ?? []).filter((step) => step.kind !== 'sent_home');
  return moves.length === 0 ? from : moves.at(-1).to;
}
