// Sentences for the events and results of a table room (the editions, two to four players), in
// the same numbering for people as `messages.js` (planes 1–4). A move arrives as several step
// events, so each step has its own short sentence; the ones worth announcing (a crash, a plane at
// the centre, a player out, a draw offer, game over) are marked `big`. Pure, tested under Node.

import { colourName } from './messages.js';

const ORDINALS = ['1st', '2nd', '3rd', '4th'];

const OUT_REASONS = {
  finished: 'brought every plane home',
  resigned: 'resigned',
  abandoned: 'left the game',
  timeout: 'timed out too often',
};

/** "1st", "2nd", … for a place. */
export function ordinal(place) {
  return ORDINALS[place - 1] ?? `${place}th`;
}

function planes(list) {
  const numbers = list.map((p) => p + 1);
  const words = numbers.length === 1 ? `${numbers[0]}` : `${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1)}`;
  return `plane${numbers.length === 1 ? '' : 's'} ${words}`;
}

function clock(message) {
  return message.by_clock ? ' (played by the clock)' : '';
}

/**
 * Sentences for one table event: [{text, big}]. `name(colour)` gives a seat's name; the
 * sentences say "Ann (Red)".
 */
export function describeTableEvent(message, name = colourName) {
  const who = (colour) => {
    const n = name(colour);
    return n && n !== colourName(colour) ? `${n} (${colourName(colour)})` : colourName(colour);
  };
  switch (message.type) {
    case 'player_connected':
      return [{ text: `${who(message.colour)} is connected.` }];
    case 'player_disconnected': {
      const seconds = Math.round((message.grace_ms ?? 0) / 1000);
      return [{ text: `${who(message.colour)} lost the connection${seconds ? `; the seat is held for ${seconds} s` : ''}.` }];
    }
    case 'game_started':
      return [{ text: 'Every seat is taken: the game starts. Red rolls first.', big: true }];
    case 'rolled':
      return [{ text: `${who(message.colour)} rolled ${message.value}${clock(message)}.`, big: Boolean(message.by_clock) }];
    case 'launched':
      return [{ text: `${colourName(message.colour)} ${planes([message.plane])} took off${clock(message)}.` }];
    case 'walked':
      return [{ text: `${colourName(message.colour)} ${planes(message.planes)} moved ${message.from} → ${message.to === 'finished' ? 'the centre' : message.to}${clock(message)}.` }];
    case 'jumped':
      return [{ text: `${colourName(message.colour)} ${planes(message.planes)} jumped to ${message.to}.` }];
    case 'flew':
      return [{ text: `${colourName(message.colour)} ${planes(message.planes)} flew to ${message.to}.` }];
    case 'sent_home':
      return [{ text: `Crash! ${colourName(message.colour)} ${planes(message.planes)} sent back to the hangar.`, big: true }];
    case 'arrived':
      return [{ text: `${colourName(message.colour)} ${planes(message.planes)} reached the centre!`, big: true }];
    case 'third_six':
      return [{ text: `Third six in a row for ${who(message.colour)}${message.returned.length ? `: ${planes(message.returned)} back to the hangar` : ''}.`, big: true }];
    case 'extra_roll':
      return [{ text: `${who(message.colour)} rolls again.` }];
    case 'turn_passed':
      if (message.reason === 'no_legal_move') return [{ text: `No move for ${colourName(message.from)}. ${who(message.to)} to roll.` }];
      return [{ text: `${who(message.to)} to roll.` }];
    case 'player_out':
      return [{ text: `${who(message.colour)} ${OUT_REASONS[message.reason] ?? message.reason}: ${ordinal(message.place)} place.`, big: true }];
    case 'draw_offered':
      return [{ text: `${who(message.by)} offers a draw; everyone still playing must accept.`, big: true }];
    case 'draw_accepted':
      return [{ text: `${who(message.by)} accepts the draw.` }];
    case 'draw_declined':
      return [{ text: `${who(message.by)} declined the draw${message.implicit ? ' by rolling' : ''}.`, big: true }];
    case 'draw_withdrawn':
      return [{ text: `${who(message.by)} withdrew the draw offer.` }];
    case 'draw_lapsed':
      return [{ text: `${who(message.by)}'s draw offer lapsed: a player left play.` }];
    case 'game_over':
      return [{ text: tableResultText(message.result, name), big: true }];
    default:
      return [];
  }
}

/** The places of a result, best first: [{colour, place}] (seats without a place last). */
export function placesOf(result, colours = []) {
  const places = result?.places ?? {};
  const ranked = Object.entries(places).map(([colour, place]) => ({ colour, place }));
  for (const colour of colours) if (!(colour in places)) ranked.push({ colour, place: null });
  return ranked.sort((a, b) => (a.place ?? 9) - (b.place ?? 9));
}

/** A table game's result in one sentence: "Yellow wins (finished)." or "Draw (agreed)." */
export function tableResultText(result, name = colourName) {
  if (!result) return '';
  if (!result.winner) return `Draw (${result.reason === 'agreed' ? 'agreed by every player' : result.reason}).`;
  const n = name(result.winner);
  const who = n && n !== colourName(result.winner) ? `${n} (${colourName(result.winner)})` : colourName(result.winner);
  const why = result.reason === 'finished' ? 'every plane home first'
    : result.reason === 'resigned' ? 'the others resigned'
      : result.reason === 'abandoned' ? 'the others left'
        : result.reason === 'timeout' ? 'the others timed out' : result.reason;
  return `${who} wins: ${why}.`;
}
