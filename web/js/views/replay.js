// A stored game: its result, a readable move list (one line per turn: rolls and moves), a replay
// of the positions the server computed (`GET /api/games/{id}/replay`) that animates the moves and
// steps by action or by turn, and the fairness check of its rolls.
//
// A table game (an edition, or three or four players) has its positions as table notation
// (`step.table`) instead of `game`: each is read into the same shape (planes per colour, to act,
// roll, legal planes), drawn on the edition's board for the seated colours, a move animated in
// its steps (walk, jump, flight), and the result shown as the ranking of every seat.

import { ApiError, getGame, getReplay } from '../api.js';
import { BoardView } from '../board.js';
import { h } from '../dom.js';
import { moveSteps } from '../geometry.js';
import { colourName, positionText, resultText } from '../messages.js';
import { legalPlanes, movingWith } from '../table.js';
import { ordinal, placesOf, tableResultText } from '../table-messages.js';
import { recordRolls, runFairnessCheck } from './fairness-check.js';

const AUTOPLAY_MS = 700;

/** One logged action in words. */
export function describeAction(action) {
  if (!action) return 'Start of the game.';
  const who = colourName(action.colour);
  switch (action.action) {
    case 'roll': return `${who} rolled ${action.value}.`;
    case 'move': return `${who} moved plane ${action.plane + 1}.`;
    case 'resign': return `${who} resigned.`;
    case 'offer_draw': return `${who} offered a draw.`;
    case 'accept_draw': return `${who} accepted the draw.`;
    case 'decline_draw': return `${who} declined the draw.`;
    case 'withdraw_draw': return `${who} withdrew the draw offer.`;
    case 'forfeit': return `${who} forfeited (${action.reason}).`;
    default: return `${who}: ${action.action}.`;
  }
}

/**
 * The turns of a replay: consecutive steps of one colour, as [{colour, first, last, text}] where
 * `first`..`last` are step indices and `text` reads "rolled 6, plane 1 took off; rolled 3, ...".
 */
export function turnsOf(steps) {
  const turns = [];
  for (let i = 1; i < steps.length; i += 1) {
    const action = steps[i].action;
    if (!action) continue;
    let turn = turns.at(-1);
    if (!turn || turn.colour !== action.colour || !['roll', 'move'].includes(action.action)) {
      turn = { colour: action.colour, first: i, last: i, parts: [] };
      turns.push(turn);
    }
    turn.last = i;
    if (action.action === 'roll') turn.parts.push(`rolled ${action.value}`);
    else if (action.action === 'move') {
      const from = steps[i - 1].game.planes[action.colour][action.plane];
      const to = steps[i].game.planes[action.colour][action.plane];
      turn.parts[turn.parts.length - 1] += from === 'base'
        ? `, plane ${action.plane + 1} took off`
        : `, plane ${action.plane + 1} to ${positionText(to)}`;
    } else turn.parts.push(describeAction(action).replace(/^\S+ /, '').replace(/\.$/, ''));
  }
  return turns.map((turn) => ({ ...turn, text: turn.parts.join('; ') }));
}

const POSITION = { b: 'base', f: 'finished' };

/**
 * A replay step's table notation read leniently (a finished game's last line may name a player
 * out of play as the one to act): {ruleset, houseRules, colours, places, game} where `game` has
 * the two-player steps' shape ({planes, to_act, phase}).
 */
export function tableStep(line) {
  const fields = line.trim().split(/\s+/);
  const [ruleset, ...houseRules] = fields[0].split('+');
  const [toAct, rollField, sixes] = fields.slice(-4);
  const seats = fields.slice(1, -4).map((field) => {
    const [head, list] = field.split(':');
    const [colour, place] = head.split('=');
    const planes = list.split(',').map((p) => POSITION[p] ?? Number(p));
    return { colour, place: place ? Number(place) : null, planes };
  });
  const roll = rollField === '-' ? null : Number(rollField);
  const table = { ruleset, houseRules, seats, toAct, roll, sixes: Number(sixes), atStake: [] };
  let legal = [];
  try {
    legal = legalPlanes(table);
  } catch {
    // a position the rules page's reader does not know: no legal planes shown
  }
  return {
    ruleset,
    houseRules,
    colours: seats.map((seat) => seat.colour),
    places: Object.fromEntries(seats.filter((seat) => seat.place).map((seat) => [seat.colour, seat.place])),
    game: {
      planes: Object.fromEntries(seats.map((seat) => [seat.colour, seat.planes])),
      to_act: toAct,
      phase: roll === null ? { kind: 'awaiting_roll' } : { kind: 'awaiting_move', roll, legal },
    },
  };
}

/** Shows stored game `gameId` in `root`; returns a function that leaves the page. */
export function mountReplay(root, gameId) {
  let timer = null;
  let onKey = null;
  let left = false;
  const stop = () => { clearInterval(timer); timer = null; };
  const leave = () => {
    left = true;
    stop();
    if (onKey) root.removeEventListener('keydown', onKey);
  };
  root.replaceChildren(h('p', { 'data-testid': 'loading' }, 'Loading the game…'));
  (async () => {
    let record;
    let replay;
    try {
      [record, replay] = await Promise.all([getGame(gameId), getReplay(gameId)]);
    } catch (error) {
      const missing = error instanceof ApiError && error.code === 'game_not_found';
      root.replaceChildren(h('div', { class: 'card' },
        h('h2', {}, missing ? 'No finished game with this id' : 'Could not load the game'),
        h('p', {}, missing ? 'Games appear here once they are over.' : error.message),
        missing ? h('p', {}, h('a', { href: `#/room/${gameId}` }, 'Open it as a live room')) : null));
      return;
    }
    if (left) return;
    const isTable = replay.steps.length > 0 && typeof replay.steps[0].table === 'string' && !replay.steps[0].game;
    const read = isTable ? replay.steps.map((step) => tableStep(step.table)) : null;
    const steps = isTable ? replay.steps.map((step, i) => ({ ...step, game: read[i].game })) : replay.steps;
    const edition = read?.[0] ?? { ruleset: 'plyyard', houseRules: [], colours: ['red', 'yellow'] };
    let index = 0;
    const boardWrap = h('div', { class: 'board-wrap', 'data-testid': 'board' });
    const board = isTable
      ? new BoardView(boardWrap, { ruleset: edition.ruleset, colours: edition.colours, houseRules: edition.houseRules })
      : new BoardView(boardWrap);
    const position = h('span', { 'data-testid': 'replay-position', 'aria-live': 'polite' });
    const caption = h('p', { 'data-testid': 'replay-action' });
    const slider = h('input', {
      type: 'range', min: 0, max: steps.length - 1, value: 0, 'aria-label': 'Position in the game',
      oninput: () => show(Number(slider.value)),
    });
    // The visible label is the accessible name (a different aria-label confuses voice control).
    const button = (label, testid, onclick) => h('button', { 'data-testid': testid, onclick }, label);
    const play = button('Play', 'replay-play', () => (timer ? stop() : autoplay()), 'Autoplay');
    const turns = turnsOf(steps);
    const turnItems = turns.map((turn, i) => h('li', {},
      h('button', { type: 'button', class: `turn-line ${turn.colour}`, onclick: () => { stop(); show(turn.last); } },
        `${i + 1}. ${colourName(turn.colour)}: ${turn.text}`)));
    const moveList = h('ol', { class: 'move-list', tabindex: 0, 'aria-label': 'Move list, one line per turn', 'data-testid': 'move-list' }, turnItems);
    let drawing = 0;
    const draw = (step) => {
      const phase = step.game.phase;
      board.setState({
        planes: step.game.planes,
        toAct: phase.kind === 'over' ? null : step.game.to_act,
        roll: phase.kind === 'awaiting_move' ? phase.roll : null,
        legal: phase.kind === 'awaiting_move' ? phase.legal : [],
        selectable: false,
      });
    };
    /** Shows step `next`; one step forward onto a move animates it (captured planes fly home). */
    const show = (next, animate = false) => {
      const previous = index;
      index = Math.max(0, Math.min(steps.length - 1, next));
      const step = steps[index];
      const action = step.action;
      const token = ++drawing;
      if (isTable && animate && index === previous + 1 && action?.action === 'move') {
        const before = steps[previous].game;
        const from = before.planes[action.colour][action.plane];
        const roll = before.phase.roll;
        const moving = movingWith(edition.ruleset, before.planes[action.colour], action.plane);
        const path = roll ? moveSteps(action.colour, from, roll, edition.ruleset, edition.houseRules) : null;
        board.setState({ planes: before.planes });
        const homed = [];
        for (const colour of edition.colours) {
          if (colour === action.colour) continue;
          const planes = before.planes[colour].map((p, plane) => (p !== 'base' && step.game.planes[colour][plane] === 'base' ? plane : -1)).filter((p) => p >= 0);
          if (planes.length) homed.push({ kind: 'sent_home', colour, planes });
        }
        (path ? board.animateSteps(action.colour, moving, [...path, ...homed]) : Promise.resolve())
          .then(() => { if (token === drawing) draw(step); });
      } else if (animate && index === previous + 1 && action?.action === 'move') {
        const before = steps[previous].game.planes;
        const after = step.game.planes;
        board.setState({ planes: before });
        const flights = [board.animate(action.colour, action.plane, before[action.colour][action.plane], after[action.colour][action.plane])];
        for (const colour of ['red', 'yellow']) {
          before[colour].forEach((from, plane) => {
            if (colour !== action.colour && from !== 'base' && after[colour][plane] === 'base') flights.push(board.animate(colour, plane, from, 'base'));
          });
        }
        Promise.all(flights).then(() => { if (token === drawing) draw(step); });
      } else draw(step);
      const turn = turns.findIndex((t) => index >= t.first && index <= t.last);
      turnItems.forEach((item, i) => {
        if (i === turn) item.firstChild.setAttribute('aria-current', 'step');
        else item.firstChild.removeAttribute('aria-current');
      });
      position.textContent = `Step ${index} of ${steps.length - 1}${turn >= 0 ? ` · turn ${turn + 1} of ${turns.length}` : ''}`;
      caption.textContent = describeAction(step.action);
      slider.value = String(index);
      play.textContent = timer ? 'Pause' : 'Play';
    };
    const nextTurn = () => turns.find((t) => t.last > index)?.last ?? steps.length - 1;
    const previousTurn = () => turns.filter((t) => t.last < index).at(-1)?.last ?? 0;
    const autoplay = () => {
      if (index >= steps.length - 1) show(0);
      timer = setInterval(() => {
        if (index >= steps.length - 1) stop();
        else show(index + 1, true);
        play.textContent = timer ? 'Pause' : 'Play';
      }, AUTOPLAY_MS);
      play.textContent = 'Pause';
    };
    const check = h('div', { class: 'fairness', 'data-testid': 'fairness' });
    const players = record.players;
    const playerLine = (colour) => {
      const p = players[colour];
      return h('div', { class: 'player' },
        h('span', { class: `swatch ${colour}`, 'aria-hidden': 'true' }),
        h('span', { class: 'name' }, p.player_id
          ? h('a', { href: `#/players/${p.player_id}`, 'data-testid': `replay-player-${colour}` }, p.name)
          : `${p.name}${p.kind === 'computer' ? ` (computer${p.level ? `, ${p.level}` : ''})` : ''}`));
    };
    root.replaceChildren(h('div', { class: 'room' },
      boardWrap,
      h('div', { class: 'panel' },
        h('section', {},
          h('h2', {}, 'Replay'),
          h('p', { class: 'result', 'data-testid': 'result' }, isTable ? tableResultText(record.result) : resultText(record.result)),
          isTable ? h('ol', { class: 'ranking-list', 'data-testid': 'replay-ranking' },
            placesOf(record.result, edition.colours).map(({ colour, place }) => h('li', { value: place ?? undefined },
              h('span', { class: `swatch ${colour}`, 'aria-hidden': 'true' }),
              `${place ? ordinal(place) : 'No place'}: ${players[colour]?.name ?? colourName(colour)} (${colourName(colour)})`))) : null,
          h('div', { class: 'players' }, ...edition.colours.filter((colour) => players[colour]).map(playerLine)),
          h('p', {}, `${record.mode} game · ${record.rolls} rolls · ${record.moves} moves · ended ${new Date(record.ended_at).toLocaleString()}`)),
        h('section', {},
          h('div', { class: 'replay-controls', role: 'toolbar', 'aria-label': 'Replay controls' },
            button('|◀ Start', 'replay-start', () => { stop(); show(0); }, 'Jump to start'),
            button('◀ Back', 'replay-back', () => { stop(); show(index - 1); }, 'Step back'),
            play,
            button('Forward ▶', 'replay-forward', () => { stop(); show(index + 1, true); }, 'Step forward'),
            button('End ▶|', 'replay-end', () => { stop(); show(steps.length - 1); }, 'Jump to end')),
          h('div', { class: 'replay-controls', role: 'toolbar', 'aria-label': 'Step by turn' },
            button('◀◀ Turn', 'replay-turn-back', () => { stop(); show(previousTurn()); }, 'Previous turn'),
            button('Turn ▶▶', 'replay-turn-forward', () => { stop(); show(nextTurn()); }, 'Next turn')),
          slider, position, caption),
        h('section', {}, h('h3', {}, 'Moves'), moveList),
        h('section', {}, h('h3', {}, 'Fairness check'), check),
        h('p', {}, h('a', { href: '#/' }, 'Back to the start page')))));
    onKey = (event) => {
      if (event.target.tagName === 'INPUT') return;
      if (event.key === 'ArrowRight') { stop(); show(index + 1, true); }
      if (event.key === 'ArrowLeft') { stop(); show(index - 1); }
      if (event.key === 'Home') { stop(); show(0); }
      if (event.key === 'End') { stop(); show(steps.length - 1); }
    };
    root.addEventListener('keydown', onKey);
    show(0);
    await runFairnessCheck(check, { fairness: record.fairness, rolls: recordRolls(record), ruleset: record.ruleset ?? edition.ruleset });
  })();
  return leave;
}
