// The room view's layout and its controls: the turn line, the die (with whose roll it is), the
// Roll button, the move buttons, the player's other actions. Only what the viewer can use is
// shown: no Roll button or key tips for spectators or after the game, no empty boxes.
//
// On a phone or a portrait tablet the controls come first and stay at the top of the screen
// while the board scrolls under them, so Roll and the move buttons are never below the fold.

import { clientSeed, saveName, savedName } from '../api.js';
import { h } from '../dom.js';
import { destination, permissions } from '../gamestate.js';
import { identity } from '../identity.js';
import { colourName, positionText } from '../messages.js';
import { setSound, soundOn } from './your-turn.js';

/** Builds the room's elements into `view.root`; returns them by name. */
export function buildRoomLayout(view) {
  const $ = h;
  const el = {
    banner: $('div', { class: 'banner reconnecting', role: 'status', hidden: true, 'data-testid': 'connection-banner' }),
    joinPanel: $('section', { hidden: true, 'data-testid': 'join-panel' }),
    invite: $('section', { class: 'invite', hidden: true, 'data-testid': 'invite' }),
    players: $('div', { class: 'players', 'aria-label': 'Players' }),
    spectators: $('p', { class: 'spectators', 'data-testid': 'spectators' }),
    clockWarning: $('p', { class: 'clock-warning', role: 'alert', hidden: true, 'data-testid': 'clock-warning' }),
    turn: $('p', { class: 'turn', 'aria-live': 'polite', 'data-testid': 'turn' }),
    announce: $('p', { class: 'announce', role: 'status', 'data-testid': 'announce' }),
    dieOwner: $('span', { class: 'die-owner', 'data-testid': 'die-owner' }),
    die: $('div', { class: 'die', role: 'img', 'aria-label': 'Die', 'data-testid': 'die' }, '–'),
    roll: $('button', {
      id: 'roll', class: 'primary', disabled: true, 'aria-keyshortcuts': 'R', 'data-testid': 'roll',
      onclick: () => view.roll(),
    }, 'Roll'),
    moves: $('div', { class: 'move-buttons', role: 'group', 'aria-label': 'Planes you may move', 'data-testid': 'moves' }),
    keys: $('p', { class: 'keys', 'data-testid': 'keys' }, 'Keys: R rolls, 1–4 move a plane, Tab and Enter pick one on the board.'),
    actions: $('div', { class: 'row' }),
    draw: $('div', { class: 'row draw-row', 'data-testid': 'draw' }),
    social: $('div', {}),
    log: $('ul', {
      class: 'messages', tabindex: 0, 'aria-live': 'polite', 'aria-label': 'Game messages', 'data-testid': 'messages',
    }),
    over: $('section', { class: 'game-over', hidden: true, 'data-testid': 'game-over' }),
    boardWrap: $('div', { class: 'board-wrap', hidden: true, 'data-testid': 'board' }),
  };
  el.resign = $('button', { class: 'danger', hidden: true, 'data-testid': 'resign', onclick: () => view.resign() }, 'Resign');
  el.hint = $('button', { hidden: true, 'data-testid': 'hint', onclick: () => view.send({ type: 'hint' }) }, 'Hint');
  el.undo = $('button', { hidden: true, 'data-testid': 'undo', onclick: () => view.act({ type: 'undo' }) }, 'Undo');
  el.actions.append(el.resign, el.hint, el.undo);
  el.diceRow = $('div', { class: 'dice-row' }, $('div', { class: 'die-box' }, el.die, el.dieOwner), el.roll);
  el.controls = $('section', { class: 'controls', 'aria-label': 'Your turn', 'data-testid': 'controls', hidden: true },
    el.turn, el.announce, el.clockWarning, el.diceRow, el.moves, el.draw, el.keys);
  el.actionsSection = $('section', { 'data-testid': 'actions' }, el.actions);
  el.socialSection = $('section', { hidden: true }, $('h2', {}, 'Say'), el.social);
  view.root.replaceChildren(
    $('div', { class: 'room' },
      el.controls,
      el.boardWrap,
      $('div', { class: 'panel' },
        el.banner,
        el.joinPanel,
        el.invite,
        el.over,
        $('section', {}, $('h2', {}, 'Players'), el.players, el.spectators,
          $('label', { class: 'inline' },
            $('input', { type: 'checkbox', checked: soundOn(), 'data-testid': 'sound', onchange: (event) => setSound(event.target.checked) }),
            'Sound when it is your turn')),
        el.actionsSection,
        el.socialSection,
        $('section', {},
          $('h2', {}, 'Messages'), el.log,
          $('p', { class: 'small-print' },
            $('a', { href: '#/rules', target: '_blank', rel: 'noopener' }, 'How to play (opens in a new tab)'))))),
  );
  return el;
}

/** The text of a move button: "Plane 2: square 5 → square 9". */
export function moveText(game, plane) {
  const from = game.planes[game.to_act][plane];
  const to = destination(from, game.phase.roll);
  return `Plane ${plane + 1}: ${positionText(from)} → ${positionText(to)}`;
}

/** Updates the controls for the room's state; `allowed` is what the viewer may do. */
export function renderControls(view, allowed) {
  const { el, state } = view;
  const game = state.game;
  const live = state.phase === 'playing';
  const over = state.phase === 'over';
  const seated = Boolean(view.seat);
  el.controls.hidden = over;
  renderTurn(view, allowed);
  // Spectators and finished games have no die to roll and no keys to press.
  el.roll.hidden = !seated || !live;
  el.keys.hidden = !seated || !live;
  el.roll.disabled = !allowed.roll || view.session.busy;
  el.moves.replaceChildren(...(allowed.move ? game.phase.legal.map((plane) => h('button', {
    'data-testid': `move-${plane}`, disabled: view.session.busy, 'aria-keyshortcuts': String(plane + 1),
    onclick: () => view.move(plane),
  }, moveText(game, plane))) : []));
  el.moves.hidden = !allowed.move;
  el.resign.hidden = !seated || !live;
  el.resign.disabled = !allowed.resign;
  // Hints in computer rooms, undo in computer and local rooms (docs/protocol.md).
  el.hint.hidden = state.mode !== 'computer' || !seated || !live || view.session.unsupported.has('hint');
  el.undo.hidden = !['computer', 'local'].includes(state.mode) || !seated || !live || view.session.unsupported.has('undo');
  el.hint.disabled = !allowed.move;
  el.undo.disabled = !live || view.session.busy;
  el.actionsSection.hidden = [el.resign, el.hint, el.undo].every((button) => button.hidden);
}

function renderTurn(view, allowed) {
  const { el, state } = view;
  const game = state.game;
  const name = (colour) => {
    const local = view.seat === 'both' ? view.localNames?.[colour] : null;
    return local && local !== colourName(colour) ? `${local} (${colourName(colour)})` : colourName(colour);
  };
  let text;
  if (state.phase === 'waiting') text = 'Waiting for the second player…';
  else if (state.phase === 'over') text = '';
  else if (allowed.roll) text = view.seat === 'both' ? `${name(game.to_act)}: roll the die.` : 'Your turn: roll the die.';
  else if (allowed.move) {
    text = view.seat === 'both'
      ? `${name(game.to_act)}: choose a plane to move ${game.phase.roll}.`
      : `Choose a plane to move ${game.phase.roll} (tap it, or press its number).`;
  } else if (game.phase.kind === 'awaiting_move') text = `${name(game.to_act)} is choosing a plane for ${game.phase.roll}.`;
  else text = `${name(game.to_act)} to roll.`;
  el.turn.textContent = text;
  el.turn.hidden = !text;
  el.turn.dataset.toAct = state.phase === 'playing' ? game.to_act : '';
  // The die belongs to whoever rolled it; it is cleared when the turn passes.
  const owner = state.phase === 'playing' ? view.session.dieOwner : null;
  if (game.phase.kind === 'awaiting_move') el.die.textContent = String(game.phase.roll);
  else if (!owner) el.die.textContent = '–';
  const rolling = el.die.classList.contains('rolling') ? ' rolling' : '';
  el.die.className = `die ${owner ?? (state.phase === 'playing' ? `${game.to_act} empty` : 'empty')}${rolling}`;
  el.dieOwner.textContent = state.phase !== 'playing' ? ''
    : owner ? `${name(owner)} rolled` : `${name(game.to_act)} to roll`;
  el.die.setAttribute('aria-label', owner ? `Die: ${colourName(owner)} rolled ${el.die.textContent}` : 'Die: not rolled yet');
  el.diceRow.hidden = state.phase !== 'playing';
}

/** Asks a visitor of a room with a free seat for a name (and, folded away, a dice seed). */
export function showJoinForm(view, status) {
  const name = h('input', { id: 'join-name', value: identity.name() || savedName(), maxlength: 32, required: true, autocomplete: 'nickname' });
  const seed = h('input', { id: 'join-seed', maxlength: 64, placeholder: 'optional' });
  const opponent = status.seats.red?.name ?? status.seats.yellow?.name;
  view.el.joinPanel.replaceChildren(
    h('h2', {}, opponent ? `${opponent} invites you to a game` : 'Join this game'),
    h('div', { class: 'row' }, h('label', { for: 'join-name' }, 'Your name', name)),
    h('details', {}, h('summary', {}, 'Choose your own dice seed (optional)'),
      h('label', { for: 'join-seed' }, 'Dice seed', seed)),
    h('div', { class: 'row' },
      h('button', {
        class: 'primary', 'data-testid': 'take-seat',
        onclick: async () => {
          const chosen = name.value.trim() || identity.name() || 'Player';
          saveName(chosen);
          if (identity.name() && identity.name() !== chosen) await identity.rename(chosen).catch(() => null);
          view.intent = { join: { name: chosen, client_seed: clientSeed(seed.value) } };
          view.el.joinPanel.hidden = true;
          view.connect('player');
        },
      }, 'Take the seat'),
      h('button', {
        'data-testid': 'watch',
        onclick: () => { view.el.joinPanel.hidden = true; view.connect('spectator'); },
      }, 'Just watch')),
  );
  view.el.joinPanel.hidden = false;
  name.focus();
}

/** The room's keys: R rolls, 1–4 move a plane (not while typing or in a dialog). */
export function roomKeyboard(view, event) {
  if (!view.state || event.target.closest?.('input, textarea, select, dialog')) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const allowed = permissions(view.state, view.seat);
  if ((event.key === 'r' || event.key === 'R') && allowed.roll && !view.session.busy) {
    event.preventDefault();
    view.roll();
  } else if (/^[1-4]$/.test(event.key) && allowed.move && !view.session.busy) {
    const plane = Number(event.key) - 1;
    if (view.state.game.phase.legal.includes(plane)) {
      event.preventDefault();
      view.move(plane);
    }
  }
}
