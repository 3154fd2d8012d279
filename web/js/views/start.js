// The start page: the player's name (kept with the guest identity, `identity.js`), their live
// games, play a friend, join from a link, quick match, the computer, two people on one device,
// and opening a finished game by id. Written for players: the dice seed is folded away.
//
// The edition (plyyard, flights, classic with its house rule) and the number of players chosen
// at the top apply to every way of playing. Plyyard for two sends exactly the requests it always
// did; anything else adds `ruleset`, `players` and `house_rules` (a table room, protocol 2).

import { ApiError, clientSeed, createRoom, loadSeat, quickMatch, saveName, saveSeat, savedName } from '../api.js';
import { h } from '../dom.js';
import { identity } from '../identity.js';
import { liveRoomText } from '../players.js';
import { playerCounts, seatingFor } from '../table.js';

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
  if (error instanceof ApiError && error.code === 'bad_field') {
    return `That name cannot be used: ${error.message}`;
  }
  return error.message;
}

/**
 * Saves the seats of the player's live rooms that this browser does not hold yet (a seat taken in
 * another browser profile of the same player, or one whose token was pruned).
 */
function keepLiveSeats(rooms, name) {
  for (const room of rooms) {
    if (room.token && loadSeat(room.room_id)?.token !== room.token) {
      saveSeat(room.room_id, { colour: room.colour, token: room.token, name });
    }
  }
}

/** `go(route, intent)` navigates; the intent tells the room view how to join. */
export function mountStart(root, go) {
  let left = false;
  const status = h('p', { role: 'status', 'aria-live': 'polite', 'data-testid': 'start-status' });
  let typed = false;
  const name = h('input', {
    id: 'name', value: identity.name() || savedName(), maxlength: 32, autocomplete: 'nickname', placeholder: 'Player', 'data-testid': 'name',
    oninput: () => { typed = true; },
  });
  const seed = h('input', { id: 'seed', maxlength: 64, placeholder: 'random', 'data-testid': 'seed' });
  const playerName = () => {
    const chosen = name.value.trim() || identity.name() || 'Player';
    saveName(chosen);
    return chosen;
  };
  const fail = (error) => { status.textContent = describeError(error); status.className = 'error-text'; };
  const busy = (text) => { status.textContent = text; status.className = ''; };

  // The name others see is the identity's: a name typed and played with is saved there too.
  const syncName = async (chosen) => {
    await identity.ensure().catch(() => null);
    if (!identity.name() || identity.name() === chosen) return;
    try {
      await identity.rename(chosen);
    } catch {
      // the game is played under the typed name all the same
    }
  };
  const saveButton = h('button', { type: 'submit', hidden: true, 'data-testid': 'save-name' }, 'Save name');
  const profileLink = h('a', { href: '#/leaderboard', 'data-testid': 'my-profile' }, 'My profile');
  const identityLine = h('p', { class: 'small-print', hidden: true, 'data-testid': 'identity' },
    'Your games and rating stay with this browser, no sign-up needed. ', profileLink, ' · ',
    h('a', { href: '#/leaderboard', 'data-testid': 'start-leaderboard' }, 'Leaderboard'));
  const rename = async (event) => {
    event.preventDefault();
    const chosen = name.value.trim();
    if (!chosen) {
      fail(new Error('Type a name first.'));
      return;
    }
    busy('Saving your name…');
    try {
      const me = await identity.rename(chosen);
      saveName(me?.name ?? chosen);
      if (me) name.value = me.name;
      typed = false;
      busy(me ? `Saved. Other players see you as ${me.name}.` : 'Saved in this browser.');
    } catch (error) {
      fail(error);
    }
  };
  const liveList = h('ul', { class: 'live-games', 'data-testid': 'live-games' });
  const liveSection = h('section', { class: 'card live', hidden: true, 'aria-labelledby': 'live-title' },
    h('h2', { id: 'live-title' }, 'Your live games'), liveList);
  const showLive = async () => {
    let rooms;
    try {
      rooms = await identity.liveRooms();
    } catch {
      return; // the list is a convenience; the rest of the page works without it
    }
    if (left) return;
    keepLiveSeats(rooms, identity.name());
    liveList.replaceChildren(...rooms.map((room) => h('li', {},
      h('a', { href: `#/room/${room.room_id}`, 'data-testid': 'live-game', 'data-room': room.room_id }, liveRoomText(room)))));
    liveSection.hidden = rooms.length === 0;
  };
  identity.ensure(savedName() || undefined).then((me) => {
    if (left || !me) return;
    if (!typed) name.value = me.name;
    saveButton.hidden = false;
    profileLink.setAttribute('href', `#/players/${me.id}`);
    identityLine.hidden = false;
    showLive();
  }, () => {});

  const newRoom = async (options, join = {}) => {
    busy('Creating the room…');
    try {
      const chosen = playerName();
      await syncName(chosen);
      const room = await identity.authed((headers) => createRoom(options, headers));
      go(`/room/${room.id}`, {
        join: { name: chosen, client_seed: clientSeed(seed.value), ...join }, wsPath: room.ws_path, table: room.table ?? null,
      });
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
      const chosen = playerName();
      await syncName(chosen);
      const match = await identity.authed((headers) => quickMatch(chosen, clientSeed(seed.value), current.abort.signal, headers, tableOptions()));
      if (matching !== current) return;
      saveSeat(match.room_id, { colour: match.colour, token: match.token, name: chosen });
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
  // The edition and the number of players, for every way of playing below.
  const edition = h('select', { id: 'edition', 'data-testid': 'edition', onchange: () => editionChanged() },
    h('option', { value: 'plyyard' }, 'Plyyard (two players)'),
    h('option', { value: 'flights' }, 'Flights'),
    h('option', { value: 'classic' }, 'Classic'));
  const players = h('select', { id: 'players', 'data-testid': 'players', onchange: () => editionChanged() });
  const houseJump = h('input', { id: 'house-jump', type: 'checkbox', 'data-testid': 'house-jump' });
  const houseLabel = h('label', { class: 'inline', for: 'house-jump', hidden: true },
    houseJump, 'House rule: jump after the shortcut');
  const count = () => Number(players.value) || 2;
  const isTable = () => edition.value !== 'plyyard' || count() !== 2;
  /** What a table room or queue adds to a request; nothing for two-player plyyard. */
  const tableOptions = () => {
    if (!isTable()) return {};
    const options = { ruleset: edition.value, players: count() };
    if (edition.value === 'classic' && houseJump.checked) options.house_rules = ['jump-after-shortcut'];
    return options;
  };

  const botColour = h('select', { id: 'bot-colour', 'data-testid': 'bot-colour', onchange: () => renderLevels() });
  const levelSelect = (id, label) => h('label', { for: id }, label,
    h('select', { id, 'data-testid': id },
      ...['easy', 'normal', 'hard', 'random'].map((level) => h('option', { value: level, selected: level === 'normal' }, level))));
  const levelsBox = h('div', { class: 'row', 'data-testid': 'bot-levels' });
  const levelValues = () => [...levelsBox.querySelectorAll('select')].map((select) => select.value);
  const renderLevels = () => {
    const seats = seatingFor(count()).filter((colour) => colour !== botColour.value);
    const previous = levelValues();
    levelsBox.replaceChildren(...seats.map((colour, i) => {
      const id = i === 0 ? 'bot-level' : `bot-level-${i + 1}`;
      const label = seats.length === 1 ? 'Level' : `${colour[0].toUpperCase()}${colour.slice(1)} computer`;
      const node = levelSelect(id, label);
      if (previous[i]) node.querySelector('select').value = previous[i];
      return node;
    }));
  };
  const computer = () => {
    const options = { mode: 'computer', colour: botColour.value, ...tableOptions() };
    const levels = levelValues();
    if (levels.length === 1) options.level = levels[0];
    else options.levels = levels;
    newRoom(options);
  };

  const nameInputs = {
    red: h('input', { id: 'red-name', maxlength: 15, value: savedName() || 'Red', 'data-testid': 'red-name' }),
    green: h('input', { id: 'green-name', maxlength: 15, value: 'Green', 'data-testid': 'green-name' }),
    yellow: h('input', { id: 'yellow-name', maxlength: 15, value: 'Yellow', 'data-testid': 'yellow-name' }),
    blue: h('input', { id: 'blue-name', maxlength: 15, value: 'Blue', 'data-testid': 'blue-name' }),
  };
  const nameLabels = Object.fromEntries(Object.entries(nameInputs).map(([colour, input]) =>
    [colour, h('label', { for: input.id }, `${colour[0].toUpperCase()}${colour.slice(1)} player`, input)]));
  const namesBox = h('div', { class: 'row', 'data-testid': 'local-names' });
  const localCardText = h('p', {}, 'Take turns on this device.');
  const local = () => {
    const seats = seatingFor(count());
    const names = Object.fromEntries(seats.map((colour) => [colour, nameInputs[colour].value.trim() || colour[0].toUpperCase() + colour.slice(1)]));
    newRoom({ mode: 'local', ...tableOptions() }, { name: seats.map((c) => names[c]).join(' & ').slice(0, 32), names });
  };
  const localTitle = h('h2', {}, 'Two players, one screen');

  const editionChanged = () => {
    const allowed = playerCounts(edition.value);
    const previous = count();
    players.replaceChildren(...allowed.map((n) => h('option', { value: String(n), selected: n === previous }, `${n} players`)));
    players.disabled = allowed.length === 1;
    houseLabel.hidden = edition.value !== 'classic';
    const seats = seatingFor(count());
    const chosen = botColour.value || 'red';
    botColour.replaceChildren(...seats.map((colour) => h('option', { value: colour, selected: colour === chosen },
      colour === 'red' ? 'Red (rolls first)' : `${colour[0].toUpperCase()}${colour.slice(1)}`)));
    renderLevels();
    namesBox.replaceChildren(...seats.map((colour) => nameLabels[colour]), localButton);
    localTitle.textContent = `${['', '', 'Two', 'Three', 'Four'][count()]} players, one screen`;
  };
  const localButton = h('button', { 'data-testid': 'play-local', onclick: local }, 'Start');
  const card = (title, text, ...body) => h('section', { class: 'card' }, h('h2', {}, title), h('p', {}, text), ...body);
  root.replaceChildren(
    h('h1', {}, 'Aeroplane Chess'),
    h('p', { class: 'lead' }, 'Race your four planes around the board and home before your opponent does. Roll a six to take off, land on a plane to send it home. ',
      h('a', { href: '#/rules', 'data-testid': 'start-rules' }, 'How to play')),
    h('div', { class: 'card' },
      h('form', { class: 'row', onsubmit: rename }, h('label', { for: 'name' }, 'Your name', name), saveButton),
      identityLine,
      h('details', {}, h('summary', {}, 'Your own dice seed (optional)'),
        h('p', { class: 'small-print' }, 'The die is fair and you can check every roll after the game. Your browser adds a random seed of its own; type one here if you want to choose it.'),
        h('label', { for: 'seed' }, 'Dice seed', seed)),
      status),
    h('section', { class: 'card edition-choice', 'aria-labelledby': 'edition-title' },
      h('h2', { id: 'edition-title' }, 'Which game'),
      h('div', { class: 'row' },
        h('label', { for: 'edition' }, 'Edition', edition),
        h('label', { for: 'players' }, 'Players', players),
        houseLabel),
      h('p', { class: 'small-print' }, 'Plyyard is this site’s two-player game; Flights and Classic are the traditional boards for two to four. ',
        h('a', { href: '#/rules' }, 'Their rules'))),
    liveSection,
    h('div', { class: 'cards' },
      card('Play a friend online', 'Get a link to send to a friend.',
        h('button', { class: 'primary', 'data-testid': 'create-room', onclick: () => newRoom({ mode: 'online', ...tableOptions() }) }, 'Create a game')),
      card('Join a friend', 'Paste the link you were sent.',
        h('form', { class: 'row', onsubmit: (event) => { event.preventDefault(); const id = roomIdFrom(link.value); if (id) go(`/room/${id}`); } },
          link, h('button', { type: 'submit' }, 'Join'))),
      card('Quick match', 'Play the next person who is also looking for a game. Each turn has a clock.',
        h('div', { class: 'row' }, findButton, cancelButton), progress),
      card('Play the computer', 'Choose your colour and how strong each computer plays.',
        h('div', { class: 'row' },
          h('label', { for: 'bot-colour' }, 'Your colour', botColour),
          levelsBox,
          h('button', { 'data-testid': 'play-computer', onclick: computer }, 'Play'))),
      h('section', { class: 'card' }, localTitle, localCardText, namesBox),
      card('Watch a finished game again', 'Replay it move by move.',
        h('form', { class: 'row', onsubmit: (event) => { event.preventDefault(); const id = roomIdFrom(gameId.value); if (id) go(`/game/${id}`); } },
          gameId, h('button', { type: 'submit', 'data-testid': 'open-game' }, 'Open')))),
  );
  editionChanged();
  return () => {
    left = true;
    if (matching) {
      matching.abort.abort();
      clearInterval(matching.timer);
      matching = null;
    }
  };
}
