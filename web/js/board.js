// The SVG board: the static cross drawn once from geometry.js, and the planes on top of it.
//
// `BoardView` keeps one SVG group per plane, so a move can be animated along its path and the
// planes re-laid afterwards (several planes on one square are drawn smaller, side by side).
// Legal planes are buttons: click, tap, or Tab to one and press Enter or Space.
//
// One view draws one edition for the colours seated at it: `new BoardView(container, {ruleset,
// colours})`. Without options it is the two-player plyyard board, exactly as it always was.
// With `flights` or `classic` the ring takes the editions' colours (flights.md F1.2), jump
// squares carry a small arrow, each colour's flight line (flights) or shortcut (classic) is
// dashed from its square to its landing square, the runway has six squares and the bases of
// colours not seated are dimmed. Planes that share a square stay visible: own planes are drawn
// side by side, except where they are one thing: a classic stack (classic.md C7) is ONE token
// with its count, chosen and moved as one, and the planes of a colour at the editions' centre
// are one counted token.
//
// Animating a move of the editions (`animateSteps`): the room view passes the moving colour, the
// planes that move together (one plane, or a classic stack) and the move's steps, in the order
// they happen:
//
//   {kind: 'walk', from, to, bounce?}   square by square along the route ('base' → 0 is a
//                                       launch; `bounce`: on to the centre and back, flights F6.2)
//   {kind: 'jump', from, to}            a hop to the next own-colour square
//   {kind: 'flight', from, to}          along the dashed line (the classic shortcut included)
//   {kind: 'sent_home', colour, planes} those planes of `colour` fly home together
//
// Positions are progresses, 'base' or 'finished'. Each step starts when the one before ends;
// the promise resolves when the last has, and the caller then shows the position after the move
// with `setState`. With reduced motion nothing moves and the promise resolves at once.

import { drawBoard, el, starPoints } from './board-drawing.js';
import {
  ALL_COLOURS, PLAYING_COLOURS, baseSlot, landing, moveSteps, pathPoints, positionCell,
  positionPoint, runwayLength, squareKey, stepPoints,
} from './geometry.js';

export { starPoints };

const PLANE_PATH =
  'M0,-0.34 L0.06,-0.12 L0.32,0.03 L0.32,0.1 L0.06,0.04 L0.05,0.22 L0.14,0.3 L0.14,0.35 ' +
  'L0,0.31 L-0.14,0.35 L-0.14,0.3 L-0.05,0.22 L-0.06,0.04 L-0.32,0.1 L-0.32,0.03 L-0.06,-0.12 Z';

export const COLOUR_NAMES = { red: 'Red', green: 'Green', yellow: 'Yellow', blue: 'Blue' };

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

/**
 * Offsets and scale for `count` (1..4) own planes sharing one square of the editions: side by
 * side, none over another (plyyard keeps its `stackLayout`).
 */
export function spreadLayout(count) {
  if (count <= 1) return { scale: 1, offsets: [{ x: 0, y: 0 }] };
  if (count === 2) return { scale: 0.56, offsets: [{ x: -0.24, y: 0 }, { x: 0.24, y: 0 }] };
  const offsets = [{ x: -0.22, y: -0.22 }, { x: 0.22, y: -0.22 }, { x: -0.22, y: 0.22 }, { x: 0.22, y: 0.22 }];
  return { scale: 0.5, offsets: offsets.slice(0, count) };
}

/** Describes a position for people and screen readers (plyyard unless `ruleset` says). */
export function describePosition(position, ruleset = 'plyyard') {
  if (position === 'base') return 'in base';
  if (ruleset !== 'plyyard' && (position === 'finished' || position === 57)) return 'at the centre';
  if (position === 'finished') return 'finished';
  if (position <= 50) return `on square ${position} of its route`;
  return `in the home lane, step ${position - 50} of ${runwayLength(ruleset)}`;
}

function destination(position, roll) {
  if (position === 'base') return 0;
  const to = position + roll;
  return to >= 56 ? 'finished' : to;
}

// Milliseconds per square of a walk, and for a whole jump, flight and flight home.
const STEP_MS = { walk: 110, jump: 280, flight: 600, home: 330 };

function reducedMotion() {
  return Boolean(globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches);
}

export class BoardView {
  /**
   * `onSelect(colour, plane)` is called when a legal plane is chosen; `ruleset` (plyyard,
   * flights, classic) and `colours` (the seated colours) choose the board; `houseRules` the
   * options of a classic game (where a move's target lands).
   */
  constructor(container, {
    onSelect = () => {}, ruleset = 'plyyard', colours = PLAYING_COLOURS, houseRules = [],
    label = 'Aeroplane Chess board',
  } = {}) {
    this.onSelect = onSelect;
    this.ruleset = ruleset;
    this.colours = ALL_COLOURS.filter((colour) => colours.includes(colour));
    this.houseRules = houseRules;
    this.svg = el('svg', {
      viewBox: '-0.1 -0.1 15.2 15.2',
      class: ruleset === 'plyyard' ? 'board' : `board edition edition-${ruleset}`,
      role: 'group',
      'aria-label': label,
    });
    drawBoard(this.svg, ruleset, this.colours);
    this.targetLayer = el('g', { class: 'targets', 'aria-hidden': 'true' }, this.svg);
    this.planeLayer = el('g', { class: 'planes' }, this.svg);
    this.planes = new Map();
    this.state = null;
    for (const colour of this.colours) {
      for (let plane = 0; plane < 4; plane += 1) this.createPlane(colour, plane);
    }
    container.replaceChildren(this.svg);
    container.addEventListener('focusin', (event) => {
      const plane = event.target.closest?.('.plane');
      if (plane) this.showTarget(plane.dataset.colour, Number(plane.dataset.plane));
    });
    container.addEventListener('focusout', () => this.showTarget(null));
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
    const turn = { red: '', green: 'rotate(90)', yellow: 'rotate(180)', blue: 'rotate(270)' }[colour];
    el('path', { d: PLANE_PATH, class: 'glyph', transform: turn }, inner);
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
    this.planes.set(`${colour}:${plane}`, { group, inner, title, point: { x: 0, y: 0 }, scale: 1, count: null });
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
   * Shows a position: `planes` is {red: [4 positions], yellow: [...], ...} in the JSON form for
   * the seated colours; `legal` the planes of `toAct` that may move for `roll`; `selectable`
   * whether this viewer may choose one of them now.
   */
  setState({ planes, toAct = null, roll = null, legal = [], selectable = false }) {
    this.state = { planes, toAct, roll, legal, selectable };
    const groups = new Map();
    for (const colour of this.colours) {
      planes[colour].forEach((position, plane) => {
        const key = squareKey(colour, position, plane, this.ruleset);
        if (!groups.has(key)) groups.set(key, []);
        groups.get(key).push({ colour, plane, position });
      });
    }
    for (const [key, members] of groups) {
      if (this.counted(key, members)) {
        this.layCounted(members);
        continue;
      }
      const { scale, offsets } = this.ruleset === 'plyyard' ? stackLayout(members.length) : spreadLayout(members.length);
      members.forEach(({ colour, plane, position }, i) => {
        const base = positionPoint(colour, position, plane, this.ruleset);
        const point = { x: base.x + offsets[i].x, y: base.y + offsets[i].y };
        this.setCount(colour, plane, null);
        this.place(colour, plane, point, scale);
        this.describe(colour, plane, position);
      });
    }
    this.showTarget(null);
  }

  // In the editions the planes of a colour at the centre are one counted token, and so is a
  // classic stack (the planes of one colour sharing a square of the route).
  counted(key, members) {
    if (this.ruleset === 'plyyard') return false;
    if (key.startsWith('finish:')) return true;
    return this.ruleset === 'classic' && members.length > 1 && !key.startsWith('base:');
  }

  layCounted(members) {
    const [lead, ...rest] = members;
    const atCentre = squareKey(lead.colour, lead.position, lead.plane, this.ruleset).startsWith('finish:');
    const point = positionPoint(lead.colour, lead.position, lead.plane, this.ruleset);
    const scale = atCentre ? 0.62 : 1;
    this.setCount(lead.colour, lead.plane, members.length > 1 ? members.map((m) => m.plane) : null);
    this.place(lead.colour, lead.plane, point, scale);
    this.describe(lead.colour, lead.plane, lead.position);
    for (const { colour, plane, position } of rest) {
      this.setCount(colour, plane, null, true);
      this.place(colour, plane, point, scale);
      this.describe(colour, plane, position);
    }
  }

  /** Marks a plane as the token of `stack` (its plane numbers), as hidden under one, or alone. */
  setCount(colour, plane, stack, hidden = false) {
    const entry = this.planes.get(`${colour}:${plane}`);
    entry.count = stack;
    entry.group.classList.toggle('in-stack', hidden);
    entry.group.classList.toggle('stack', Boolean(stack));
    if (hidden) entry.group.setAttribute('aria-hidden', 'true');
    else entry.group.removeAttribute('aria-hidden');
    let badge = entry.inner.querySelector('.stack-count');
    if (!stack) {
      badge?.remove();
      return;
    }
    if (!badge) {
      badge = el('g', { class: 'stack-count', 'data-testid': `stack-${colour}` }, entry.inner);
      el('circle', { cx: -0.3, cy: -0.3, r: 0.24, class: 'stack-badge' }, badge);
      el('text', { x: -0.3, y: -0.2, class: 'stack-number' }, badge);
    }
    badge.setAttribute('data-count', String(stack.length));
    badge.querySelector('text').textContent = String(stack.length);
  }

  describe(colour, plane, position) {
    const entry = this.planes.get(`${colour}:${plane}`);
    const selectable = this.isSelectable(colour, plane) && !entry.group.classList.contains('in-stack');
    const who = entry.count
      ? `${COLOUR_NAMES[colour]} ${this.ruleset === 'classic' && position !== 'finished' ? 'stack of ' : ''}planes ${listPlanes(entry.count)}`
      : `${COLOUR_NAMES[colour]} plane ${plane + 1}`;
    const label = `${who}, ${describePosition(position, this.ruleset)}` + (selectable ? ', can move' : '');
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
      const entry = this.planes.get(`${s.toAct}:${legal}`);
      if (entry?.group.classList.contains('in-stack')) continue; // its stack's token shows it
      const from = s.planes[s.toAct][legal];
      const to = this.ruleset === 'plyyard'
        ? destination(from, s.roll)
        : landing(from, moveSteps(s.toAct, from, s.roll, this.ruleset, this.houseRules));
      const point = positionPoint(s.toAct, to, legal, this.ruleset);
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
  static cellOf(colour, position, ruleset = 'plyyard') {
    return positionCell(colour, position, ruleset);
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
    const points = pathPoints(colour, plane, from, to, this.ruleset);
    points[0] = entry.point;
    entry.group.parentNode.appendChild(entry.group); // draw the moving plane on top
    entry.inner.setAttribute('transform', 'scale(1)');
    if (reducedMotion() || points.length < 2) return Promise.resolve();
    const segments = points.length - 1;
    const stepMs = Math.min(110, 1000 / segments) * (from === 'base' || to === 'base' ? 3 : 1);
    return fly([entry], points, stepMs * segments);
  }

  /**
   * Plays a move of the editions: `planes` of `colour` (one plane, or a classic stack) go
   * through `steps` in order (see the module comment); resolves when the last step ends.
   */
  async animateSteps(colour, planes, steps) {
    const movers = planes.map((plane) => this.planes.get(`${colour}:${plane}`)).filter(Boolean);
    if (movers.length === 0) return;
    const [lead] = movers;
    for (const entry of movers) entry.group.parentNode.appendChild(entry.group);
    lead.inner.setAttribute('transform', 'scale(1)');
    const reduced = reducedMotion();
    for (const step of steps) {
      if (step.kind === 'sent_home') {
        await Promise.all(step.planes.map((plane) => this.sendHome(step.colour, plane, reduced)));
        continue;
      }
      const points = stepPoints(colour, planes[0], step, this.ruleset);
      points[0] = lead.point;
      const end = points.at(-1);
      if (!reduced && points.length > 1) {
        const ms = step.kind === 'walk' ? STEP_MS.walk * (points.length - 1) : STEP_MS[step.kind];
        await fly(movers, points, ms);
      }
      for (const entry of movers) entry.point = end;
    }
  }

  // A plane sent home: shown again if it was under a stack's token, then flown to its slot.
  sendHome(colour, plane, reduced) {
    const entry = this.planes.get(`${colour}:${plane}`);
    if (!entry) return Promise.resolve();
    this.setCount(colour, plane, null);
    entry.group.classList.add('captured');
    setTimeout(() => entry.group.classList.remove('captured'), 1200);
    const home = baseSlot(colour, plane);
    const points = [entry.point, home];
    entry.point = home;
    if (reduced) return Promise.resolve();
    return fly([entry], points, STEP_MS.home);
  }
}

function listPlanes(planes) {
  const names = planes.map((p) => String(p + 1));
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

// Moves the groups of `entries` together along `points` in `total` ms (eased per segment).
function fly(entries, points, total) {
  const segments = points.length - 1;
  return new Promise((resolve) => {
    const started = performance.now();
    const frame = (now) => {
      if (!entries[0].group.isConnected) { resolve(); return; }
      const t = Math.max(0, Math.min(1, (now - started) / total)); // a frame may predate `started`
      const exact = t * segments;
      const i = Math.min(segments - 1, Math.floor(exact));
      const f = exact - i;
      const ease = f < 0.5 ? 2 * f * f : 1 - (-2 * f + 2) ** 2 / 2;
      const x = points[i].x + (points[i + 1].x - points[i].x) * ease;
      const y = points[i].y + (points[i + 1].y - points[i].y) * ease;
      for (const entry of entries) entry.group.setAttribute('transform', `translate(${x.toFixed(3)} ${y.toFixed(3)})`);
      if (t < 1) requestAnimationFrame(frame);
      else resolve();
    };
    requestAnimationFrame(frame);
  });
}
