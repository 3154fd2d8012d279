// What comes after a game: a rematch online (both must ask; the server opens a new room with the
// colours swapped and new seeds), one-click play again against the computer or on the same device,
// and for spectators a way to follow the rematch.

import { clientSeed, createRoom, savedName } from '../api.js';
import { h } from '../dom.js';
import { identity } from '../identity.js';
import { colourName } from '../messages.js';
import { showGameOver } from './game-over.js';

/** Fills the room's game-over panel. */
export function showRoomOver(view) {
  const state = view.state;
  const names = {
    red: view.localNames?.red ?? state.seats.red?.name ?? 'Red',
    yellow: view.localNames?.yellow ?? state.seats.yellow?.name ?? 'Yellow',
  };
  if (state.computer) names[state.computer.colour] = `Computer (${state.computer.level})`;
  const next = nextGameButtons(view);
  showGameOver(view.el.over, {
    roomId: view.roomId, state, seat: view.seat, names, next,
    announced: view.session.announced, observedRolls: view.session.observedRolls,
  });
  view.el.next = view.el.over.querySelector('[data-testid=next]');
  view.el.over.querySelector('h2')?.focus?.();
}

/** The buttons (or words) for the next game, as the viewer may have it. */
export function nextGameButtons(view) {
  const state = view.state;
  if (state.mode === 'computer' && view.seat) {
    const mine = state.computer.colour === 'red' ? 'yellow' : 'red';
    return [h('button', {
      class: 'primary', 'data-testid': 'play-again',
      onclick: () => playAgain(view, { mode: 'computer', colour: mine, level: state.computer.level }),
    }, 'Play again')];
  }
  if (state.mode === 'local' && view.seat) {
    return [h('button', {
      class: 'primary', 'data-testid': 'play-again', onclick: () => playAgain(view, { mode: 'local' }),
    }, 'Play again')];
  }
  if (state.mode !== 'online') return [];
  if (!view.seat) {
    return view.session.rematchRoom
      ? [h('a', { href: `#/room/${view.session.rematchRoom}?watch`, 'data-testid': 'watch-rematch' }, 'Watch the rematch')]
      : [];
  }
  const opponent = view.seat === 'red' ? 'yellow' : 'red';
  const theyAsked = view.session.rematchBy.has(opponent);
  const iAsked = view.session.rematchBy.has(view.seat);
  if (iAsked) {
    return [h('p', { role: 'status', 'data-testid': 'rematch-status' },
      `Rematch asked: waiting for ${view.session.nameOf(opponent)} (${colourName(opponent)}) to accept.`)];
  }
  return [
    theyAsked ? h('p', { role: 'status', 'data-testid': 'rematch-status' }, `${view.session.nameOf(opponent)} wants a rematch.`) : null,
    h('button', { class: 'primary', 'data-testid': 'rematch', onclick: () => view.rematch() },
      theyAsked ? 'Accept the rematch' : 'Rematch (colours swapped)'),
  ];
}

async function playAgain(view, options) {
  try {
    const room = await identity.authed((headers) => createRoom(options, headers));
    const names = view.localNames;
    const name = names ? `${names.red} & ${names.yellow}`.slice(0, 32) : savedName() || 'Player';
    view.go(`/room/${room.id}`, { join: { name, names, client_seed: clientSeed('') }, wsPath: room.ws_path });
  } catch (error) {
    view.log(`Could not start a new game: ${error.message}`, true);
  }
}
