// The start page: play a friend, join from a link, quick match, the computer, two people on one
// device, and opening a finished game by id. Written for players: the dice seed is folded away.

import { ApiError, clientSeed, createRoom, quickMatch, saveName, saveSeat, savedName } from '../api.js';
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
  if (error instanceof ApiError && error.code === 'no_match') {
    return 'Nobody else is looking for a game right now. Try again in a moment, or play the computer.';
  }
  return error.message;
}

/** `go(route, intent)` navigates; the intent tells the room view how to join. */
export function mountStart(root, go) {
  const status = h('p', { role: 'status', 'aria-live': 'polite', 'data-testid': 'start-status' });
  const name = h('input', { id: 'name', value: savedName(), maxlength: 32, autocomplete: 'nickname', placeholder: 'Player', 'data-testid': 'name' });
  const seed = h('input', { id: 'seed', maxlength: 64, placeholder: 'random', 'data-testid': 'seed' });
  const playerName = () => {
    const chosen = name.value.trim() || 'Player';
    saveName(chosen);
    return chosen;
  };
  const fail = (error) => { status.textContent = describeError(error); status.className = 'error-text'; };
  const busy = (text) => { status.textContent = text; status.className = ''; };

  const newRoom = async (options, join = {}) => {
    busy('Creating the room…');
    try {
      const room = await createRoom(options);
      go(`/room/${room.id}`, { join: { name: playerName(), client_seed: clientSeed(seed.value), ...join }, wsPath: room.ws_path });
    } catch (error) {
      fail(error);
    }
  };

  // Quick match: one long request, with a running count of the seconds and a cancel button.
  // Leaving the page cancels it too, so a match found later never moves a page the player left.
  let matching = null;
  const findButton = h('button', { class: 'primary', 'data-testid': 'quick-match', onclick: () => quick() }, 'Find an opponent');
  const cancelButton = h('button', { hidden: true, 'data-testid': 'cancel-quick-match', onclick: () => cancelQuick() }, 'Cancel');
  const progress = h('p', { hidden: true, role: 'status', 'data-testid': 'quick-progress' });
  const cancelQuick = () => {
    if (!matching) return;
    matching.abort.abort();
    clearInterval(matching.timer);
    matching = null;
    findButton.disabled = false;
    cancelButton.hidden = true;
    progress.hidden = true;
    busy('Quick match cancelled.');
  };
  const quick = async () => {
    if (matching) return;
    const started = Date.now();
    const current = { abort: new AbortController() };
    matching = current;
    findButton.disabled = true;
    cancelButton.hidden = false;
    progress.hidden = false;
    const tick = () => { progress.textContent = `Looking for an opponent… ${Math.floor((Date.now() - started) / 1000)} s`; };
    tick();
    current.timer = setInterval(tick, 1000);
    busy('');
    try {
      const match = await quickMatch(playerName(), clientSeed(seed.value), current.abort.signal);
      if (matching !== current) return;
      saveSeat(match.room_id, { colour: match.colour, token: match.token, name: playerName() });
      go(`/room/${match.room_id}`, { wsPath: match.ws_path });
    } catch (error) {
      if (matching === current) fail(error);
    } finally {
      clearInterval(current.timer);
      if (matching === current) {
        matching = null;
        findButton.disabled = false;
        cancelButton.hidden = true;
        progress.hidden = true;
      }
    }
  };

  const link = h('input', { id: 'join-link', 'aria-label': 'Invite link or room id', placeholder: 'invite link or room id', 'data-testid': 'join-link' });
  const gameId = h('input', { id: 'game-id', 'aria-label': 'Game id', placeholder: 'game id', 'data-testid': 'game-id' });
  const botColour = h('select', { id: 'bot-colour', 'data-testid': 'bot-colour' },
    h('option', { value: 'red' }, 'Red (rolls first)'), h('option', { value: 'yellow' }, 'Yellow'));
  const botLevel = h('select', { id: 'bot-level', 'data-testid': 'bot-level' },
    ...['easy', 'normal', 'hard', 'random'].map((level) => h('option', { value: level, selected: level === 'normal' }, level)));
  const redName = h('input', { id: 'red-name', maxlength: 15, value: savedName() || 'Red', 'data-testid': 'red-name' });
  const yellowName = h('input', { id: 'yellow-name', maxlength: 15, value: 'Yellow', 'data-testid': 'yellow-name' });
  const local = () => {
    const names = { red: redName.value.trim() || 'Red', yellow: yellowName.value.trim() || 'Yellow' };
    newRoom({ mode: 'local' }, { name: `${names.red} & ${names.yellow}`.slice(0, 32), names });
  };

  const card = (title, text, ...body) => h('section', { class: 'card' }, h('h2', {}, title), h('p', {}, text), ...body);
  root.replaceChildren(
    h('h1', {}, 'Aeroplane Chess'),
    h('p', { class: 'lead' }, 'Race your four planes around the board and home before your opponent does. Roll a six to take off, land on a plane to send it home. ',
      h('a', { href: '#/rules', 'data-testid': 'start-rules' }, 'How to play')),
    h('div', { class: 'card' },
      h('div', { class: 'row' }, h('label', { for: 'name' }, 'Your name', name)),
      h('details', {}, h('summary', {}, 'Your own dice seed (optional)'),
        h('p', { class: 'small-print' }, 'The die is fair and you can check every roll after the game. Your browser adds a random seed of its own; type one here if you want to choose it.'),
        h('label', { for: 'seed' }, 'Dice seed', seed)),
      status),
    h('div', { class: 'cards' },
      card('Play a friend online', 'Get a link to send to a friend.',
        h('button', { class: 'primary', 'data-testid': 'create-room', onclick: () => newRoom({ mode: 'online' }) }, 'Create a game')),
      card('Join a friend', 'Paste the link you were sent.',
        h('form', { class: 'row', onsubmit: (event) => { event.preventDefault(); const id = roomIdFrom(link.value); if (id) go(`/room/${id}`); } },
          link, h('button', { type: 'submit' }, 'Join'))),
      card('Quick match', 'Play the next person who is also looking for a game. Each turn has a clock.',
        h('div', { class: 'row' }, findButton, cancelButton), progress),
      card('Play the computer', 'Choose your colour and how strong the computer plays.',
        h('div', { class: 'row' },
          h('label', { for: 'bot-colour' }, 'Your colour', botColour),
          h('label', { for: 'bot-level' }, 'Level', botLevel),
          h('button', {
            'data-testid': 'play-computer',
            onclick: () => newRoom({ mode: 'computer', colour: botColour.value, level: botLevel.value }),
          }, 'Play'))),
      card('Two players, one screen', 'Take turns on this device.',
        h('div', { class: 'row' },
          h('label', { for: 'red-name' }, 'Red player', redName),
          h('label', { for: 'yellow-name' }, 'Yellow player', yellowName),
          h('button', { 'data-testid': 'play-local', onclick: local }, 'Start'))),
      card('Watch a finished game again', 'Replay it move by move.',
        h('form', { class: 'row', onsubmit: (event) => { event.preventDefault(); const id = roomIdFrom(gameId.value); if (id) go(`/game/${id}`); } },
          gameId, h('button', { type: 'submit', 'data-testid': 'open-game' }, 'Open')))),
  );
  return () => {
    if (matching) {
      matching.abort.abort();
      clearInterval(matching.timer);
      matching = null;
    }
  };
}
