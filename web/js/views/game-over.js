// The game-over panel of a room: "You won" / "You lost" with the names and the reason, what to do
// next (rematch, play again), and the fairness check of every roll folded away.

import { getGame, listGames } from '../api.js';
import { h } from '../dom.js';
import { colourName, resultHeadline, resultText } from '../messages.js';
import { recordRolls, runFairnessCheck } from './fairness-check.js';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Fills `section` for the finished room. `seat` is the viewer's seat, `names` the players' names
 * per colour, `next` the nodes offering what to do next (rematch, play again). `announced` is the
 * commitment this client saw before the first roll (or null), `observedRolls` every roll it saw
 * live (or null if it joined late).
 */
export function showGameOver(section, { roomId, state, seat, names, next = [], announced, observedRolls }) {
  const check = h('div', { class: 'fairness', 'data-testid': 'fairness' });
  const headline = resultHeadline(state.result, seat, { red: { name: names.red }, yellow: { name: names.yellow } });
  const player = (colour) => h('span', { class: 'versus-player' },
    h('span', { class: `swatch ${colour}`, 'aria-hidden': 'true' }), `${names[colour]} (${colourName(colour)})`);
  section.replaceChildren(
    h('h2', { class: 'headline', 'data-testid': 'headline' }, headline),
    h('p', { class: 'versus', 'data-testid': 'versus' }, player('red'), ' vs ', player('yellow')),
    h('p', { class: 'result', 'data-testid': 'result' }, resultText(state.result)),
    h('div', { class: 'row', 'data-testid': 'next' }, ...next),
    h('p', {}, h('a', { href: `#/game/${roomId}`, 'data-testid': 'replay-link' }, 'Replay this game'),
      ' · ', h('a', { href: '#/' }, 'Start page')),
    check,
  );
  verify(check, { roomId, state, announced, observedRolls });
}

/**
 * What narrows the game list to this room's players: a seat's player id on a server with
 * identities (where `player=` takes an id), else Red's name as older servers take it.
 */
export function recordFilter(seats) {
  const id = seats.red?.player_id ?? seats.yellow?.player_id;
  if (id) return id;
  return Object.values(seats).some((seat) => seat && 'player_id' in seat) ? undefined : seats.red?.name;
}

/** The stored record of finished game `roomId` once the game list shows it (polled), or null. */
export async function storedRecord(roomId, player) {
  // The record reaches the store shortly after the game ends. Wait for it in the game list, which
  // answers 200 either way, so no request fails (a failed one is a console error in browsers).
  for (let attempt = 0; attempt < 40; attempt += 1) {
    try {
      const list = await listGames({ player, limit: 100 });
      if (list.games.some((game) => game.id === roomId)) return await getGame(roomId);
    } catch {
      // try again
    }
    await sleep(250);
  }
  return null;
}

async function verify(container, { roomId, state, announced, observedRolls }) {
  container.replaceChildren(h('p', { 'data-testid': 'fairness-result' }, 'Waiting for the game record…'));
  const record = await storedRecord(roomId, recordFilter(state.seats));
  if (record) {
    await runFairnessCheck(container, {
      fairness: record.fairness, rolls: recordRolls(record), announced, observed: observedRolls,
    });
  } else if (observedRolls) {
    await runFairnessCheck(container, { fairness: state.fairness, rolls: observedRolls, announced });
  } else {
    container.replaceChildren(h('p', { 'data-testid': 'fairness-result' },
      'The game record is not available yet; open the replay later to check the dice.'));
  }
}
