// The start page: online room, join from a link, quick match, computer, same device, and opening
// a finished game by id.

import { ApiError, createRoom, quickMatch, saveName, saveSeat, savedName } from '../api.js';
import { h } from '../dom.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** The room id in an invite link, a pasted URL or a bare id. */
export function roomIdFrom(text) {
  const match = String(text).match(UUID);
  return match ? match[0].toLowerCase() : String(text).trim().split(/[/#?]/).filter(Boolean).pop() ?? '';
}

function describeError(error) {
  if (error instanceof ApiError && error.code === 'unsupported_mode') {
    return 'This server does not offer that kind of game yet.';
  }
  if (error instanceof ApiError && error.code === 'no_match') return 'Nobody else was looking for a game. Try again.';
  return error.message;
}

/** `go(route, intent)` navigates; the intent tells the room view how to join. */
export function mountStart(root, go) {
  const status = h('p', { role: 'status', 'aria-live': 'polite', 'data-testid': 'start-status' });
  const name = h('input', { id: 'name', value: savedName(), maxlength: 32, autocomplete: 'nickname', placeholder: 'Player', 'data-testid': 'name' });
  const seed = h('input', { id: 'seed', maxlength: 64, placeholder: 'optional', 'data-testid': 'seed' });
  const playerName = () => {
    const chosen = name.value.trim() || 'Player';
    saveName(chosen);
    return chosen;
  };
  const seedValue = () => seed.value || undefined;
  const fail = (error) => { status.textContent = describeError(error); status.className = 'error-text'; };
  const busy = (text) => { status.textContent = text; status.className = ''; };

  const newRoom = async (options) => {
    busy('Creating the room…');
    try {
      const room = await createRoom(options);
      go(`/room/${room.id}`, { join: { name: playerName(), client_seed: seedValue() }, wsPath: room.ws_path });
    } catch (error) {
      fail(error);
    }
  };

  let matching = null;
  const quick = async () => {
    if (matching) return;
    matching = true;
    busy('Looking for an opponent… (this can take a little while)');
    try {
      const match = await quickMatch(playerName(), seedValue());
      saveSeat(match.room_id, { colour: match.colour, token: match.token, name: playerName() });
      go(`/room/${match.room_id}`, { wsPath: match.ws_path });
    } catch (error) {
      fail(error);
    } finally {
      matching = null;
    }
  };

  const link = h('input', { id: 'join-link', placeholder: 'invite link or room id', 'data-testid': 'join-link' });
  const gameId = h('input', { id: 'game-id', placeholder: 'game id', 'data-testid': 'game-id' });
  const botColour = h('select', { id: 'bot-colour', 'data-testid': 'bot-colour' },
    h('option', { value: 'red' }, 'Red (rolls first)'), h('option', { value: 'yellow' }, 'Yellow'));
  const botLevel = h('select', { id: 'bot-level', 'data-testid': 'bot-level' },
    ...['easy', 'normal', 'hard', 'random'].map((level) => h('option', { value: level, selected: level === 'normal' }, level)));

  const card = (title, text, ...body) => h('section', { class: 'card' }, h('h2', {}, title), h('p', {}, text), ...body);
  root.replaceChildren(
    h('h1', {}, 'Aeroplane Chess'),
    h('p', {}, 'Two players, Red against Yellow. The server rolls the die and you can check every roll afterwards.'),
    h('div', { class: 'card' },
      h('div', { class: 'row' },
        h('label', { for: 'name' }, 'Your name', name),
        h('label', { for: 'seed' }, 'Your dice seed', seed)),
      status),
    h('div', { class: 'cards' },
      card('Play a friend online', 'Create a room and send the invite link.',
        h('button', { class: 'primary', 'data-testid': 'create-room', onclick: () => newRoom({ mode: 'online' }) }, 'Create a room')),
      card('Join from a link', 'Paste the invite link you were sent.',
        h('form', { class: 'row', onsubmit: (event) => { event.preventDefault(); const id = roomIdFrom(link.value); if (id) go(`/room/${id}`); } },
          link, h('button', { type: 'submit' }, 'Join'))),
      card('Quick match', 'Play the next person who is also looking for a game.',
        h('button', { 'data-testid': 'quick-match', onclick: quick }, 'Find an opponent')),
      card('Play the computer', 'Choose your colour and the computer’s level.',
        h('div', { class: 'row' },
          h('label', { for: 'bot-colour' }, 'Your colour', botColour),
          h('label', { for: 'bot-level' }, 'Level', botLevel),
          h('button', {
            'data-testid': 'play-computer',
            onclick: () => newRoom({ mode: 'computer', colour: botColour.value, level: botLevel.value }),
          }, 'Play'))),
      card('Same device', 'Two players take turns on this screen.',
        h('button', { 'data-testid': 'play-local', onclick: () => newRoom({ mode: 'local' }) }, 'Start')),
      card('Open a finished game', 'Replay it and check its dice.',
        h('form', { class: 'row', onsubmit: (event) => { event.preventDefault(); const id = roomIdFrom(gameId.value); if (id) go(`/game/${id}`); } },
          gameId, h('button', { type: 'submit', 'data-testid': 'open-game' }, 'Open')))),
  );
  return () => {};
}
