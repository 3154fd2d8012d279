// Players as people see them: ratings shown the lichess way (rounded, "?" while provisional) and
// a finished game's summary told from one player's side. Pure functions, no DOM.

import { colourName } from './messages.js';

/**
 * A rating for people: `{rating, provisional}` (a profile's `rating`, or a leaderboard row)
 * rounded to a whole number, with "?" while it is provisional; "–" when there is none.
 */
export function ratingText(value) {
  const rating = typeof value === 'number' ? value : value?.rating;
  if (typeof rating !== 'number' || !Number.isFinite(rating)) return '–';
  return `${Math.round(rating)}${value?.provisional ? '?' : ''}`;
}

const OTHER = { red: 'yellow', yellow: 'red' };
/** Every colour a game may seat, in turn order. */
const COLOURS = ['red', 'green', 'yellow', 'blue'];

/**
 * Player `playerId`'s colour in a game summary or record (`players.<colour>.player_id`, or the
 * name when the server does not say ids), or null when they did not play in it.
 */
export function colourOf(players, playerId, name = null) {
  for (const colour of COLOURS) {
    if (playerId && players?.[colour]?.player_id === playerId) return colour;
  }
  const byId = COLOURS.some((colour) => players?.[colour]?.player_id);
  if (byId || !name) return null;
  for (const colour of COLOURS) {
    if (players?.[colour]?.name === name) return colour;
  }
  return null;
}

function playerText(player) {
  if (!player) return 'nobody';
  if (player.kind === 'computer') return `the computer${player.level ? ` (${player.level})` : ''}`;
  return player.name;
}

/**
 * A finished game (`GET /api/games` summary) from player `playerId`'s side:
 * {outcome: 'won' | 'lost' | 'draw' | null, colour, opponent, text}, where `text` reads
 * "Won against Bob (as Red)"; a game the player is not found in is told neutrally.
 */
export function gameFromSide(summary, playerId, name = null) {
  const players = summary.players ?? {};
  const colour = colourOf(players, playerId, name);
  const seated = COLOURS.filter((seat) => players[seat]);
  if (seated.length > 2 || (summary.ruleset && summary.ruleset !== 'plyyard')) {
    return tableFromSide(summary, colour, seated);
  }
  const winner = summary.result?.winner ?? null;
  if (!colour) {
    const text = `${playerText(players.red)} against ${playerText(players.yellow)}`;
    return { outcome: null, colour: null, opponent: null, text };
  }
  const opponent = playerText(players[OTHER[colour]]);
  const outcome = winner === null ? 'draw' : winner === colour ? 'won' : 'lost';
  const verb = { won: 'Won against', lost: 'Lost to', draw: 'Draw with' }[outcome];
  if (summary.mode === 'local') {
    return { outcome: null, colour, opponent, text: `Same-device game, ${playerText(players.red)} against ${playerText(players.yellow)}` };
  }
  return { outcome, colour, opponent, text: `${verb} ${opponent} (as ${colourName(colour)})` };
}

/**
 * A finished game of any other edition or of three or four (a table game) from the player's
 * side: its place among the seats, e.g. "2nd of 4 in classic (as Blue)"; winning means first
 * place, no place (a draw agreed while in play) a draw.
 */
function tableFromSide(summary, colour, seated) {
  const edition = summary.ruleset ?? 'plyyard';
  const count = seated.length;
  const names = seated.map((seat) => playerText(summary.players[seat])).join(', ');
  if (!colour) {
    return { outcome: null, colour: null, opponent: null, text: `${edition} for ${count}: ${names}` };
  }
  const place = summary.result?.places?.[colour] ?? null;
  const opponent = seated.filter((seat) => seat !== colour).map((seat) => playerText(summary.players[seat])).join(', ');
  if (summary.mode === 'local') {
    return { outcome: null, colour, opponent, text: `Same-device ${edition} for ${count}: ${names}` };
  }
  const outcome = place === 1 ? 'won' : place ? 'lost' : 'draw';
  const standing = place ? `${ordinal(place)} of ${count}` : `No place of ${count}`;
  return { outcome, colour, opponent, text: `${standing} in ${edition} (as ${colourName(colour)})` };
}

/** 1st, 2nd, 3rd, 4th. */
function ordinal(place) {
  return `${place}${{ 1: 'st', 2: 'nd', 3: 'rd' }[place] ?? 'th'}`;
}

/** A live room of the player (`/api/players/me/live`) in words: "Online game, you are Red, in play". */
export function liveRoomText(room) {
  const mode = { online: 'Online game', computer: 'Game against the computer', local: 'Same-device game' }[room.mode] ?? 'Game';
  // The player of a same-device room holds both seats (the server names Red's).
  const seat = room.mode === 'local' || !room.colour ? 'both colours' : `you are ${colourName(room.colour)}`;
  const phase = room.phase === 'waiting' ? 'waiting for a second player' : room.phase === 'over' ? 'over' : 'in play';
  return `${mode}, ${seat}, ${phase}`;
}
