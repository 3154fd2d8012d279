// Parts of the room view's side panel, as functions from the room's state to DOM nodes.

import { h } from '../dom.js';
import { PHRASES, colourName } from '../messages.js';
import { WARN_MS, clockText } from './room-clock.js';

/** The invite link and its copy button; `log(text)` reports a copy. */
export function inviteSection(roomId, log) {
  const link = `${location.origin}${location.pathname}#/room/${roomId}`;
  const input = h('input', { readonly: true, value: link, 'aria-label': 'Invite link', 'data-testid': 'invite-link' });
  return [
    h('h2', {}, 'Invite a friend'),
    h('p', {}, 'Send this link; whoever opens it takes the free seat (later visitors watch).'),
    input,
    h('div', { class: 'row' },
      h('button', {
        onclick: async () => {
          input.select();
          try {
            await navigator.clipboard.writeText(link);
            log('Invite link copied.');
          } catch {
            // The link stays selected for copying by hand.
          }
        },
      }, 'Copy link')),
  ];
}

/**
 * Both seats: name (the local names of a same-device game), whose turn, whether the player is
 * connected (or the computer), the turn clock, the strikes and a held seat's countdown.
 */
export function playerRows(state, viewerSeat, clocks, localNames = null) {
  return ['red', 'yellow'].map((colour) => {
    const seat = state.seats[colour];
    const you = viewerSeat === colour;
    const toAct = state.phase === 'playing' && state.game.to_act === colour;
    const computer = state.computer?.colour === colour ? state.computer : null;
    const grace = clocks.grace(colour);
    const conn = computer ? `computer, ${computer.level}`
      : !seat ? 'waiting for a player'
      : seat.connected ? 'online'
      : grace !== null ? `disconnected: seat held ${clockText(grace)}` : 'disconnected';
    const name = localNames?.[colour] ?? seat?.name ?? '—';
    const left = clocks.remaining(colour);
    const clock = clocks.perDecision === null || computer ? null
      : h('span', {
        class: `clock${left !== null && left <= WARN_MS ? ' low' : ''}${left !== null ? ' running' : ''}`,
        'data-testid': `clock-${colour}`,
      }, left !== null ? clockText(left) : toAct ? 'waiting' : clockText(clocks.perDecision));
    const strikes = clocks.perDecision === null || computer ? null
      : h('span', { class: 'strikes', 'data-testid': `strikes-${colour}` },
        `${clocks.strikes[colour]} of ${clocks.maxStrikes} time-outs`);
    return h('div', {
      class: `player${toAct ? ' to-act' : ''}`, 'data-testid': `player-${colour}`,
      'aria-label': `${colourName(colour)}: ${seat ? name : 'free seat'}, ${conn}${toAct ? ', to act' : ''}`,
    },
      h('span', { class: `swatch ${colour}`, 'aria-hidden': 'true' }),
      h('span', { class: 'name' }, `${name}${you ? ' (you)' : ''}`),
      h('span', { class: 'meta' },
        h('span', { class: `conn${seat && !seat.connected && !computer ? ' offline' : ''}`, 'data-testid': `conn-${colour}` }, conn),
        strikes),
      clock);
  });
}

/** The preset quick messages a seated player of an online room may send; `say(phrase)` sends one. */
export function quickMessageBar(say) {
  return h('div', { class: 'quick-messages', role: 'group', 'aria-label': 'Quick messages', 'data-testid': 'quick-messages' },
    ...Object.entries(PHRASES).map(([phrase, text]) =>
      h('button', { type: 'button', class: 'small', 'data-testid': `say-${phrase}`, onclick: () => say(phrase) }, text)));
}

/**
 * The draw buttons this viewer may use (online rooms only, `rules.md` §5); `act(type)` sends one.
 * A seated player whose offer is embargoed sees the offer button disabled, with the reason.
 */
export function drawControls(state, viewerSeat, allowed, act) {
  const offer = state.game.draw.offer;
  const seated = viewerSeat && viewerSeat !== 'both';
  const nodes = [];
  if (allowed.offerDraw || (seated && state.mode === 'online' && !offer && state.phase === 'playing')) {
    nodes.push(h('button', {
      'data-testid': 'offer-draw', disabled: !allowed.offerDraw,
      title: allowed.offerDraw ? null : 'You may offer again once your opponent’s turn has ended.',
      onclick: () => act('offer_draw'),
    }, 'Offer a draw'));
  }
  if (allowed.answerDraw) {
    nodes.push(h('span', { role: 'status', class: 'offer' }, `${colourName(offer)} offers a draw.`),
      h('button', { 'data-testid': 'accept-draw', onclick: () => act('accept_draw') }, 'Accept draw'),
      h('button', { 'data-testid': 'decline-draw', onclick: () => act('decline_draw') }, 'Decline'));
  }
  if (allowed.withdrawDraw) {
    nodes.push(h('span', { role: 'status' }, 'You offered a draw.'),
      h('button', { 'data-testid': 'withdraw-draw', onclick: () => act('withdraw_draw') }, 'Withdraw offer'));
  }
  if (!viewerSeat && offer) nodes.push(h('span', {}, `${colourName(offer)} offers a draw.`));
  return nodes;
}
