// The room view: a seated player's game, a same-device game, or a spectator's view.
//
// Server messages go through one queue processed in order, so a move's animation finishes before
// the next event is drawn. The client keeps the room's snapshot up to date with `applyEvent`; when
// an event number is skipped it asks for a fresh snapshot (`sync`).

import { ApiError, forgetSeat, loadSeat, roomStatus, saveName, saveSeat, savedName, wsUrl } from '../api.js';
import { BoardView, COLOUR_NAMES } from '../board.js';
import { RoomConnection } from '../connection.js';
import { confirmDialog, h } from '../dom.js';
import { applyEvent, destination, permissions } from '../gamestate.js';
import { colourName, describeEvent } from '../messages.js';
import { showGameOver } from './game-over.js';
import { drawControls, inviteSection, playerRows } from './room-panels.js';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function positionText(position) {
  if (position === 'base') return 'base';
  if (position === 'finished') return 'finish';
  return position > 50 ? `lane ${position - 50}` : `square ${position}`;
}

/**
 * Shows room `roomId` in `root`. `intent`: {join: {name, client_seed, colour}} to take a seat
 * (the creator of a room), {watch: true} to spectate; otherwise a saved seat token is used, or the
 * visitor is asked. Returns a function that leaves the room.
 */
export function mountRoom(root, roomId, intent = {}) {
  const view = new RoomView(root, roomId, intent);
  view.start();
  return () => view.leave();
}

class RoomView {
  constructor(root, roomId, intent) {
    this.root = root;
    this.roomId = roomId;
    this.intent = intent;
    this.state = null;
    this.seat = null; // 'red' | 'yellow' | 'both' | null (spectator)
    this.role = null;
    this.connection = null;
    this.queue = [];
    this.processing = false;
    this.awaitingSync = false;
    this.busy = false; // an action was sent and its answer has not come yet
    this.announced = null; // the commitment seen before the first roll
    this.observedRolls = null; // every roll seen live, when this client saw the game start
    this.fairnessShown = false;
    this.unsupported = new Set();
    this.build();
  }

  build() {
    const $ = (tag, attributes, ...children) => h(tag, attributes, ...children);
    this.el = {
      banner: $('div', { class: 'banner reconnecting', role: 'status', hidden: true, 'data-testid': 'connection-banner' }),
      joinPanel: $('section', { hidden: true, 'data-testid': 'join-panel' }),
      invite: $('section', { class: 'invite', hidden: true, 'data-testid': 'invite' }),
      players: $('div', { class: 'players', 'aria-label': 'Players' }),
      turn: $('p', { class: 'turn', 'aria-live': 'polite', 'data-testid': 'turn' }),
      announce: $('p', { class: 'announce', role: 'status', 'data-testid': 'announce' }),
      die: $('div', { class: 'die', 'aria-label': 'Die', 'data-testid': 'die' }, '–'),
      roll: $('button', {
        id: 'roll', class: 'primary', disabled: true, 'aria-keyshortcuts': 'R', 'data-testid': 'roll',
        onclick: () => this.act({ type: 'roll' }),
      }, 'Roll'),
      moves: $('div', { class: 'move-buttons', 'aria-label': 'Planes you may move', 'data-testid': 'moves' }),
      actions: $('div', { class: 'row' }),
      draw: $('div', { class: 'row', 'data-testid': 'draw' }),
      log: $('ul', { class: 'messages', 'aria-live': 'polite', 'aria-label': 'Game messages', 'data-testid': 'messages' }),
      over: $('section', { hidden: true, 'data-testid': 'game-over' }),
      boardWrap: $('div', { class: 'board-wrap', 'data-testid': 'board' }),
    };
    this.el.resign = $('button', { class: 'danger', 'data-testid': 'resign', onclick: () => this.resign() }, 'Resign');
    this.el.hint = $('button', { hidden: true, 'data-testid': 'hint', onclick: () => this.act({ type: 'hint' }, false) }, 'Hint');
    this.el.undo = $('button', { hidden: true, 'data-testid': 'undo', onclick: () => this.act({ type: 'undo' }) }, 'Undo');
    this.el.actions.append(this.el.resign, this.el.hint, this.el.undo);
    this.board = new BoardView(this.el.boardWrap, { onSelect: (colour, plane) => this.move(plane) });
    this.root.replaceChildren(
      $('div', { class: 'room' },
        this.el.boardWrap,
        $('div', { class: 'panel' },
          this.el.banner,
          this.el.joinPanel,
          this.el.invite,
          $('section', {}, $('h2', {}, 'Players'), this.el.players),
          $('section', {},
            this.el.turn,
            this.el.announce,
            $('div', { class: 'dice-row' }, this.el.die, this.el.roll),
            this.el.moves,
            $('p', { class: 'keys' }, 'Keys: R rolls, 1–4 move a plane, Tab and Enter pick one on the board.')),
          this.el.over,
          $('section', {}, this.el.actions, this.el.draw),
          $('section', {}, $('h2', {}, 'Messages'), this.el.log))),
    );
    this.onKey = (event) => this.keyboard(event);
    document.addEventListener('keydown', this.onKey);
  }

  async start() {
    const saved = loadSeat(this.roomId);
    if (saved || this.intent.join || this.intent.watch) {
      this.connect(saved ? 'player' : this.intent.join ? 'player' : 'spectator');
      return;
    }
    try {
      const status = await roomStatus(this.roomId);
      const free = ['red', 'yellow'].filter((c) => !status.seats[c]);
      if (status.phase === 'waiting' && status.mode === 'online' && free.length > 0) {
        this.askToJoin(status);
      } else {
        this.connect('spectator');
      }
    } catch (error) {
      if (error instanceof ApiError && error.code === 'room_not_found') {
        this.root.replaceChildren(h('div', { class: 'card' },
          h('h2', {}, 'No such room'),
          h('p', {}, 'This room does not exist (or the server was restarted).'),
          h('p', {}, h('a', { href: `#/game/${this.roomId}` }, 'Look for a finished game with this id'))));
      } else {
        this.log(`Could not load the room: ${error.message}`, true);
      }
    }
  }

  askToJoin(status) {
    const name = h('input', { id: 'join-name', value: savedName(), maxlength: 32, required: true, autocomplete: 'nickname' });
    const seed = h('input', { id: 'join-seed', maxlength: 64, placeholder: 'optional' });
    const opponent = status.seats.red?.name ?? status.seats.yellow?.name;
    this.el.joinPanel.replaceChildren(
      h('h2', {}, opponent ? `${opponent} invites you to a game` : 'Join this game'),
      h('div', { class: 'row' },
        h('label', { for: 'join-name' }, 'Your name', name),
        h('label', { for: 'join-seed' }, 'Dice seed', seed)),
      h('div', { class: 'row' },
        h('button', {
          class: 'primary', 'data-testid': 'take-seat',
          onclick: () => {
            const chosen = name.value.trim() || 'Player';
            saveName(chosen);
            this.intent = { join: { name: chosen, client_seed: seed.value || undefined } };
            this.el.joinPanel.hidden = true;
            this.connect('player');
          },
        }, 'Take the seat'),
        h('button', {
          'data-testid': 'watch',
          onclick: () => { this.el.joinPanel.hidden = true; this.connect('spectator'); },
        }, 'Just watch')),
    );
    this.el.joinPanel.hidden = false;
    name.focus();
  }

  connect(role) {
    this.role = role;
    this.connection = new RoomConnection({
      url: wsUrl(this.roomId, this.intent.wsPath),
      joinMessage: () => this.joinMessage(),
      onMessage: (message) => this.enqueue(message),
      onStatus: (status) => this.connectionStatus(status),
    });
    this.connection.connect();
  }

  joinMessage() {
    const saved = loadSeat(this.roomId);
    if (this.role === 'player' && saved) {
      return { type: 'join', role: 'player', name: saved.name || savedName() || 'Player', token: saved.token };
    }
    if (this.role === 'player' && this.intent.join) {
      const { name, client_seed: seed, colour } = this.intent.join;
      const join = { type: 'join', role: 'player', name };
      if (seed) join.client_seed = seed;
      if (colour) join.colour = colour;
      return join;
    }
    return { type: 'join', role: 'spectator', name: savedName() || 'Spectator' };
  }

  connectionStatus(status, closeEvent) {
    const banner = this.el.banner;
    if (status === 'reconnecting') {
      banner.textContent = 'Connection lost. Reconnecting…';
      banner.hidden = false;
    } else if (status === 'open') {
      banner.hidden = true;
    } else if (status === 'closed' && closeEvent) {
      banner.textContent = closeEvent.code === 4001
        ? 'This seat is now played in another window.'
        : 'The room has closed.';
      banner.hidden = false;
    }
    this.connectionState = status;
    if (this.state) this.render();
  }

  enqueue(message) {
    this.queue.push(message);
    if (!this.processing) this.process();
  }

  async process() {
    this.processing = true;
    while (this.queue.length > 0) {
      const message = this.queue.shift();
      try {
        await this.handle(message);
      } catch (error) {
        console.warn('could not handle a server message', message, error);
      }
    }
    this.processing = false;
  }

  async handle(message) {
    switch (message.type) {
      case 'welcome':
        this.welcome(message);
        return;
      case 'snapshot':
        this.awaitingSync = false;
        this.setSnapshot(message.snapshot);
        this.retryAfterSync();
        return;
      case 'error':
        this.error(message);
        return;
      case 'hint':
        this.log(`Hint (${message.level}): move plane ${message.plane + 1}${message.explanation ? `, ${message.explanation}` : ''}.`, true);
        this.board.flash?.(this.state?.game.to_act, message.plane);
        return;
      default:
        break;
    }
    if (typeof message.event !== 'number' || !this.state) return;
    this.observe(message);
    if (this.awaitingSync || message.event <= this.state.event) return;
    if (message.event !== this.state.event + 1) {
      this.awaitingSync = true;
      this.connection.send({ type: 'sync' });
      return;
    }
    await this.event(message);
  }

  /**
   * Keeps every roll value this connection received, in event order, as long as it received
   * every event since before the first roll; a missing event number makes the list unknown.
   */
  observe(message) {
    if (this.observedRolls === null || message.event <= this.lastReceived) return;
    if (message.event !== this.lastReceived + 1) {
      this.observedRolls = null;
      return;
    }
    this.lastReceived = message.event;
    if (message.type === 'rolled') this.observedRolls.push(message.value);
  }

  welcome(message) {
    this.role = message.role;
    if (message.role === 'player') {
      const previous = loadSeat(this.roomId);
      const name = previous?.name ?? this.intent.join?.name ?? savedName();
      saveSeat(this.roomId, { colour: message.colour, token: message.token ?? previous?.token, name });
    }
    this.seat = message.role !== 'player' ? null : message.snapshot.mode === 'local' ? 'both' : message.colour;
    this.awaitingSync = false;
    const first = message.snapshot.event;
    if (this.observedRolls === null && message.snapshot.phase === 'waiting') {
      this.observedRolls = [];
      this.lastReceived = first;
    } else if (this.observedRolls !== null && first > this.lastReceived) {
      this.observedRolls = null; // events went by while this client was away
    }
    if (this.announced === null && message.snapshot.phase === 'waiting') {
      this.announced = message.snapshot.fairness.commitment;
    }
    const role = this.seat === 'both' ? 'both colours on this device'
      : this.seat ? `${COLOUR_NAMES[this.seat]}` : 'a spectator';
    this.log(`You are ${role}.`);
    this.setSnapshot(message.snapshot);
  }

  setSnapshot(snapshot) {
    this.state = snapshot;
    this.busy = false;
    this.render();
  }

  error(message) {
    this.busy = false;
    const refused = this.pending?.id === message.id ? this.pending.message : null;
    this.pending = null;
    switch (message.code) {
      case 'stale':
        this.retry = refused;
        this.awaitingSync = true;
        this.connection.send({ type: 'sync' });
        break;
      case 'bad_token':
        forgetSeat(this.roomId);
        this.log('Your seat could not be reclaimed; you are watching instead.', true);
        this.role = 'spectator';
        this.connection.socket?.close();
        break;
      case 'room_full':
      case 'seat_taken':
        this.log('The seats are taken; you are watching.', true);
        this.role = 'spectator';
        this.intent = {};
        this.connection.send(this.joinMessage());
        break;
      case 'unknown_type':
        this.unsupported.add('hint').add('undo');
        this.log('This server does not offer that yet.');
        break;
      case 'nothing_to_undo':
        this.log('There is no move of yours to take back.');
        break;
      default:
        this.log(message.message || message.code, true);
    }
    if (this.state) this.render();
  }

  async event(message) {
    this.busy = false;
    const before = this.state;
    if (message.type === 'rolled') {
      this.el.announce.textContent = ''; // a new roll makes the last announcement old news
      this.el.die.textContent = String(message.value);
      this.el.die.classList.remove('rolling');
      void this.el.die.offsetWidth; // restart the wobble
      this.el.die.classList.add('rolling');
    }
    if (message.type === 'moved') {
      this.board.setState({ planes: before.game.planes });
      await this.board.animate(message.colour, message.plane, message.from, message.to);
    }
    for (const line of describeEvent(message, before)) this.log(line.text, line.big);
    this.state = applyEvent(before, message);
    this.render();
    if (message.type === 'moved' && message.captures.length > 0) await sleep(150);
  }

  act(message, needsSeen = true) {
    if (!this.connection || !this.state) return;
    const full = needsSeen ? { ...message, seen: this.state.event } : message;
    const id = this.connection.send(full);
    if (id !== null && needsSeen) {
      this.pending = { id, message };
      this.busy = true;
      this.render();
    }
  }

  /**
   * After a `stale` refusal and the snapshot that follows, sends again an action that does not
   * depend on the board (resign and the draw actions) if it is still allowed; a roll or a move is
   * left to the player, who now sees the new position.
   */
  retryAfterSync() {
    const retry = this.retry;
    this.retry = null;
    if (!retry) return;
    const allowed = permissions(this.state, this.seat);
    const still = {
      resign: allowed.resign, offer_draw: allowed.offerDraw, accept_draw: allowed.answerDraw,
      decline_draw: allowed.answerDraw, withdraw_draw: allowed.withdrawDraw,
    }[retry.type];
    if (still) this.act(retry);
  }

  move(plane) {
    if (!permissions(this.state, this.seat).move || this.busy) return;
    this.act({ type: 'move', plane });
  }

  async resign() {
    if (!(await confirmDialog('Resign this game? Your opponent wins.', 'Resign'))) return;
    this.act({ type: 'resign' });
  }

  keyboard(event) {
    if (!this.state || event.target.closest?.('input, textarea, select, dialog')) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const allowed = permissions(this.state, this.seat);
    if ((event.key === 'r' || event.key === 'R') && allowed.roll && !this.busy) {
      event.preventDefault();
      this.act({ type: 'roll' });
    } else if (/^[1-4]$/.test(event.key) && allowed.move && !this.busy) {
      const plane = Number(event.key) - 1;
      if (this.state.game.phase.legal.includes(plane)) {
        event.preventDefault();
        this.move(plane);
      }
    }
  }

  log(text, big = false) {
    this.el.log.prepend(h('li', { class: big ? 'big' : '' }, text));
    if (big) {
      // The latest notable event (extra roll, void six, no move, capture, finish) stays in view.
      this.el.announce.textContent = text;
      clearTimeout(this.announceTimer);
      this.announceTimer = setTimeout(() => { this.el.announce.textContent = ''; }, 4000);
    }
    while (this.el.log.children.length > 60) this.el.log.lastChild.remove();
  }

  render() {
    const state = this.state;
    const game = state.game;
    const allowed = permissions(state, this.seat);
    const live = state.phase === 'playing';
    const awaitingMove = game.phase.kind === 'awaiting_move';
    this.board.setState({
      planes: game.planes,
      toAct: live ? game.to_act : null,
      roll: awaitingMove ? game.phase.roll : null,
      legal: awaitingMove ? game.phase.legal : [],
      selectable: allowed.move && !this.busy,
    });
    this.renderInvite();
    this.renderPlayers();
    this.renderTurn(allowed);
    this.el.roll.disabled = !allowed.roll || this.busy;
    this.el.moves.replaceChildren(...(allowed.move ? game.phase.legal.map((plane) => {
      const from = game.planes[game.to_act][plane];
      const to = destination(from, game.phase.roll);
      return h('button', {
        'data-testid': `move-${plane}`, disabled: this.busy, 'aria-keyshortcuts': String(plane + 1),
        onclick: () => this.move(plane),
      }, `Plane ${plane + 1}: ${positionText(from)} → ${positionText(to)}`);
    }) : []));
    this.el.resign.hidden = !this.seat || !live;
    this.el.resign.disabled = !allowed.resign;
    // Hints in computer rooms, undo in computer and local rooms (docs/protocol.md).
    this.el.hint.hidden = state.mode !== 'computer' || !this.seat || !live || this.unsupported.has('hint');
    this.el.undo.hidden = !['computer', 'local'].includes(state.mode) || !this.seat || !live || this.unsupported.has('undo');
    this.el.hint.disabled = !allowed.move;
    this.el.undo.disabled = !live || this.busy;
    this.renderDraw(allowed);
    if (state.phase === 'over') this.renderOver();
  }

  renderInvite() {
    const show = this.state.phase === 'waiting' && this.state.mode === 'online';
    this.el.invite.hidden = !show;
    if (show && this.el.invite.childElementCount === 0) {
      this.el.invite.append(...inviteSection(this.roomId, (text) => this.log(text)));
    }
  }

  renderPlayers() {
    this.el.players.replaceChildren(...playerRows(this.state, this.seat));
  }

  renderTurn(allowed) {
    const state = this.state;
    const game = state.game;
    let text;
    if (state.phase === 'waiting') text = 'Waiting for the second player…';
    else if (state.phase === 'over') text = 'Game over.';
    else if (allowed.roll) text = this.seat === 'both' ? `${colourName(game.to_act)}: roll the die.` : 'Your turn: roll the die.';
    else if (allowed.move) text = `Choose a plane to move ${game.phase.roll} (click it or press its number).`;
    else if (game.phase.kind === 'awaiting_move') text = `${colourName(game.to_act)} is choosing a plane for ${game.phase.roll}.`;
    else text = `${colourName(game.to_act)} to roll.`;
    this.el.turn.textContent = text;
    this.el.turn.dataset.toAct = state.phase === 'playing' ? game.to_act : '';
    const rolling = this.el.die.classList.contains('rolling') ? ' rolling' : '';
    this.el.die.className = `die ${state.phase === 'playing' ? game.to_act : ''}${rolling}`;
    if (game.phase.kind === 'awaiting_move') this.el.die.textContent = String(game.phase.roll);
    this.el.die.setAttribute('aria-label', `Die: ${this.el.die.textContent}`);
  }

  renderDraw(allowed) {
    this.el.draw.replaceChildren(...drawControls(this.state, this.seat, allowed, (type) => this.act({ type })));
  }

  renderOver() {
    this.el.over.hidden = false;
    if (this.fairnessShown) return;
    this.fairnessShown = true;
    showGameOver(this.el.over, {
      roomId: this.roomId, state: this.state, announced: this.announced, observedRolls: this.observedRolls,
    });
  }

  leave() {
    document.removeEventListener('keydown', this.onKey);
    this.connection?.close();
  }
}
