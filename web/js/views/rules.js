// "How to play": the rules this server enforces, in plain words, each with a small diagram of a
// strip of squares (drawn in SVG with the board's own colours and plane shape).

import { starPoints } from '../board.js';
import { h } from '../dom.js';

const SVG = 'http://www.w3.org/2000/svg';

function svg(name, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  for (const child of children) if (child) node.append(child);
  return node;
}

/**
 * A strip of `squares` squares; `marks` maps a square index to {plane: 'red'|'yellow', label,
 * star, safe, ghost}; `arrow` = [from, to] draws the move.
 */
function strip(label, squares, marks, arrow = null) {
  const width = squares * 1.1 + 0.1;
  const drawing = svg('svg', { viewBox: `0 -0.6 ${width} 2`, class: 'diagram', role: 'img', 'aria-label': label });
  for (let i = 0; i < squares; i += 1) {
    const mark = marks[i] ?? {};
    const x = 0.1 + i * 1.1;
    drawing.append(svg('rect', {
      x, y: 0, width: 1, height: 1, rx: 0.12,
      class: `square${mark.start ? ` fill-${mark.start} start` : ''}${mark.lane ? ` fill-${mark.lane}` : ''}`,
    }));
    if (mark.star) {
      drawing.append(svg('polygon', { points: starPoints(x + 0.5, 0.5, 0.36, 0.15), class: 'star' }));
    }
    if (mark.plane) {
      drawing.append(svg('circle', { cx: x + 0.5, cy: 0.5, r: 0.36, class: `diagram-plane plane-${mark.plane}${mark.ghost ? ' ghost' : ''}` }));
    }
    if (mark.text) {
      const text = svg('text', { x: x + 0.5, y: 1.45, class: 'diagram-label' });
      text.textContent = mark.text;
      drawing.append(text);
    }
  }
  if (arrow) {
    const [from, to] = arrow.map((i) => 0.6 + i * 1.1);
    drawing.append(svg('path', { d: `M${from},-0.05 Q${(from + to) / 2},-0.6 ${to},-0.05`, class: 'diagram-arrow' }));
  }
  return drawing;
}

const rule = (title, text, diagram) => h('section', { class: 'card rule' }, h('h2', {}, title), h('p', {}, text), diagram);

/** Shows the rules page in `root`; returns a function that leaves it. */
export function mountRules(root) {
  root.replaceChildren(h('article', { class: 'rules' },
    h('h1', {}, 'How to play'),
    h('p', { class: 'lead' }, 'Two players, Red and Yellow, each have four planes in their base. Take turns rolling the die and race all four planes once around the board, up your own coloured home lane and into the finish. The first to bring all four home wins. Red rolls first.'),
    rule('Take off with a six', 'A plane leaves its base only on a six: it moves onto your start square (the square of your colour) and the six is used up. With a six you may also move a plane that is already out instead.',
      strip('A six moves a plane from base onto the start square', 4, { 0: { plane: 'red', text: 'base' }, 1: { start: 'red', plane: 'red', ghost: true, text: 'start' } }, [0, 1])),
    rule('Move by the roll', 'Choose one plane and move it exactly the number you rolled. If no plane can move, the turn passes.',
      strip('A plane moves four squares for a four', 6, { 0: { plane: 'red', text: 'from' }, 4: { plane: 'red', ghost: true, text: '+4' } }, [0, 4])),
    rule('Land on a plane to capture it', 'End your move on a square with an opponent’s plane and it goes back to its base. Passing over a plane does nothing.',
      strip('Red lands on Yellow and sends it home', 5, { 0: { plane: 'red' }, 3: { plane: 'yellow', text: 'home!' } }, [0, 3])),
    rule('Safe squares', 'Nobody can be captured on a start square or on a star: planes of both colours may share them.',
      strip('Stars and start squares are safe', 5, { 1: { star: true, plane: 'yellow', text: 'safe' }, 3: { start: 'red', plane: 'yellow', text: 'safe' } })),
    rule('Roll again', 'A six, a capture or a plane reaching the finish gives you another roll (one extra roll per move).',
      strip('A six gives another roll', 3, { 1: { plane: 'red', text: '6: again' } })),
    rule('Three sixes in a row', 'A third six in a row in the same turn is void: nothing moves and the turn passes. Moves made with the first two sixes stand.',
      strip('Six, six, six: the third is void', 3, { 0: { text: '6' }, 1: { text: '6' }, 2: { text: '6: void' } })),
    rule('Finish exactly', 'After going round, a plane turns into its home lane. It needs the exact number (or less) to reach the finish: a roll that would go past the finish cannot move that plane.',
      strip('In the home lane a plane needs the exact roll to finish', 6, {
        0: { lane: 'red', plane: 'red', text: 'lane 3' }, 1: { lane: 'red' }, 2: { lane: 'red' }, 3: { start: 'red', text: 'finish' },
      }, [0, 3])),
    rule('Offers, time and leaving', 'Online you may offer a draw or resign. In a quick match each decision has a clock: when it runs out, the server plays for you and counts a time-out; three time-outs lose the game. If you lose the connection your seat is kept for a while.', null),
    h('p', {}, h('a', { href: '#/' }, 'Back to the start page'))));
  return () => {};
}
