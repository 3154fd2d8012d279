// The SVG board: the static cross drawn once from geometry.js, and the planes on top of it.
//
// `BoardView` keeps one SVG group per plane, so a move can be animated along its path and the
// planes re-laid afterwards (several planes on one square are drawn smaller, side by side).
// Legal planes are buttons: click, tap, or Tab to one and press Enter or Space.

import {
  ALL_COLOURS, PLAYING_COLOURS, START_SQUARES, baseRect, baseSlot, cellCentre, finishTriangle,
  isStar, laneCell, pathPoints, positionCell, positionPoint, ringCell, squareKey,
} from './geometry.js';

const SVG = 'http://www.w3.org/2000/svg';
const PLANE_PATH =
  'M0,-0.34 L0.06,-0.12 L0.32,0.03 L0.32,0.1 L0.06,0.04 L0.05,0.22 L0.14,0.3 L0.14,0.35 ' +
  'L0,0.31 L-0.14,0.35 L-0.14,0.3 L-0.05,0.22 L-0.06,0.04 L-0.32,0.1 L-0.32,0.03 L-0.06,-0.12 Z';

export const COLOUR_NAMES = { red: 'Red', green: 'Green', yellow: 'Yellow', blue: 'Blue' };

function el(name, attributes = {}, parent = null) {
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

/** Offsets and scale for `count` planes sharing one square. */
export function stackLayout(count) {
  if (count <= 1) return { scale: 1, offsets: [{ x: 0, y: 0 }] };
  if (count === 2) return { scale: 0.66, offsets: [{ x: -0.2, y: 0 }, { x: 0.2, y: 0 }] };
  if (count <= 4) {
    const offsets = [{ x: -0.2, y: -0.2 }, { x: 0.2, y: -0.2 }, { x: -0.2, y: 0.2 }, { x: 0.2, y: 0.2 }];
    return { scale: 0.56, offsets: offsets.slice(0, count) };
  }
  const offsets = [];
  for (let i = 0; i < count; i += 1) {
    offsets.push({ x: ((i % 3) - 1) * 0.29, y: (Math.floor(i / 3) - 1) * 0.29 });
  }
  return { scale: 0.4, offsets };
}

/** Describes a position for people and screen readers. */
export function describePosition(position) {
  if (position === 'base') return 'in base';
  if (position === 'finished') return 'finished';
  if (position <= 50) return `on square ${position} of its route`;
  return `in the home lane, step ${position - 50} of 5`;
}

function destination(position, roll) {
  if (position === 'base') return 0;
  const to = position + roll;
  return to >= 56 ? 'finished' : to;
}

export class BoardView {
  /** `onSelect(colour, plane)` is called when a legal plane is chosen. */
  constructor(container, { onSelect = () => {} } = {}) {
    this.onSelect = onSelect;
    this.svg = el('svg', {
      viewBox: '-0.1 -0.1 15.2 15.2',
      class: 'board',
      role: 'group',
      'aria-label': 'Aeroplane Chess board',
    });
    this.drawStatic();
    this.targetLayer = el('g', { class: 'targets', 'aria-hidden': 'true' }, this.svg);
    this.planeLayer = el('g', { class: 'planes' }, this.svg);
    this.planes = new Map();
    this.state = null;
    for (const colour of PLAYING_COLOURS) {
      for (let plane = 0; plane < 4; plane += 1) this.createPlane(colour, plane);
    }
    container.replaceChildren(this.svg);
    container.addEventListener('focusin', (event) => {
      const plane = event.target.closest?.('.plane');
      if (plane) this.showTarget(plane.dataset.colour, Number(plane.dataset.plane));
    });
    container.addEventListener('focusout', () => this.showTarget(null));
  }

  drawStatic() {
    const board = el('g', { class: 'static', 'aria-hidden': 'true' }, this.svg);
    el('rect', { x: 0, y: 0, width: 15, height: 15, rx: 0.3, class: 'board-bg' }, board);
    for (const colour of ALL_COLOURS) {
      const active = PLAYING_COLOURS.includes(colour);
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

  createPlane(colour, plane) {
    const group = el('g', {
      class: `plane plane-${colour}`,
      'data-colour': colour,
      'data-plane': plane,
      'data-testid': `plane-${colour}-${plane}`,
    }, this.planeLayer);
    const inner = el('g', { class: 'plane-inner' }, group);
    // An invisible disc one square wide: the touch target is at least 24 px on a phone.
    el('circle', { r: 0.56, class: 'hit' }, inner);
    el('circle', { r: 0.47, class: 'halo' }, inner);
    el('circle', { r: 0.41, class: `body fill-${colour}` }, inner);
    el('path', { d: PLANE_PATH, class: 'glyph', transform: colour === 'yellow' ? 'rotate(180)' : '' }, inner);
    const badge = el('text', { x: 0.27, y: 0.36, class: 'plane-number' }, inner);
    badge.textContent = String(plane + 1);
    const title = el('title', {}, group);
    group.addEventListener('click', () => this.choose(colour, plane));
    group.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        this.choose(colour, plane);
      }
    });
    // Focus is followed on the HTML container (see the constructor): Chromium makes an SVG
    // element with focus listeners of its own a tab stop, which would put every plane in the
    // tab order, the opponent's included.
    group.addEventListener('mouseenter', () => this.showTarget(colour, plane));
    group.addEventListener('mouseleave', () => this.showTarget(null));
    this.planes.set(`${colour}:${plane}`, { group, inner, title, point: { x: 0, y: 0 }, scale: 1 });
  }

  choose(colour, plane) {
    if (!this.isSelectable(colour, plane)) return;
    this.onSelect(colour, plane);
  }

  isSelectable(colour, plane) {
    const s = this.state;
    return Boolean(s && s.selectable && s.toAct === colour && s.legal.includes(plane));
  }

  /**
   * Shows a position: `planes` is {red: [4 positions], yellow: [...]} in the JSON form;
   * `legal` the planes of `toAct` that may move for `roll`; `selectable` whether this viewer may
   * choose one of them now.
   */
  setState({ planes, toAct = null, roll = null, legal = [], selectable = false }) {
    this.state = { planes, toAct, roll, legal, selectable };
    const groups = new Map();
    for (const colour of PLAYING_COLOURS) {
      planes[colour].forEach((position, plane) => {
        const key = squareKey(colour, position, plane);
        if (!groups.has(key)) groups.set(key, []);
        groups.get(key).push({ colour, plane, position });
      });
    }
    for (const members of groups.values()) {
      const { scale, offsets } = stackLayout(members.length);
      members.forEach(({ colour, plane, position }, i) => {
        const base = positionPoint(colour, position, plane);
        const point = { x: base.x + offsets[i].x, y: base.y + offsets[i].y };
        this.place(colour, plane, point, scale);
        this.describe(colour, plane, position);
      });
    }
    this.showTarget(null);
  }

  describe(colour, plane, position) {
    const entry = this.planes.get(`${colour}:${plane}`);
    const selectable = this.isSelectable(colour, plane);
    const label = `${COLOUR_NAMES[colour]} plane ${plane + 1}, ${describePosition(position)}` +
      (selectable ? ', can move' : '');
    entry.title.textContent = label;
    entry.group.setAttribute('aria-label', label);
    entry.group.setAttribute('data-position', String(position));
    entry.group.classList.toggle('legal', selectable);
    entry.group.classList.toggle(
      'movable',
      Boolean(this.state.toAct === colour && this.state.legal.includes(plane)),
    );
    if (selectable) {
      entry.group.setAttribute('tabindex', '0');
      entry.group.setAttribute('role', 'button');
    } else {
      entry.group.removeAttribute('tabindex');
      entry.group.setAttribute('role', 'img');
    }
  }

  place(colour, plane, point, scale) {
    const entry = this.planes.get(`${colour}:${plane}`);
    entry.point = point;
    entry.scale = scale;
    entry.group.setAttribute('transform', `translate(${point.x.toFixed(3)} ${point.y.toFixed(3)})`);
    entry.inner.setAttribute('transform', `scale(${scale})`);
  }

  /**
   * Marks where every selectable plane would land (touch screens have no hover), the one
   * hovered or focused more strongly, with the plane's number.
   */
  showTarget(colour, plane) {
    this.targetLayer.replaceChildren();
    const s = this.state;
    if (!s || !s.selectable || !s.toAct) return;
    for (const legal of s.legal) {
      const from = s.planes[s.toAct][legal];
      const point = positionPoint(s.toAct, destination(from, s.roll), legal);
      const chosen = colour === s.toAct && plane === legal;
      el('circle', {
        cx: point.x, cy: point.y, r: 0.42, class: `target stroke-${s.toAct}${chosen ? ' chosen' : ''}`,
        'data-target': legal,
      }, this.targetLayer);
      const label = el('text', { x: point.x, y: point.y + 0.12, class: 'target-number' }, this.targetLayer);
      label.textContent = String(legal + 1);
    }
  }

  /** A short burst around a plane that reached the finish. */
  celebrate(colour, plane) {
    const entry = this.planes.get(`${colour}:${plane}`);
    if (!entry) return;
    entry.group.classList.add('finishing');
    setTimeout(() => entry.group.classList.remove('finishing'), 1500);
  }

  /** Draws attention to one plane for a few seconds (a hint). */
  flash(colour, plane) {
    const entry = this.planes.get(`${colour}:${plane}`);
    if (!entry) return;
    entry.group.classList.add('hinted');
    setTimeout(() => entry.group.classList.remove('hinted'), 3000);
  }

  /** The cell a (colour, position) pair is drawn on, for tests and tools. */
  static cellOf(colour, position) {
    return positionCell(colour, position);
  }

  /**
   * Moves one plane along its path from `from` to `to`; resolves when done. Steps take about
   * 110 ms each, the whole move at most a second; with reduced motion it jumps.
   */
  animate(colour, plane, from, to) {
    const entry = this.planes.get(`${colour}:${plane}`);
    if (to === 'base') {
      // A captured plane flies home; the class marks it for styles and tests meanwhile.
      entry.group.classList.add('captured');
      setTimeout(() => entry.group.classList.remove('captured'), 1200);
    }
    const points = pathPoints(colour, plane, from, to);
    points[0] = entry.point;
    entry.group.parentNode.appendChild(entry.group); // draw the moving plane on top
    entry.inner.setAttribute('transform', 'scale(1)');
    const reduced = globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
    if (reduced || points.length < 2) return Promise.resolve();
    const segments = points.length - 1;
    const stepMs = Math.min(110, 1000 / segments) * (from === 'base' || to === 'base' ? 3 : 1);
    const total = stepMs * segments;
    return new Promise((resolve) => {
      const started = performance.now();
      const frame = (now) => {
        if (!entry.group.isConnected) { resolve(); return; }
        const t = Math.max(0, Math.min(1, (now - started) / total)); // a frame may predate `started`
        const exact = t * segments;
        const i = Math.min(segments - 1, Math.floor(exact));
        const f = exact - i;
        const ease = f < 0.5 ? 2 * f * f : 1 - (-2 * f + 2) ** 2 / 2;
        const x = points[i].x + (points[i + 1].x - points[i].x) * ease;
        const y = points[i].y + (points[i + 1].y - points[i].y) * ease;
        entry.group.setAttribute('transform', `translate(${x.toFixed(3)} ${y.toFixed(3)})`);
        if (t < 1) requestAnimationFrame(frame);
        else resolve();
      };
      requestAnimationFrame(frame);
    });
  }
}
