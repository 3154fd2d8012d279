// The static part of the SVG board, drawn once per board: the four bases (those of colours not
// seated dimmed), the ring, the lanes and the centre, in plyyard's look (start squares and
// stars) or the editions' (every square in its colour, jump arrows, dashed flight lines or
// shortcuts, runways of six). Split from board.js, which owns the planes on top of it.

import {
  ALL_COLOURS, PLAYING_COLOURS, START_SQUARES, baseRect, baseSlot, cellCentre, finishTriangle,
  flightLine, isStar, jumpSquares, laneCell, ringCell, runwayCell, runwayLength, squareColour,
} from './geometry.js';

const SVG = 'http://www.w3.org/2000/svg';

/** Creates an SVG element with `attributes`, appended to `parent` if given. */
export function el(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

/** The points of a five-pointed star centred at (cx, cy), for an SVG polygon. */
export function starPoints(cx, cy, outer, inner) {
  const points = [];
  for (let i = 0; i < 10; i += 1) {
    const radius = i % 2 === 0 ? outer : inner;
    const angle = -Math.PI / 2 + (i * Math.PI) / 5;
    points.push(`${(cx + radius * Math.cos(angle)).toFixed(3)},${(cy + radius * Math.sin(angle)).toFixed(3)}`);
  }
  return points.join(' ');
}

/** The points of a small arrow on ring square `index`, pointing along the direction of travel. */
function jumpArrow(index) {
  const a = cellCentre(ringCell(index));
  const b = cellCentre(ringCell((index + 1) % 52));
  const length = Math.hypot(b.x - a.x, b.y - a.y);
  const [dx, dy] = [(b.x - a.x) / length, (b.y - a.y) / length];
  const at = (along, across) => `${(a.x + dx * along - dy * across).toFixed(3)},${(a.y + dy * along + dx * across).toFixed(3)}`;
  return [at(0.3, 0), at(0.08, -0.2), at(0.14, 0), at(0.08, 0.2)].join(' ');
}

/** Draws the static board of `ruleset` for the seated `colours` into `svg`. */
export function drawBoard(svg, ruleset, colours) {
  const board = el('g', { class: 'static', 'aria-hidden': 'true' }, svg);
  el('rect', { x: 0, y: 0, width: 15, height: 15, rx: 0.3, class: 'board-bg' }, board);
  for (const colour of ALL_COLOURS) {
    const active = colours.includes(colour);
    const { x, y, size } = baseRect(colour);
    const base = el('g', { class: `base base-${colour}${active ? '' : ' inactive'}` }, board);
    el('rect', { x: x + 0.05, y: y + 0.05, width: size - 0.1, height: size - 0.1, rx: 0.3, class: `fill-${colour}` }, base);
    el('rect', { x: x + 0.8, y: y + 0.8, width: size - 1.6, height: size - 1.6, rx: 0.4, class: 'base-inner' }, base);
    for (let plane = 0; plane < 4; plane += 1) {
      const slot = baseSlot(colour, plane);
      el('circle', { cx: slot.x, cy: slot.y, r: 0.55, class: `slot stroke-${colour}` }, base);
    }
    if (!active) {
      const label = el('text', { x: x + 3, y: y + 3.1, class: 'inactive-label' }, base);
      label.textContent = 'not playing';
    }
  }
  if (ruleset === 'plyyard') drawPlyyardRing(board);
  else drawEditionRing(board, ruleset, colours);
}

function drawPlyyardRing(board) {
  const ring = el('g', { class: 'ring' }, board);
  for (let index = 0; index < 52; index += 1) {
    const [row, col] = ringCell(index);
    const startOf = ALL_COLOURS.find((c) => START_SQUARES[c] === index);
    const classes = ['square'];
    if (startOf) classes.push(`fill-${startOf}`, 'start');
    if (startOf && !PLAYING_COLOURS.includes(startOf)) classes.push('inactive');
    const square = el('rect', {
      x: col + 0.04, y: row + 0.04, width: 0.92, height: 0.92, rx: 0.12,
      class: classes.join(' '), 'data-ring': index,
    }, ring);
    if (startOf) square.setAttribute('data-start', startOf);
    if (isStar(index)) {
      const { x, y } = cellCentre([row, col]);
      el('polygon', { points: starPoints(x, y, 0.36, 0.15), class: 'star' }, ring);
    }
    if (startOf) {
      const { x, y } = cellCentre([row, col]);
      el('circle', { cx: x, cy: y, r: 0.3, class: 'start-mark' }, ring);
    }
  }
  for (const colour of ALL_COLOURS) {
    const active = PLAYING_COLOURS.includes(colour);
    const lane = el('g', { class: `lane${active ? '' : ' inactive'}` }, board);
    for (let step = 1; step <= 5; step += 1) {
      const [row, col] = laneCell(colour, step);
      el('rect', { x: col + 0.04, y: row + 0.04, width: 0.92, height: 0.92, rx: 0.12, class: `square fill-${colour}` }, lane);
    }
    const triangle = finishTriangle(colour).map((p) => `${p.x},${p.y}`).join(' ');
    el('polygon', { points: triangle, class: `finish fill-${colour}${active ? '' : ' inactive'}` }, board);
  }
}

// The editions' ring: every square in its colour, jump squares with an arrow, start squares
// ringed, the flight lines or shortcuts dashed, and runways of six ending in the centre.
function drawEditionRing(board, ruleset, colours) {
  for (const colour of ALL_COLOURS) {
    const triangle = finishTriangle(colour).map((p) => `${p.x},${p.y}`).join(' ');
    const active = colours.includes(colour);
    el('polygon', { points: triangle, class: `finish fill-${colour}${active ? '' : ' inactive'}` }, board);
  }
  const ring = el('g', { class: 'ring' }, board);
  const jumps = new Set(ALL_COLOURS.flatMap((colour) => jumpSquares(colour, ruleset)));
  for (let index = 0; index < 52; index += 1) {
    const [row, col] = ringCell(index);
    const colour = squareColour(index);
    const start = START_SQUARES[colour] === index;
    const square = el('rect', {
      x: col + 0.04, y: row + 0.04, width: 0.92, height: 0.92, rx: 0.12,
      class: `square fill-${colour}${start ? ' start' : ''}${jumps.has(index) ? ' jump' : ''}`,
      'data-ring': index,
    }, ring);
    if (start) {
      square.setAttribute('data-start', colour);
      const { x, y } = cellCentre([row, col]);
      el('circle', { cx: x, cy: y, r: 0.3, class: 'start-mark' }, ring);
    }
    if (jumps.has(index)) el('polygon', { points: jumpArrow(index), class: `jump-mark stroke-${colour}` }, ring);
  }
  for (const colour of ALL_COLOURS) {
    const active = colours.includes(colour);
    const lane = el('g', { class: `lane${active ? '' : ' inactive'}` }, board);
    for (let step = 1; step <= runwayLength(ruleset); step += 1) {
      const [row, col] = runwayCell(colour, step, ruleset);
      el('rect', { x: col + 0.04, y: row + 0.04, width: 0.92, height: 0.92, rx: 0.12, class: `square fill-${colour}` }, lane);
    }
  }
  const lines = el('g', { class: 'flight-lines' }, board);
  for (const colour of ALL_COLOURS) {
    const line = flightLine(colour, ruleset);
    const active = colours.includes(colour);
    const points = line.points.map((p) => `${p.x},${p.y}`).join(' ');
    const group = el('g', { class: `flight-line${active ? '' : ' inactive'}`, 'data-flight': colour }, lines);
    el('polyline', { points, class: `flight-path stroke-${colour}` }, group);
    const [from, to] = [line.points[0], line.points.at(-1)];
    el('circle', { cx: from.x, cy: from.y, r: 0.34, class: `flight-from stroke-${colour}` }, group);
    el('circle', { cx: to.x, cy: to.y, r: 0.16, class: `flight-to fill-${colour}` }, group);
  }
}
