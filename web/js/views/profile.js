// A player's profile (`#/players/<id>`): name, rating, games won, lost and drawn, and the recent
// finished games, each opening its replay. The player's own profile says so and links to where
// the name is changed.

import { ApiError, getPlayer, listGames } from '../api.js';
import { h } from '../dom.js';
import { identity } from '../identity.js';
import { gameFromSide, ratingText } from '../players.js';

const RECENT = 20;

/** A rating as shown: "1500" or "1500?" where the "?" is an abbreviation of "provisional". */
export function ratingNode(value) {
  const text = ratingText(value);
  if (!text.endsWith('?')) return text;
  return [text.slice(0, -1), h('abbr', { title: 'provisional' }, '?')];
}

/** Shows player `playerId` in `root`; returns a function that leaves the page. */
export function mountProfile(root, playerId) {
  let left = false;
  root.replaceChildren(h('p', { 'data-testid': 'loading' }, 'Loading the player…'));
  (async () => {
    let player;
    let games;
    try {
      [player, games] = await Promise.all([getPlayer(playerId), listGames({ player: playerId, limit: RECENT })]);
    } catch (error) {
      if (left) return;
      const missing = error instanceof ApiError && error.code === 'player_not_found';
      root.replaceChildren(h('div', { class: 'card' },
        h('h1', {}, missing ? 'No such player' : 'Could not load the player'),
        h('p', {}, missing ? 'This player is not known to the server.' : error.message),
        h('p', {}, h('a', { href: '#/leaderboard' }, 'Leaderboard'), ' · ', h('a', { href: '#/' }, 'Start page'))));
      return;
    }
    if (left) return;
    const mine = identity.stored()?.id === playerId;
    const stat = (label, value, testid) => h('div', { class: 'stat' },
      h('dt', {}, label), h('dd', { 'data-testid': testid }, value));
    root.replaceChildren(h('div', { class: 'profile' },
      h('h1', { 'data-testid': 'profile-name' }, player.name, mine ? h('span', { class: 'you' }, ' (you)') : null),
      h('section', { class: 'card' },
        h('h2', { class: 'visually-hidden' }, 'Record'),
        h('dl', { class: 'stats' },
          stat('Rating', ratingNode(player.rating), 'profile-rating'),
          stat('Games', String(player.games ?? 0), 'profile-games'),
          stat('Wins', String(player.wins ?? 0), 'profile-wins'),
          stat('Losses', String(player.losses ?? 0), 'profile-losses'),
          stat('Draws', String(player.draws ?? 0), 'profile-draws')),
        player.rating?.provisional
          ? h('p', { class: 'small-print' }, 'A "?" after the rating means it is provisional: it settles after a few more rated games.')
          : null,
        mine ? h('p', { class: 'small-print' }, 'This is you on this browser. ', h('a', { href: '#/' }, 'Change your name on the start page'), '.') : null),
      h('section', { class: 'card' },
        h('h2', {}, 'Recent games'),
        games.games.length === 0
          ? h('p', { 'data-testid': 'profile-no-games' }, 'No finished games yet.')
          : h('ul', { class: 'game-list', 'data-testid': 'profile-games-list' },
            games.games.map((game) => gameItem(game, player)))),
      h('p', {}, h('a', { href: '#/leaderboard', 'data-testid': 'profile-leaderboard' }, 'Leaderboard'), ' · ',
        h('a', { href: '#/' }, 'Start page'))));
  })();
  return () => { left = true; };
}

function gameItem(game, player) {
  const side = gameFromSide(game, player.id, player.name);
  const ended = game.ended_at ? new Date(game.ended_at) : null;
  return h('li', {},
    h('a', { href: `#/game/${game.id}`, class: `game-link ${side.outcome ?? ''}`.trim(), 'data-testid': 'profile-game', 'data-game': game.id },
      h('span', { class: 'outcome' }, side.text),
      h('span', { class: 'game-meta' },
        `${game.mode} game${game.rated ? ', rated' : ''} · ${game.moves ?? 0} moves`,
        ended ? h('span', {}, ' · ', h('time', { datetime: game.ended_at }, ended.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }))) : null)));
}
