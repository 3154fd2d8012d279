// The room view: a seated player's game, a same-device game, or a spectator's view.
//
// Server messages go through one queue processed in order, so a move's animation (and a captured
// plane's flight home) finishes before the next event is drawn. The client keeps the room's
// snapshot up to date with `applyEvent`; when an event number is skipped it asks for a fresh
// snapshot (`sync`). The layout, the clocks and the game-over panel live in sibling modules.
// (About 510 lines, a little over the usual 500: what is left is the message queue and the
// rendering it drives; the next cut is the pure room session of issue 14, beside gamestate.js.)

import { ApiError, clientSeed, forgetSeat, loadSeat, roomStatus, saveSeat, savedName, wsUrl } from '../api.js';
import { BoardView, COLOUR_NAMES } from '../board.js';
import { RoomConnection } from '../connection.js';
import { confirmDialog, h } from '../dom.js';
import { applyEvent, permissions } from '../gamestate.js';
import { PHRASES, colourName, describeEvent } from '../messages.js';
import { ClockTracker } from './room-clock.js';
import { buildRoomLayout, renderControls, roomKeyboard, showJoinForm } from './room-layout.js';
import { drawControls, inviteSection, playerRows, quickMessageBar } from './room-panels.js';
import { nextGameButtons, showRoomOver } from './room-next.js';
import { YourTurnCue } from './your-turn.js';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const reducedMotion = () => globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches;

/**
 * Shows room `roomId` in `root`. `intent`: {join: {name, client_seed, colour}} to take a seat
 * (the creator of a room), {watch: true} to spectate; otherwise a saved seat token is used, or the
 * visitor is asked. `go(route, intent)` navigates. Returns a function that leaves the room; its
 * `confirmLeave()` says whether leaving should be confirmed (a live game in a seat).
 */
export function mountRoom(root, roomId, intent = {}, go = null) {
  const view = new RoomView(root, roomId, intent, go);
  view.start();
  const unmount = () => view.leave();
  unmount.confirmLeave = () => Boolean(view.state?.phase === 'playing' && view.seat);
  return unmount;
}

class RoomView {
  constructor(root, roomId, intent, go) {
    this.root = root;
    this.roomId = roomId;
    this.intent = intent;
    this.go = go ?? ((route) => { location.hash = route; });
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
    this.overShown = false;
    this.rematchBy = new Set();
    this.unsupported = new Set();
    this.left = false;
    this.localNames = loadSeat(roomId)?.names ?? intent.join?.names ?? null;
    this.clocks = new ClockTracker(() => this.renderPlayers());
    this.cue = new YourTurnCue();
    this.el = buildRoomLayout(this);
    this.board = new BoardView(this.el.boardWrap, { onSelect: (colour, plane) => this.move(plane) });
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
    showJoinForm(this, status);
  }

  connect(role) {
    this.role = role;
    this.connection = new RoomConnection({
      url: wsUrl(this.roomId, this.intent.wsPath),
      joinMessage: () => this.joinMessage(),
      onMessage: (message) => this.enqueue(message),
      onStatus: (status, closeEvent) => this.connectionStatus(status, closeEvent),
    });
    this.connection.connect();
    this.spectatorPoll = setInterval(() => this.pollSpectators(), 10000);
  }

  joinMessage() {
    const saved = loadSeat(this.roomId);
    if (this.role === 'player' && saved) {
      return { type: 'join', role: 'player', name: saved.name || savedName() || 'Player', token: saved.token };
    }
    if (this.role === 'player' && this.intent.join) {
      const { name, client_seed: seed, colour } = this.intent.join;
      const join = { type: 'join', role: 'player', name, client_seed: clientSeed(seed) };
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
    } else if (status === 'closed' && closeEvent && !this.left) {
      banner.textContent = closeEvent.code === 4001
        ? 'This seat is now played in another window.'
        : 'The room has closed.';
      banner.hidden = false;
    }
    this.connectionState = status;
    if (this.state) this.render();
  }

  async pollSpectators() {
    if (!this.state || this.state.phase === 'over' || document.hidden) return;
    try {
      const status = await roomStatus(this.roomId);
      if (this.state && status.spectators !== this.state.spectators) {
        this.state.spectators = status.spectators;
        this.renderPlayers();
      }
    } catch {
      // the next poll tries again
    }
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
        this.hint(message);
        return;
      case 'said':
        this.log(`${this.nameOf(message.colour)}: “${PHRASES[message.phrase] ?? message.phrase}”`, false, 'said');
        return;
      case 'rematch_offered':
        this.rematchBy.add(message.by);
        if (message.by !== this.seat) this.log(`${this.nameOf(message.by)} wants a rematch.`, true);
        this.renderNext();
        return;
      case 'rematch_ready':
        this.rematchReady(message);
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

  nameOf(colour) {
    return this.localNames?.[colour] ?? this.state?.seats?.[colour]?.name ?? colourName(colour);
  }

  hint(message) {
    const game = this.state?.game;
    const button = this.el.moves.querySelector(`[data-testid=move-${message.plane}]`);
    const move = button ? button.textContent : `Plane ${message.plane + 1}`;
    this.log(`Hint (${message.level}): ${move}${message.explanation ? ` (${message.explanation})` : ''}.`, true);
    if (game) this.board.flash(game.to_act, message.plane);
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
      saveSeat(this.roomId, { colour: message.colour, token: message.token ?? previous?.token, name, names: this.localNames ?? undefined });
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
    const fresh = message.snapshot.phase === 'playing' && !message.snapshot.game.planes.red.concat(message.snapshot.game.planes.yellow).some((p) => p !== 'base');
    if (fresh && !this.startAnnounced && message.snapshot.game.phase.kind === 'awaiting_roll' && message.snapshot.game.to_act === 'red') {
      // A quick match or rematch starts before anyone connects: say so to whoever arrives.
      this.startAnnounced = true;
      this.log('The game has started. Red rolls first.', true);
    }
    this.setSnapshot(message.snapshot);
  }

  setSnapshot(snapshot) {
    this.state = snapshot;
    this.busy = false;
    this.clocks.fromSnapshot(snapshot);
    this.dieOwner = snapshot.game.phase.kind === 'awaiting_move' ? snapshot.game.to_act : null;
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
      case 'rate_limited':
        this.log('One quick message every two seconds, please.');
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
      this.dieOwner = message.colour;
      this.el.die.textContent = String(message.value);
      this.el.die.classList.remove('rolling');
      void this.el.die.offsetWidth; // restart the wobble
      this.el.die.classList.add('rolling');
    }
    if (message.type === 'turn_passed') {
      this.dieOwner = null;
      this.el.announce.textContent = ''; // the last turn's news is old now
    }
    if (message.type === 'moved') await this.animateMove(message, before);
    const lines = describeEvent(message, before, this.seat);
    for (const line of lines) this.log(line.text, false);
    const big = lines.filter((line) => line.big).map((line) => line.text);
    if (big.length > 0) this.announce(big.join(' '), message.captures?.length > 0 || message.finished);
    this.state = applyEvent(before, message);
    this.clocks.onEvent(message, this.state);
    this.render();
    if (message.type === 'moved' && (message.captures.length > 0 || message.finished)) {
      // Let the capture or the finish be seen before the next event replaces it.
      await sleep(reducedMotion() ? 400 : 900);
    }
  }

  async animateMove(message, before) {
    this.board.setState({ planes: before.game.planes });
    await this.board.animate(message.colour, message.plane, message.from, message.to);
    const flights = [];
    const planes = structuredClone(before.game.planes);
    planes[message.colour][message.plane] = message.to;
    for (const capture of message.captures) {
      for (const plane of capture.planes) {
        flights.push(this.board.animate(capture.colour, plane, before.game.planes[capture.colour][plane], 'base'));
      }
    }
    await Promise.all(flights);
    if (message.finished) this.board.celebrate(message.colour, message.plane);
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

  /** Rolls, after asking when rolling would decline the opponent's standing draw offer. */
  async roll() {
    if (permissions(this.state, this.seat).answerDraw) {
      const yes = await confirmDialog('Rolling declines the draw offer. Roll anyway?', 'Roll', 'Not yet');
      if (!yes || !permissions(this.state, this.seat).roll) return;
    }
    this.act({ type: 'roll' });
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

  say(phrase) {
    this.connection?.send({ type: 'say', phrase });
  }

  rematch() {
    this.rematchBy.add(this.seat);
    this.connection?.send({ type: 'rematch', client_seed: clientSeed('') });
    this.renderNext();
  }

  rematchReady(message) {
    if (message.token) {
      const name = loadSeat(this.roomId)?.name ?? savedName();
      saveSeat(message.room_id, { colour: message.colour, token: message.token, name });
      this.go(`/room/${message.room_id}`, { wsPath: message.ws_path });
    } else {
      this.rematchRoom = message.room_id;
      this.renderNext();
    }
  }

  keyboard(event) {
    roomKeyboard(this, event);
  }

  log(text, big = false, kind = '') {
    this.el.log.prepend(h('li', { class: [big ? 'big' : '', kind].join(' ').trim() }, text));
    if (big) this.announce(text);
    while (this.el.log.children.length > 80) this.el.log.lastChild.remove();
  }

  /** Shows a notable event until a newer one replaces it (at least a few seconds). */
  announce(text, strong = false) {
    this.el.announce.textContent = text;
    this.el.announce.classList.toggle('strong', strong);
    clearTimeout(this.announceTimer);
    this.announceTimer = setTimeout(() => { this.el.announce.textContent = ''; }, 8000);
  }

  render() {
    const state = this.state;
    const game = state.game;
    const allowed = permissions(state, this.seat);
    const live = state.phase === 'playing';
    const awaitingMove = game.phase.kind === 'awaiting_move';
    this.el.boardWrap.hidden = false;
    this.board.setState({
      planes: game.planes,
      toAct: live ? game.to_act : null,
      roll: awaitingMove ? game.phase.roll : null,
      legal: awaitingMove ? game.phase.legal : [],
      selectable: allowed.move && !this.busy,
    });
    this.renderInvite();
    this.renderPlayers();
    renderControls(this, allowed);
    this.el.draw.replaceChildren(...drawControls(state, this.seat, allowed, (type) => this.act({ type })));
    const seated = this.seat === 'red' || this.seat === 'yellow';
    if (seated && state.mode === 'online' && state.phase !== 'waiting' && this.el.social.childElementCount === 0) {
      this.el.social.append(quickMessageBar((phrase) => this.say(phrase)));
    }
    this.el.socialSection.hidden = this.el.social.childElementCount === 0;
    if (state.phase === 'over') this.renderOver();
    this.cue.update(state, this.seat);
  }

  renderInvite() {
    const show = this.state.phase === 'waiting' && this.state.mode === 'online';
    this.el.invite.hidden = !show;
    if (show && this.el.invite.childElementCount === 0) {
      this.el.invite.append(...inviteSection(this.roomId, (text) => this.log(text)));
    }
  }

  renderPlayers() {
    if (!this.state) return;
    this.el.players.replaceChildren(...playerRows(this.state, this.seat, this.clocks, this.localNames));
    const watching = this.state.spectators ?? 0;
    this.el.spectators.textContent = watching === 1 ? '1 spectator watching' : `${watching} spectators watching`;
    const mine = this.seat && this.seat !== 'both' ? this.clocks.remaining(this.seat) : null;
    this.el.clockWarning.hidden = !(mine !== null && mine <= 10000);
    if (mine !== null && mine <= 10000) this.el.clockWarning.textContent = `Hurry: ${Math.ceil(mine / 1000)} s left, then the server plays for you.`;
  }

  renderOver() {
    this.el.over.hidden = false;
    if (this.overShown) return;
    this.overShown = true;
    showRoomOver(this);
  }

  renderNext() {
    if (this.overShown) this.el.next?.replaceChildren(...nextGameButtons(this));
  }

  leave() {
    this.left = true;
    document.removeEventListener('keydown', this.onKey);
    clearInterval(this.spectatorPoll);
    this.clocks.stop();
    this.cue.stop();
    this.connection?.close();
  }
}
