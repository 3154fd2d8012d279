// The position viewer, `#/position/<url-encoded notation>`: any position of any edition, written
// in the table notation of docs/rules/README.md, drawn as a board with its seats, whose turn it
// is, the pending roll, the planes at stake and the ranking of the seats that are out. It lets a
// player look at a position from a bug report or a rules page, and the tests look at the board
// of every edition without playing a game to reach it.

import { BoardView, COLOUR_NAMES } from '../board.js';
import { h } from '../dom.js';
import { legalPlanes, parseTable, ranking } from '../table.js';

/** The viewer's address for a notation line. */
export function positionHref(notation) {
  return `#/position/${encodeURIComponent(notation)}`;
}

const ORDINALS = ['1st', '2nd', '3rd', '4th'];
const EDITION_NAMES = { plyyard: 'plyyard', flights: 'flights', classic: 'classic' };

function planeList(planes) {
  const names = planes.map((p) => String(p + 1));
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

function seatSummary(seat, ruleset) {
  const finish = ruleset === 'plyyard' ? 56 : 57;
  const count = (test) => seat.planes.filter(test).length;
  const parts = [
    [count((p) => p === 'base'), 'in the hangar'],
    [count((p) => typeof p === 'number' && p <= 50), 'on the ring'],
    [count((p) => typeof p === 'number' && p > 50 && p < finish), 'in the home lane'],
    [count((p) => p === 'finished'), 'at the centre'],
  ].filter(([n]) => n > 0).map(([n, where]) => `${n} ${where}`);
  return parts.join(', ');
}

function describeTable(table) {
  const players = `${table.seats.length} players`;
  const house = table.houseRules.length > 0 ? ` with the house rule ${table.houseRules.join(', ')}` : '';
  const roll = table.roll === null ? 'to roll' : `to move a plane for a ${table.roll}`;
  const sixes = table.sixes > 0 ? `; ${table.sixes} six${table.sixes > 1 ? 'es' : ''} in a row this turn` : '';
  const stake = table.atStake.length > 0
    ? `; a third six would send plane${table.atStake.length > 1 ? 's' : ''} ${planeList(table.atStake)} home`
    : '';
  return `${EDITION_NAMES[table.ruleset]}, ${players}${house}. ${COLOUR_NAMES[table.toAct]} ${roll}${sixes}${stake}.`;
}

/** Draws `table` on a new board in `wrap` (used by the viewer and the rules page's examples). */
export function showTable(wrap, table, label = 'Position board') {
  const colours = table.seats.map((seat) => seat.colour);
  const board = new BoardView(wrap, { ruleset: table.ruleset, colours, houseRules: table.houseRules, label });
  const planes = Object.fromEntries(table.seats.map((seat) => [seat.colour, seat.planes]));
  board.setState({ planes, toAct: table.toAct, roll: table.roll, legal: legalPlanes(table), selectable: false });
  return board;
}

/** Shows the viewer for the url-encoded `encoded` notation in `root`; returns a function that leaves it. */
export function mountPosition(root, encoded) {
  let notation = '';
  let table = null;
  let error = null;
  try {
    notation = decodeURIComponent(encoded ?? '');
    table = parseTable(notation);
  } catch (e) {
    error = e instanceof URIError ? 'the address is not a url-encoded position' : e.message;
  }
  const input = h('input', {
    id: 'position-input', value: notation, spellcheck: 'false', autocomplete: 'off',
    class: 'notation', 'data-testid': 'position-input',
  });
  const form = h('form', {
    class: 'row position-form',
    onsubmit: (event) => {
      event.preventDefault();
      location.hash = positionHref(input.value.trim());
    },
  }, h('label', { for: 'position-input', class: 'grow' }, 'Position (table notation)', input),
  h('button', { type: 'submit', class: 'primary' }, 'Show'));

  const parts = [h('h1', {}, 'Position'), form];
  if (error) {
    parts.push(h('p', { class: 'notice error-text', role: 'alert', 'data-testid': 'position-error' },
      `Not a position: ${error}.`));
  } else {
    const wrap = h('div', { class: 'board-wrap position-board', 'data-testid': 'position-board' });
    showTable(wrap, table);
    const out = ranking(table);
    const seats = h('ul', { class: 'position-seats', 'data-testid': 'position-seats' },
      table.seats.map((seat) => h('li', { class: seat.colour === table.toAct ? 'to-act' : null },
        h('span', { class: `swatch ${seat.colour}`, 'aria-hidden': 'true' }),
        h('strong', {}, COLOUR_NAMES[seat.colour]),
        ` ${seat.place === null ? seatSummary(seat, table.ruleset) : `out, ${ORDINALS[seat.place - 1]}`}`,
        seat.colour === table.toAct ? ' (to act)' : '')));
    parts.push(h('div', { class: 'position' },
      wrap,
      h('section', { class: 'card position-facts' },
        h('p', { 'data-testid': 'position-summary' }, describeTable(table)),
        h('h2', {}, 'Seats'),
        seats,
        h('h2', {}, 'Ranking so far'),
        out.length === 0
          ? h('p', { 'data-testid': 'position-ranking' }, 'Nobody is out yet.')
          : h('ol', { class: 'ranking-list', 'data-testid': 'position-ranking' },
            out.map((seat) => h('li', { value: seat.place },
              `${ORDINALS[seat.place - 1]}: ${COLOUR_NAMES[seat.colour]}`,
              seat.planes.every((p) => p === 'finished') ? ' (finished)' : ' (left the game)'))))));
  }
  parts.push(h('p', {}, h('a', { href: '#/rules' }, 'The rules of each edition')));
  root.replaceChildren(h('article', { class: 'position-view' }, parts));
  return () => {};
}
