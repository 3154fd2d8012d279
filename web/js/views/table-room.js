// The room of a table game (protocol 2): the editions `flights` and `classic`, or two to four
// players. It is the plyyard room view (`room.js`: connection, message queue, seat tokens,
// invite, log, clocks) with the parts that differ at a table: the board of the edition for the
// seated colours, a players panel of up to four seats with their places, a move told in steps
// (the walk, then a jump, then a flight, then the crash) animated one after another, a classic
// stack chosen and moved as one, draws that need every other player, the ranking at game over
// and the v2 fairness check. A same-device table room holds every seat: the controls name the
// player whose turn it is, so the device is passed from hand to hand.
//
// `mountAnyRoom` decides which view a room needs from what the start page knows or, for an
// invite link, from the room's status (`table` is present only for a table room).

import { ApiError, clientSeed, createRoom, roomStatus, savedName } from '../api.js';
import { BoardView } from '../board.js';
import { confirmDialog, h } from '../dom.js';
import { landing, moveSteps } from '../geometry.js';
import { identity } from '../identity.js';
import { colourName } from '../messages.js';
import { movingWith } from '../table.js';
import { describeTableEvent, ordinal, placesOf, tableResultText } from '../table-messages.js';
import { STEP_EVENTS, TableSession, coloursOf, planesOf, seatOf } from '../table-session.js';
import { recordRolls, runFairnessCheck } from './fairness-check.js';
import { storedRecord } from './game-over.js';
import { WARN_MS, clockText } from './room-clock.js';
import { quickMessageBar } from './room-panels.js';
import { RoomView, mountRoom } from './room.js';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const reducedMotion = () => globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
const EDITION = { plyyard: 'Plyyard', flights: 'Flights', classic: 'Classic' };

/** The edition and house rules of a table's rules string, e.g. "classic+jump-after-shortcut". */
export function parseRules(rules) {
  const [ruleset, ...houseRules] = String(rules ?? 'plyyard').split('+');
  return { ruleset, houseRules };
}

/**
 * Shows room `roomId`: the table view when `intent.table` ({rules, seats}) or, when the intent
 * does not say, the room's status says it is a table room; else the plyyard room view. Returns the unmount function.
 */
export function mountAnyRoom(root, roomId, intent = {}, go = null) {
  let inner = null;
  let left = false;
  const mount = (table) => {
    if (left) return;
    inner = table ? mountTableRoom(root, roomId, table, intent, go) : mountRoom(root, roomId, intent, go);
  };
  // The start page knows what it created (`table` null for a plyyard room); others ask the room.
  if ('table' in intent) mount(intent.table);
  else roomStatus(roomId).then((status) => mount(status.table ?? null), () => mount(null));
  const unmount = () => {
    left = true;
    inner?.();
  };
  unmount.confirmLeave = () => Boolean(inner?.confirmLeave?.());
  return unmount;
}

function mountTableRoom(root, roomId, table, intent, go) {
  const view = new TableRoomView(root, roomId, intent, go, table);
  view.start();
  const unmount = () => view.leave();
  unmount.confirmLeave = () => Boolean(view.state?.phase === 'playing' && view.seat);
  return unmount;
}

class TableRoomView extends RoomView {
  constructor(root, roomId, intent, go, table) {
    super(root, roomId, intent, go);
    const { ruleset, houseRules } = parseRules(table.rules);
    this.ruleset = ruleset;
    this.houseRules = houseRules;
    this.seatColours = table.seats;
    this.session = new TableSession({ localNames: this.localNames });
    this.el.boardWrap.classList.add('table-board', `seats-${table.seats.length}`);
    this.board = new BoardView(this.el.boardWrap, {
      ruleset, colours: table.seats, houseRules, onSelect: (colour, plane) => this.move(plane),
      label: `${EDITION[ruleset] ?? ruleset} board, ${table.seats.length} players`,
    });
    this.el.keys.textContent = 'Keys: R rolls, 1–4 move a plane (a stack moves as one), Tab and Enter pick one on the board.';
  }

  /** The table position as far as it has been shown. */
  get table() {
    return this.session.state?.table;
  }

  /** A seat's name for people: the local name, the seat's, the computer's, or the colour. */
  nameOf(colour) {
    const computer = this.state?.computers?.find((c) => c.colour === colour);
    if (computer) return `Computer (${computer.level})`;
    return this.session.nameOf(colour);
  }

  /** Who is meant in a sentence: "Ann (Red)", or "Red" when the name is the colour's. */
  who(colour) {
    const name = this.nameOf(colour);
    return name && name !== colourName(colour) ? `${name} (${colourName(colour)})` : colourName(colour);
  }

  /** Shows one event: the die, a step of a move animated on the board, the log lines; then applies it. */
  async showEvent(message) {
    const before = this.state;
    if (message.type === 'rolled') {
      this.el.die.textContent = String(message.value);
      this.el.die.classList.remove('rolling');
      void this.el.die.offsetWidth; // restart the wobble
      this.el.die.classList.add('rolling');
    }
    if (message.type === 'turn_passed') this.el.announce.textContent = '';
    if (STEP_EVENTS.has(message.type) && before.table) await this.animateStep(message, before.table);
    const lines = describeTableEvent(message, (colour) => this.nameOf(colour));
    for (const line of lines) this.log(line.text, false);
    const big = lines.filter((line) => line.big).map((line) => line.text);
    if (big.length > 0) this.announce(big.join(' '), ['sent_home', 'arrived', 'player_out', 'game_over'].includes(message.type));
    const after = this.session.apply(message);
    this.clocks.onEvent(message, after);
    this.render();
    if (message.type === 'sent_home' || message.type === 'arrived' || message.type === 'player_out') {
      // Let the crash or the arrival be seen before the next event replaces it.
      await sleep(reducedMotion() ? 300 : 700);
    }
  }

  async animateStep(message, table) {
    const colour = message.colour;
    const seat = seatOf(table, colour);
    if (!seat) return;
    switch (message.type) {
      case 'launched':
        await this.board.animateSteps(colour, [message.plane], [{ kind: 'walk', from: 'base', to: 0 }]);
        break;
      case 'walked': {
        const bounce = typeof message.from === 'number' && typeof message.to === 'number' && message.to < message.from;
        await this.board.animateSteps(colour, message.planes, [{ kind: 'walk', from: message.from, to: message.to, bounce }]);
        break;
      }
      case 'jumped':
        await this.board.animateSteps(colour, message.planes, [{ kind: 'jump', from: message.from, to: message.to }]);
        break;
      case 'flew':
        await this.board.animateSteps(colour, message.planes, [{ kind: 'flight', from: message.from, to: message.to }]);
        break;
      case 'sent_home':
        await this.board.animateSteps(colour, message.planes, [{ kind: 'sent_home', colour, planes: message.planes }]);
        break;
      case 'third_six':
        if (message.returned.length > 0) {
          await this.board.animateSteps(colour, message.returned, [{ kind: 'sent_home', colour, planes: message.returned }]);
        }
        break;
      case 'arrived':
        for (const plane of message.planes) this.board.celebrate(colour, plane);
        break;
      default:
        break;
    }
  }

  hint() {}

  /** The seat's `join`; a same-device room of three or four names every seat in turn order. */
  playerJoin() {
    const join = super.playerJoin();
    const names = this.intent.join?.names;
    if (join && !join.token && names && this.seatColours.length > 2) {
      join.names = this.seatColours.map((colour) => names[colour] || colourName(colour));
    }
    return join;
  }

  async roll() {
    if (this.session.allowed().answerDraw) {
      const yes = await confirmDialog('Rolling declines the draw offer. Roll anyway?', 'Roll', 'Not yet');
      if (!yes || !this.session.allowed().roll) return;
    }
    this.act({ type: 'roll' });
  }

  async resign() {
    const allowed = this.session.allowed();
    const others = this.seatColours.length > 2 ? 'You leave the game and the others play on.' : 'Your opponent wins.';
    const text = this.seat === 'all' ? `Resign for ${this.who(allowed.resignAs)}? The others play on.` : `Resign this game? ${others}`;
    if (!(await confirmDialog(text, 'Resign'))) return;
    this.act({ type: 'resign' });
  }

  keyboard(event) {
    if (!this.state || event.target.closest?.('input, textarea, select, dialog')) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const allowed = this.session.allowed();
    if ((event.key === 'r' || event.key === 'R') && allowed.roll && !this.session.busy) {
      event.preventDefault();
      this.roll();
    } else if (/^[1-4]$/.test(event.key) && allowed.move && !this.session.busy) {
      const plane = Number(event.key) - 1;
      if (this.table.phase.legal.includes(plane)) {
        event.preventDefault();
        this.move(plane);
      }
    }
  }

  render() {
    const state = this.state;
    const table = state.table;
    const allowed = this.session.allowed();
    const live = state.phase === 'playing';
    const awaitingMove = table.phase.kind === 'awaiting_move';
    this.el.boardWrap.hidden = false;
    this.board.setState({
      planes: planesOf(table),
      toAct: live ? table.to_act : null,
      roll: awaitingMove ? table.phase.roll : null,
      legal: awaitingMove ? table.phase.legal : [],
      selectable: allowed.move && !this.session.busy,
    });
    this.renderInvite();
    this.renderPlayers();
    this.renderControls(allowed);
    this.el.draw.replaceChildren(...this.drawNodes(allowed));
    const seated = this.session.colours.length === 1;
    if (seated && state.mode === 'online' && state.phase !== 'waiting' && this.el.social.childElementCount === 0) {
      this.el.social.append(quickMessageBar((phrase) => this.say(phrase)));
    }
    this.el.socialSection.hidden = this.el.social.childElementCount === 0;
    if (state.phase === 'over') this.renderOver();
    const mine = Boolean(this.seat && this.seat !== 'all' && (allowed.roll || allowed.move));
    document.title = mine ? 'Your turn · Aeroplane Chess' : 'Aeroplane Chess';
  }

  /** The name shown for the seat to act: on one device the player's name, else the colour's. */
  turnName(colour) {
    return this.seat === 'all' || this.seatColours.length > 2 ? this.who(colour) : colourName(colour);
  }

  renderControls(allowed) {
    const { el, state } = this;
    const table = state.table;
    const live = state.phase === 'playing';
    const seated = Boolean(this.seat);
    el.controls.hidden = state.phase === 'over';
    let text;
    if (state.phase === 'waiting') {
      const taken = this.seatColours.filter((colour) => state.seats[colour]).length;
      text = `Waiting for players: ${taken} of ${this.seatColours.length} seats taken…`;
    } else if (state.phase === 'over') text = '';
    else if (allowed.roll) text = this.seat === 'all' ? `${this.who(table.to_act)}: roll the die.` : 'Your turn: roll the die.';
    else if (allowed.move) {
      text = this.seat === 'all'
        ? `${this.who(table.to_act)}: choose a plane to move ${table.phase.roll}.`
        : `Choose a plane to move ${table.phase.roll} (tap it, or press its number).`;
    } else if (table.phase.kind === 'awaiting_move') text = `${this.turnName(table.to_act)} is choosing a plane for ${table.phase.roll}.`;
    else text = `${this.turnName(table.to_act)} to roll.`;
    el.turn.textContent = text;
    el.turn.hidden = !text;
    el.turn.dataset.toAct = live ? table.to_act : '';
    const owner = live ? this.session.dieOwner : null;
    if (table.phase.kind === 'awaiting_move') el.die.textContent = String(table.phase.roll);
    else if (!owner) el.die.textContent = '–';
    const rolling = el.die.classList.contains('rolling') ? ' rolling' : '';
    el.die.className = `die ${owner ?? (live ? `${table.to_act} empty` : 'empty')}${rolling}`;
    el.dieOwner.textContent = !live ? '' : owner ? `${colourName(owner)} rolled` : `${colourName(table.to_act)} to roll`;
    el.die.setAttribute('aria-label', owner ? `Die: ${colourName(owner)} rolled ${el.die.textContent}` : 'Die: not rolled yet');
    el.diceRow.hidden = !live;
    el.roll.hidden = !seated || !live;
    el.keys.hidden = !seated || !live;
    el.roll.disabled = !allowed.roll || this.session.busy;
    el.moves.replaceChildren(...(allowed.move ? this.moveButtons(table) : []));
    el.moves.hidden = !allowed.move;
    el.resign.hidden = !seated || !live;
    el.resign.disabled = !allowed.resign;
    el.resign.textContent = this.seat === 'all' && live ? `Resign for ${colourName(table.to_act)}` : 'Resign';
    el.hint.hidden = true;
    el.undo.hidden = true;
    el.actionsSection.hidden = el.resign.hidden;
  }

  /** One button per choice: a plane, or a classic stack (its lowest legal plane stands for it). */
  moveButtons(table) {
    const seat = seatOf(table, table.to_act);
    const { roll, legal } = table.phase;
    const covered = new Set();
    const buttons = [];
    for (const plane of legal) {
      if (covered.has(plane)) continue;
      const group = movingWith(this.ruleset, seat.planes, plane).filter((p) => legal.includes(p));
      for (const p of group) covered.add(p);
      const from = seat.planes[plane];
      const to = landing(from, moveSteps(table.to_act, from, roll, this.ruleset, this.houseRules));
      const where = (p) => (p === 'base' ? 'hangar' : p === 'finished' ? 'centre' : `square ${p}`);
      const label = group.length > 1 ? `Stack of planes ${group.map((p) => p + 1).join('+')}` : `Plane ${plane + 1}`;
      buttons.push(h('button', {
        'data-testid': `move-${plane}`, 'data-planes': group.join(','), disabled: this.session.busy,
        'aria-keyshortcuts': String(plane + 1), onclick: () => this.move(plane),
      }, `${label}: ${where(from)} → ${where(to)}`));
    }
    return buttons;
  }

  /** The draw buttons this viewer may use and, for everyone, who has accepted a standing offer. */
  drawNodes(allowed) {
    const state = this.state;
    const draw = state.table.draw;
    const offer = draw.offer;
    const nodes = [];
    const single = this.session.colours.length === 1 ? this.session.colours[0] : null;
    const inPlayNow = single && seatOf(state.table, single)?.place == null;
    if (allowed.offerDraw || (single && inPlayNow && state.mode === 'online' && !offer && state.phase === 'playing')) {
      nodes.push(h('button', {
        'data-testid': 'offer-draw', disabled: !allowed.offerDraw,
        title: allowed.offerDraw ? null : 'You may offer again once the turn has come back to you.',
        onclick: () => this.act({ type: 'offer_draw' }),
      }, 'Offer a draw'));
    }
    if (offer) {
      const receivers = coloursOf(state.table).filter((c) => c !== offer && seatOf(state.table, c).place == null);
      const agreed = receivers.filter((c) => draw.agreed.includes(c));
      const waiting = receivers.filter((c) => !draw.agreed.includes(c));
      const list = (cs) => cs.map((c) => colourName(c)).join(', ');
      nodes.push(h('span', { role: 'status', class: 'offer', 'data-testid': 'draw-status' },
        `${offer === single ? 'You offer' : `${colourName(offer)} offers`} a draw.`,
        agreed.length ? ` Accepted: ${list(agreed)}.` : '',
        waiting.length ? ` Waiting for ${list(waiting)}.` : ''));
    }
    if (allowed.answerDraw) {
      nodes.push(h('button', { 'data-testid': 'accept-draw', onclick: () => this.act({ type: 'accept_draw' }) }, 'Accept draw'),
        h('button', { 'data-testid': 'decline-draw', onclick: () => this.act({ type: 'decline_draw' }) }, 'Decline'));
    }
    if (allowed.withdrawDraw) {
      nodes.push(h('button', { 'data-testid': 'withdraw-draw', onclick: () => this.act({ type: 'withdraw_draw' }) }, 'Withdraw offer'));
    }
    return nodes;
  }

  renderPlayers() {
    if (!this.state) return;
    const state = this.state;
    const table = state.table;
    const rows = this.seatColours.map((colour) => {
      const seat = state.seats[colour];
      const tableSeat = table ? seatOf(table, colour) : null;
      const you = this.session.colours.length === 1 && this.session.colours[0] === colour;
      const toAct = state.phase === 'playing' && table?.to_act === colour;
      const computer = state.computers?.find((c) => c.colour === colour) ?? null;
      const grace = this.clocks.grace(colour);
      const place = tableSeat?.place ?? null;
      const conn = computer ? `computer, ${computer.level}`
        : !seat ? 'waiting for a player'
          : seat.connected ? 'online'
            : grace !== null ? `disconnected: seat held ${clockText(grace)}` : 'disconnected';
      const home = tableSeat ? tableSeat.planes.filter((p) => p === 'finished').length : 0;
      const left = this.clocks.remaining(colour);
      const clock = this.clocks.perDecision === null || computer ? null
        : h('span', {
          class: `clock${left !== null && left <= WARN_MS ? ' low' : ''}${left !== null ? ' running' : ''}`,
          'data-testid': `clock-${colour}`,
        }, left !== null ? clockText(left) : toAct ? 'waiting' : clockText(this.clocks.perDecision));
      const strikes = this.clocks.perDecision === null || computer ? null
        : h('span', { class: 'strikes', 'data-testid': `strikes-${colour}` },
          `${this.clocks.strikes[colour] ?? 0} of ${this.clocks.maxStrikes} time-outs`);
      const name = computer ? 'Computer' : this.localNames?.[colour] ?? seat?.name ?? '—';
      return h('div', {
        class: `player${toAct ? ' to-act' : ''}${place ? ' out' : ''}`, 'data-testid': `player-${colour}`,
        'aria-label': `${colourName(colour)}: ${seat || computer ? name : 'free seat'}, ${conn}${place ? `, out in ${ordinal(place)} place` : ''}${toAct ? ', to act' : ''}`,
      },
        h('span', { class: `swatch ${colour}`, 'aria-hidden': 'true' }),
        h('span', { class: 'name' }, `${name}${you ? ' (you)' : ''}`),
        h('span', { class: 'meta' },
          h('span', { class: `conn${seat && !seat.connected && !computer ? ' offline' : ''}`, 'data-testid': `conn-${colour}` }, conn),
          h('span', { class: 'home-count', 'data-testid': `home-${colour}` }, ` · ${home} of 4 home`),
          place ? h('span', { class: 'place', 'data-testid': `place-${colour}` }, ` · ${ordinal(place)}`) : null,
          strikes),
        clock);
    });
    this.el.players.replaceChildren(...rows);
    this.el.players.classList.add('table-players');
    const watching = state.spectators ?? 0;
    this.el.spectators.textContent = watching === 1 ? '1 spectator watching' : `${watching} spectators watching`;
    const mine = this.session.colours.length === 1 ? this.clocks.remaining(this.session.colours[0]) : null;
    this.el.clockWarning.hidden = !(mine !== null && mine <= 10000);
    if (mine !== null && mine <= 10000) this.el.clockWarning.textContent = `Hurry: ${Math.ceil(mine / 1000)} s left, then the server plays for you.`;
  }

  renderOver() {
    this.el.over.hidden = false;
    if (this.overShown) return;
    this.overShown = true;
    const state = this.state;
    const result = state.result;
    const single = this.session.colours.length === 1 ? this.session.colours[0] : null;
    const myPlace = single ? result?.places?.[single] : null;
    const headline = !result ? 'Game over'
      : !result.winner ? 'Draw'
        : single ? (result.winner === single ? 'You won' : myPlace ? `You finished ${ordinal(myPlace)}` : 'You lost')
          : `${this.who(result.winner)} won`;
    const ranking = placesOf(result, this.seatColours);
    const check = h('div', { class: 'fairness', 'data-testid': 'fairness' });
    const next = [];
    if (state.mode !== 'online' && this.seat) {
      next.push(h('button', { class: 'primary', 'data-testid': 'play-again', onclick: () => this.playAgain() }, 'Play again'));
    }
    this.el.over.replaceChildren(
      h('h2', { class: 'headline', 'data-testid': 'headline', tabindex: -1 }, headline),
      h('p', { class: 'result', 'data-testid': 'result' }, tableResultText(result, (colour) => this.nameOf(colour))),
      h('ol', { class: 'ranking-list', 'data-testid': 'ranking' },
        ranking.map(({ colour, place }) => h('li', { value: place ?? undefined, 'data-colour': colour },
          h('span', { class: `swatch ${colour}`, 'aria-hidden': 'true' }),
          `${place ? ordinal(place) : 'No place'}: ${this.who(colour)}`))),
      h('div', { class: 'row', 'data-testid': 'next' }, ...next),
      h('p', {}, h('a', { href: `#/game/${this.roomId}`, 'data-testid': 'replay-link' }, 'Replay this game'),
        ' · ', h('a', { href: '#/' }, 'Start page')),
      check,
    );
    this.el.over.querySelector('h2')?.focus?.();
    this.verify(check);
  }

  async verify(container) {
    const state = this.state;
    container.replaceChildren(h('p', { 'data-testid': 'fairness-result' }, 'Waiting for the game record…'));
    const seats = state.seats;
    const id = Object.values(seats).find((seat) => seat?.player_id)?.player_id;
    const record = await storedRecord(this.roomId, id ?? (Object.values(seats).some((s) => s && 'player_id' in s) ? undefined : seats.red?.name));
    const common = { announced: this.session.announced, ruleset: this.ruleset };
    if (record) {
      await runFairnessCheck(container, { ...common, fairness: record.fairness, rolls: recordRolls(record), observed: this.session.observedRolls });
    } else if (this.session.observedRolls) {
      await runFairnessCheck(container, { ...common, fairness: state.fairness, rolls: this.session.observedRolls });
    } else {
      container.replaceChildren(h('p', { 'data-testid': 'fairness-result' },
        'The game record is not available yet; open the replay later to check the dice.'));
    }
  }

  /** A new game of the same edition, players and mode (same device or the computer). */
  async playAgain() {
    const state = this.state;
    const options = { mode: state.mode, ruleset: this.ruleset, players: this.seatColours.length };
    if (this.houseRules.length) options.house_rules = this.houseRules;
    if (state.mode === 'computer') {
      options.colour = this.session.colours[0];
      options.levels = (state.computers ?? []).map((c) => c.level);
    }
    try {
      const room = await identity.authed((headers) => createRoom(options, headers));
      const names = this.localNames;
      const join = names
        ? { name: String(Object.values(names).join(' & ')).slice(0, 32), names, client_seed: clientSeed('') }
        : { name: savedName() || 'Player', client_seed: clientSeed('') };
      this.go(`/room/${room.id}`, { join, wsPath: room.ws_path, table: room.table });
    } catch (error) {
      this.log(`Could not start a new game: ${error instanceof ApiError ? error.message : error}`, true);
    }
  }

  renderNext() {}
}
