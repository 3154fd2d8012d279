// A stored game: its result, the fairness check of its rolls, and a step-by-step replay of the
// positions the server computed (`GET /api/games/{id}/replay`).

import { ApiError, getGame, getReplay } from '../api.js';
import { BoardView } from '../board.js';
import { h } from '../dom.js';
import { colourName, resultText } from '../messages.js';
import { recordRolls, runFairnessCheck } from './fairness-check.js';

const AUTOPLAY_MS = 700;

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

export function mountReplay(root, gameId) {
  let timer = null;
  const stop = () => { clearInterval(timer); timer = null; };
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
    const steps = replay.steps;
    let index = 0;
    const boardWrap = h('div', { class: 'board-wrap', 'data-testid': 'board' });
    const board = new BoardView(boardWrap);
    const position = h('span', { 'data-testid': 'replay-position', 'aria-live': 'polite' });
    const caption = h('p', { 'data-testid': 'replay-action' });
    const slider = h('input', {
      type: 'range', min: 0, max: steps.length - 1, value: 0, 'aria-label': 'Position in the game',
      oninput: () => show(Number(slider.value)),
    });
    const button = (label, testid, onclick, aria) =>
      h('button', { 'data-testid': testid, 'aria-label': aria, onclick }, label);
    const play = button('Play', 'replay-play', () => (timer ? stop() : autoplay()), 'Autoplay');
    const show = (next) => {
      index = Math.max(0, Math.min(steps.length - 1, next));
      const step = steps[index];
      const phase = step.game.phase;
      board.setState({
        planes: step.game.planes,
        toAct: phase.kind === 'over' ? null : step.game.to_act,
        roll: phase.kind === 'awaiting_move' ? phase.roll : null,
        legal: phase.kind === 'awaiting_move' ? phase.legal : [],
        selectable: false,
      });
      position.textContent = `Step ${index} of ${steps.length - 1}`;
      caption.textContent = describeAction(step.action);
      slider.value = String(index);
      play.textContent = timer ? 'Pause' : 'Play';
    };
    const autoplay = () => {
      if (index >= steps.length - 1) show(0);
      timer = setInterval(() => {
        if (index >= steps.length - 1) stop();
        else show(index + 1);
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
        h('span', { class: 'name' }, `${p.name}${p.kind === 'computer' ? ` (computer${p.level ? `, ${p.level}` : ''})` : ''}`));
    };
    root.replaceChildren(h('div', { class: 'room' },
      boardWrap,
      h('div', { class: 'panel' },
        h('section', {},
          h('h2', {}, 'Replay'),
          h('p', { class: 'result', 'data-testid': 'result' }, resultText(record.result)),
          h('div', { class: 'players' }, playerLine('red'), playerLine('yellow')),
          h('p', {}, `${record.mode} game · ${record.rolls} rolls · ${record.moves} moves · ended ${new Date(record.ended_at).toLocaleString()}`)),
        h('section', {},
          h('div', { class: 'replay-controls', role: 'toolbar', 'aria-label': 'Replay controls' },
            button('|◀ Start', 'replay-start', () => { stop(); show(0); }, 'Jump to start'),
            button('◀ Back', 'replay-back', () => { stop(); show(index - 1); }, 'Step back'),
            play,
            button('Forward ▶', 'replay-forward', () => { stop(); show(index + 1); }, 'Step forward'),
            button('End ▶|', 'replay-end', () => { stop(); show(steps.length - 1); }, 'Jump to end')),
          slider, position, caption),
        h('section', {}, h('h3', {}, 'Fairness check'), check),
        h('p', {}, h('a', { href: '#/' }, 'Back to the start page')))));
    root.addEventListener('keydown', (event) => {
      if (event.target.tagName === 'INPUT') return;
      if (event.key === 'ArrowRight') { stop(); show(index + 1); }
      if (event.key === 'ArrowLeft') { stop(); show(index - 1); }
      if (event.key === 'Home') { stop(); show(0); }
      if (event.key === 'End') { stop(); show(steps.length - 1); }
    });
    show(0);
    await runFairnessCheck(check, { fairness: record.fairness, rolls: recordRolls(record) });
  })();
  return stop;
}
