// "How to play": the rules this server enforces, in plain words, each with a small diagram of a
// strip of squares (drawn in SVG with the board's own colours and plane shape); then the
// editions (plyyard, flights, classic and classic's house rule) in a few sentences each, with a
// small example board drawn by the position viewer's code and a link that opens it there.

import { starPoints } from '../board.js';
import { h } from '../dom.js';
import { parseTable } from '../table.js';
import { positionHref, showTable } from './position.js';

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

// One example position per edition (worked examples of docs/rules/*.md).
const EDITIONS = [
  {
    id: 'plyyard',
    title: 'plyyard: the game played here',
    text: 'Everything above: two players, Red and Yellow, safe start squares and stars, a six to take off, captures and finishes earn another roll, a home lane of five squares.',
    example: 'plyyard red:b,b,12,f yellow:b,30,52,b yellow 4 0 -',
    caption: 'Yellow to move a plane for a 4: plane 2 on its route or plane 3 in its home lane.',
  },
  {
    id: 'flights',
    title: 'flights: jumps and a flight line',
    text: 'Two, three or four players (Red and Yellow; then Blue; then Green too). The ring is coloured red, green, yellow, blue over and over. Stop on a square of your colour and you jump 4 squares to the next one; reach your dashed flight square and you fly along the line 12 squares on. Land on an enemy (after any jump or flight) and every enemy there goes home: there are no safe squares. Only a six takes off and only a six rolls again; a third six sends the plane moved last home. The runway has six squares and a roll past the centre bounces back. The first to bring all four planes to the centre wins.',
    example: 'flights red:29,b,b,b green:3,b,b,b yellow:5,5,b,b blue:b,b,b,b red 3 0 -',
    caption: 'Red rolled a 3: plane 1 walks from 29 to 32, jumps to 36, its flight square, and flies to 48.',
  },
  {
    id: 'classic',
    title: 'classic: stacks and shortcuts',
    text: 'Two, three or four players, the same board. Any even roll takes a plane off. Your planes on one square form a stack that moves as one, drawn as one plane with its count. A jump sends home the opponents on the squares it passes and where it lands; the dashed shortcut (12 squares on) sends home an opponent on the crossed home lane and on its landing square. A third six sends home every plane moved by the first two. The centre needs an exact roll. The first to finish wins and the others play on until only one loser is left.',
    example: 'classic red:13,b,b,b yellow:40,40,b,b blue:2,b,b,b red 3 0 -',
    caption: 'Red rolled a 3: 13 to 16, a jump to 20 and the shortcut to 32. Yellow has a stack of two.',
  },
  {
    id: 'classic-house',
    title: 'The classic house rule: jump after a shortcut',
    text: 'Some families play that a plane that lands on its shortcut square directly (not by a jump) jumps once more after the shortcut. A game of classic offers it as the option jump-after-shortcut; it is off unless the game says so.',
    example: 'classic+jump-after-shortcut red:17,b,b,b yellow:b,b,b,b red 3 0 -',
    caption: 'Red rolled a 3: 17 to 20, the shortcut to 32, and with the house rule a jump to 36.',
  },
];

function edition({ id, title, text, example, caption }) {
  const wrap = h('div', { class: 'board-wrap', 'data-testid': `example-${id}` });
  showTable(wrap, parseTable(example), `Example board: ${caption}`);
  return h('section', { class: 'card rule edition-card' },
    h('h2', {}, title),
    h('p', {}, text),
    h('figure', { class: 'edition-example' }, wrap,
      h('figcaption', {}, caption, ' ', h('a', { href: positionHref(example) }, 'Open in the position viewer'))));
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
    h('h2', { class: 'editions-heading' }, 'Editions'),
    h('p', {}, 'The rules above are plyyard, the edition played on this site today. Two more editions of Aeroplane Chess, for two to four players, are coming; here they are in brief, each with an example position.'),
    EDITIONS.map(edition),
    h('p', {}, h('a', { href: '#/' }, 'Back to the start page'))));
  return () => {};
}
