// The room view: a seated player's game, a same-device game, or a spectator's view.
//
// What to make of the server's messages is decided by the room session (`session.js`: event
// order, resync, the action awaiting its answer, the stale retry, the fairness bookkeeping); this
// view carries out the effects it returns, draws the room and wires the page's buttons and keys
// to the connection. Server messages go through one queue processed in order, so a move's
// animation (and a captured plane's flight home) finishes before the next message is looked at.
// The layout, the clocks and the game-over panel live in sibling modules.

import { ApiError, clientSeed, forgetSeat, loadSeat, roomStatus, saveSeat, savedName, wsUrl } from '../api.js';
import { BoardView } from '../board.js';
import { RoomConnection } from '../connection.js';
import { confirmDialog, h } from '../dom.js';
import { identity } from '../identity.js';
import { describeEvent } from '../messages.js';
import { RoomSession } from '../session.js';
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

/** The room view of a two-player plyyard room; `views/table-room.js` extends it for table rooms. */
export class RoomView {
  constructor(root, roomId, intent, go) {
    this.root = root;
    this.roomId = roomId;
    this.intent = intent;
    this.go = go ?? ((route) => { location.hash = route; });
    this.role = null; // how to join: 'player' or 'spectator'
    this.connection = null;
    this.queue = [];
    this.processing = false;
    this.overShown = false;
    this.left = false;
    this.localNames = loadSeat(roomId)?.names ?? intent.join?.names ?? null;
    this.session = new RoomSession({ localNames: this.localNames });
    this.clocks = new ClockTracker(() => this.renderPlayers());
    this.cue = new YourTurnCue();
    this.el = buildRoomLayout(this);
    this.board = new BoardView(this.el.boardWrap, { onSelect: (colour, plane) => this.move(plane) });
    this.onKey = (event) => this.keyboard(event);
    document.addEventListener('keydown', this.onKey);
  }

  /** The room's snapshot, as far as it has been shown. */
  get state() {
    return this.session.state;
  }

  /** 'red', 'yellow', 'both' (same device) or null (spectator). */
  get seat() {
    return this.session.seat;
  }

  async start() {
    // The player's identity goes with every join of a seat; a page opened on a room checks it first.
    await identity.ensure(savedName() || undefined).catch(() => null);
    if (this.left) return;
    const saved = loadSeat(this.roomId) ?? (this.intent.join || this.intent.watch ? null : await this.liveSeat());
    if (this.left) return;
    if (saved || this.intent.join || this.intent.watch) {
      this.connect(saved ? 'player' : this.intent.join ? 'player' : 'spectator');
      return;
    }
    try {
      const status = await roomStatus(this.roomId);
      const free = (status.table?.seats ?? ['red', 'yellow']).filter((c) => !status.seats[c]);
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

  /** This player's seat in the room as the server lists it (`/api/players/me/live`), saved; or null. */
  async liveSeat() {
    const rooms = await identity.liveRooms().catch(() => []);
    const room = rooms.find((r) => r.room_id === this.roomId && r.token);
    if (!room) return null;
    saveSeat(this.roomId, { colour: room.colour, token: room.token, name: identity.name() ?? savedName() });
    return loadSeat(this.roomId);
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
    const join = this.playerJoin();
    const player = this.anonymous ? null : identity.credentials();
    if (join && player) join.player = player;
    return join ?? { type: 'join', role: 'spectator', name: savedName() || 'Spectator' };
  }

  /** The `join` of a seat (without the player's identity), or null to watch. */
  playerJoin() {
    if (this.role !== 'player') return null;
    const saved = loadSeat(this.roomId);
    if (saved) return { type: 'join', role: 'player', name: saved.name || savedName() || 'Player', token: saved.token };
    if (!this.intent.join) return null;
    const { name, client_seed: seed, colour } = this.intent.join;
    const join = { type: 'join', role: 'player', name, client_seed: clientSeed(seed) };
    if (colour) join.colour = colour;
    return join;
  }

  /**
   * The server did not know the identity the join carried: a new one is made and the join sent
   * again; refused twice, the seat is taken without it.
   */
  async identityLost() {
    if (this.identityRenewed) {
      this.anonymous = true;
    } else {
      this.identityRenewed = true;
      await identity.renew().catch(() => { this.anonymous = true; });
    }
    if (!this.left) this.send(this.joinMessage());
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
      if (this.session.countSpectators(status.spectators)) this.renderPlayers();
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
    for (const effect of this.session.receive(message)) await this.perform(effect);
  }

  /** Carries out one effect of the room session (the list is at the top of `session.js`). */
  async perform(effect) {
    switch (effect.type) {
      case 'welcome':
        this.welcome(effect);
        break;
      case 'snapshot':
        this.clocks.fromSnapshot(this.state);
        this.render();
        break;
      case 'event':
        await this.showEvent(effect.message);
        break;
      case 'send':
        this.send(effect.message);
        break;
      case 'log':
        this.log(effect.text, effect.big, effect.kind);
        break;
      case 'render':
        this.render();
        break;
      case 'render_next':
        this.renderNext();
        break;
      case 'hint':
        this.hint(effect.message);
        break;
      case 'seat_lost':
        forgetSeat(this.roomId);
        this.role = 'spectator';
        this.connection.socket?.close();
        break;
      case 'identity_lost':
        await this.identityLost();
        break;
      case 'watch_instead':
        this.role = 'spectator';
        this.intent = {};
        this.send(this.joinMessage());
        break;
      case 'rematch_seat': {
        const name = loadSeat(this.roomId)?.name ?? savedName();
        saveSeat(effect.room_id, { colour: effect.colour, token: effect.token, name });
        this.go(`/room/${effect.room_id}`, { wsPath: effect.ws_path });
        break;
      }
      default:
        break;
    }
  }

  welcome({ role, colour, token }) {
    this.role = role;
    if (role === 'player') {
      const previous = loadSeat(this.roomId);
      const name = previous?.name ?? this.intent.join?.name ?? savedName();
      saveSeat(this.roomId, { colour, token: token ?? previous?.token, name, names: this.localNames ?? undefined });
    }
  }

  hint(message) {
    const game = this.state?.game;
    const button = this.el.moves.querySelector(`[data-testid=move-${message.plane}]`);
    const move = button ? button.textContent : `Plane ${message.plane + 1}`;
    this.log(`Hint (${message.level}): ${move}${message.explanation ? ` (${message.explanation})` : ''}.`, true);
    if (game) this.board.flash(game.to_act, message.plane);
  }

  /** Shows one event (the die, the move's animation, the log lines), then applies it. */
  async showEvent(message) {
    const before = this.state;
    if (message.type === 'rolled') {
      this.el.die.textContent = String(message.value);
      this.el.die.classList.remove('rolling');
      void this.el.die.offsetWidth; // restart the wobble
      this.el.die.classList.add('rolling');
    }
    if (message.type === 'turn_passed') {
      this.el.announce.textContent = ''; // the last turn's news is old now
    }
    if (message.type === 'moved') await this.animateMove(message, before);
    const lines = describeEvent(message, before, this.seat);
    for (const line of lines) this.log(line.text, false);
    const big = lines.filter((line) => line.big).map((line) => line.text);
    if (big.length > 0) this.announce(big.join(' '), message.captures?.length > 0 || message.finished);
    this.clocks.onEvent(message, this.session.apply(message));
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

  /** Sends the game action `message` with the `seen` of the position on the screen. */
  act(message) {
    this.send(this.session.action(message));
  }

  /** Sends `message` and tells the session; a game action greys the controls until answered. */
  send(message) {
    if (!message || !this.connection) return;
    const id = this.connection.send(message);
    if (this.session.sent(message, id)) this.render();
  }

  /** Rolls, after asking when rolling would decline the opponent's standing draw offer. */
  async roll() {
    if (this.session.allowed().answerDraw) {
      const yes = await confirmDialog('Rolling declines the draw offer. Roll anyway?', 'Roll', 'Not yet');
      if (!yes || !this.session.allowed().roll) return;
    }
    this.act({ type: 'roll' });
  }

  move(plane) {
    this.send(this.session.move(plane));
  }

  async resign() {
    if (!(await confirmDialog('Resign this game? Your opponent wins.', 'Resign'))) return;
    this.act({ type: 'resign' });
  }

  say(phrase) {
    this.send({ type: 'say', phrase });
  }

  rematch() {
    this.send(this.session.rematch(clientSeed('')));
    this.renderNext();
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
    const allowed = this.session.allowed();
    const live = state.phase === 'playing';
    const awaitingMove = game.phase.kind === 'awaiting_move';
    this.el.boardWrap.hidden = false;
    this.board.setState({
      planes: game.planes,
      toAct: live ? game.to_act : null,
      roll: awaitingMove ? game.phase.roll : null,
      legal: awaitingMove ? game.phase.legal : [],
      selectable: allowed.move && !this.session.busy,
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
