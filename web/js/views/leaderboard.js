// The leaderboard (`#/leaderboard`): the rated players, best first, each a link to the profile.

import { leaderboard } from '../api.js';
import { h } from '../dom.js';
import { identity } from '../identity.js';
import { ratingNode } from './profile.js';

const LIMIT = 50;

/** Shows the leaderboard in `root`; returns a function that leaves the page. */
export function mountLeaderboard(root) {
  let left = false;
  root.replaceChildren(h('p', { 'data-testid': 'loading' }, 'Loading the leaderboard…'));
  (async () => {
    let board;
    try {
      board = await leaderboard(LIMIT);
    } catch (error) {
      if (left) return;
      root.replaceChildren(h('div', { class: 'card' },
        h('h1', {}, 'Leaderboard'),
        h('p', {}, `Could not load the leaderboard: ${error.message}`),
        h('p', {}, h('a', { href: '#/' }, 'Start page'))));
      return;
    }
    if (left) return;
    const me = identity.stored()?.id;
    const players = board.players ?? [];
    const row = (entry) => h('tr', { 'data-testid': 'leaderboard-row', 'data-player': entry.id, class: entry.id === me ? 'me' : null },
      h('td', { class: 'rank' }, String(entry.rank)),
      h('th', { scope: 'row' },
        h('a', { href: `#/players/${entry.id}` }, entry.name), entry.id === me ? ' (you)' : ''),
      h('td', { class: 'rating', 'data-testid': 'leaderboard-rating' }, ratingNode(entry)),
      h('td', { class: 'games' }, String(entry.games ?? 0)));
    root.replaceChildren(h('div', { class: 'leaderboard' },
      h('h1', {}, 'Leaderboard'),
      h('section', { class: 'card' },
        players.length === 0
          ? h('p', { 'data-testid': 'leaderboard-empty' }, 'Nobody is rated yet: finish an online game to appear here.')
          : h('table', { class: 'ranking', 'data-testid': 'leaderboard' },
            h('caption', { class: 'visually-hidden' }, 'Rated players, best first'),
            h('thead', {}, h('tr', {},
              h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, 'Player'),
              h('th', { scope: 'col' }, 'Rating'), h('th', { scope: 'col' }, 'Games'))),
            h('tbody', {}, players.map(row))),
        h('p', { class: 'small-print' }, 'Ratings change after rated online games. A "?" after a rating means it is provisional: the player has not played enough yet for it to settle.')),
      h('p', {}, me ? h('a', { href: `#/players/${me}`, 'data-testid': 'leaderboard-my-profile' }, 'My profile') : null,
        me ? ' · ' : null, h('a', { href: '#/' }, 'Start page'))));
  })();
  return () => { left = true; };
}
