// Human sentences for room events and results, in one numbering for people everywhere: planes
// are 1–4, a plane's squares are counted from its own start square (square 0) to square 50, then
// home lane 1–5 and the finish. The move buttons, the board's labels, the log and the hints all
// use these words.

const NAME = { red: 'Red', yellow: 'Yellow', blue: 'Blue', green: 'Green' };

/** "Red" for 'red'. */
export function colourName(colour) {
  return NAME[colour] ?? String(colour);
}

/** "Red plane 2" for plane index 1. */
export function planeName(colour, plane) {
  return `${colourName(colour)} plane ${plane + 1}`;
}

/** A position in people's words: base, square N (from the plane's own start), home lane N, finish. */
export function positionText(position) {
  if (position === 'base') return 'base';
  if (position === 'finished') return 'finish';
  return position > 50 ? `home lane ${position - 50}` : `square ${position}`;
}

/** The preset quick messages (`say`), in the order the buttons show them. */
export const PHRASES = {
  good_luck: 'Good luck!',
  nice_move: 'Nice move!',
  oops: 'Oops!',
  well_played: 'Well played!',
  good_game: 'Good game!',
  thanks: 'Thanks!',
};

const REASONS = {
  finished: 'all four planes reached the finish',
  resigned: 'resignation',
  agreed: 'draw agreed',
  abandoned: 'the opponent left the game',
  timeout: 'too many turns timed out',
};

/** Why a game ended, in words. */
export function reasonText(reason) {
  return REASONS[reason] ?? String(reason);
}

/** The result in one sentence, e.g. "Red wins: Yellow resigned." */
export function resultText(result) {
  if (!result) return '';
  if (!result.winner) return `Draw (${reasonText(result.reason)}).`;
  const loser = result.winner === 'red' ? 'yellow' : 'red';
  if (result.reason === 'resigned') return `${colourName(result.winner)} wins: ${colourName(loser)} resigned.`;
  if (result.reason === 'abandoned') return `${colourName(result.winner)} wins: ${colourName(loser)} abandoned the game.`;
  if (result.reason === 'timeout') return `${colourName(result.winner)} wins on time: ${colourName(loser)} timed out too often.`;
  return `${colourName(result.winner)} wins: ${reasonText(result.reason)}.`;
}

/**
 * The game-over headline for one viewer: "You won" / "You lost" for a seated player of one
 * colour, "Ann (Red) won" otherwise, "Draw" for a draw; `seats` gives the names.
 */
export function resultHeadline(result, viewer, seats) {
  if (!result) return '';
  if (!result.winner) return 'Draw';
  if (viewer === 'red' || viewer === 'yellow') return viewer === result.winner ? 'You won' : 'You lost';
  const name = seats?.[result.winner]?.name;
  return `${name ? `${name} (${colourName(result.winner)})` : colourName(result.winner)} won`;
}

function planeList(colour, planes) {
  const numbers = planes.map((p) => p + 1);
  const list = numbers.length === 1 ? `${numbers[0]}` : `${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1)}`;
  return `${colourName(colour)} plane${numbers.length === 1 ? '' : 's'} ${list}`;
}

function byClock(message, viewer) {
  if (!message.by_clock) return '';
  const you = viewer === message.colour || viewer === 'both';
  return you ? ' (played for you: time ran out)' : ' (played for them: time ran out)';
}

/**
 * Sentences for one room event: [{text, big}] (big for extra roll, void six, capture, finish,
 * a turn the clock played and game over, which the client also announces). `viewer` is the
 * viewer's seat ('red', 'yellow', 'both' or null).
 */
export function describeEvent(message, state, viewer = null) {
  const name = (colour) => state?.seats?.[colour]?.name ?? colourName(colour);
  const who = (colour) => `${colourName(colour)} (${name(colour)})`;
  switch (message.type) {
    case 'player_connected':
      return [{ text: `${who(message.colour)} is connected.` }];
    case 'player_disconnected': {
      const seconds = Math.round((message.grace_ms ?? 0) / 1000);
      return [{ text: `${who(message.colour)} lost the connection${seconds ? `; the seat is held for ${seconds} s` : ''}.` }];
    }
    case 'game_started':
      return [{ text: 'Both seats are taken: the game starts. Red rolls first.', big: true }];
    case 'rolled':
      return [{ text: `${colourName(message.colour)} rolled ${message.value}${byClock(message, viewer)}.`, big: Boolean(message.by_clock) }];
    case 'moved': {
      const out = [];
      const plane = planeName(message.colour, message.plane);
      const clock = byClock(message, viewer);
      if (message.from === 'base') out.push({ text: `${plane} took off${clock}.`, big: Boolean(clock) });
      else if (message.finished) out.push({ text: `${plane} reached the finish${clock}!`, big: true });
      else out.push({ text: `${plane} moved to ${positionText(message.to)}${clock}.`, big: Boolean(clock) });
      for (const capture of message.captures) {
        out.push({ text: `Capture! ${plane} sent ${planeList(capture.colour, capture.planes)} back to base.`, big: true });
      }
      if (message.extra_roll) out.push({ text: `${colourName(message.colour)} rolls again.`, big: true });
      return out;
    }
    case 'turn_passed':
      if (message.reason === 'void_third_six') {
        return [{ text: `Third six in a row: the roll is void. ${colourName(message.to)} to roll.`, big: true }];
      }
      if (message.reason === 'no_legal_move') {
        return [{ text: `No legal move for ${colourName(message.from)}. ${colourName(message.to)} to roll.`, big: true }];
      }
      return [{ text: `${colourName(message.to)} to roll.` }];
    case 'draw_offered':
      return [{ text: `${colourName(message.by)} offers a draw.`, big: true }];
    case 'draw_accepted':
      return [{ text: `${colourName(message.by)} accepted the draw.`, big: true }];
    case 'draw_declined':
      return [{ text: `${colourName(message.by)} declined the draw${message.implicit ? ' by rolling' : ''}.` }];
    case 'draw_withdrawn':
      return [{ text: `${colourName(message.by)} withdrew the draw offer.` }];
    case 'undone':
      return [{ text: `Undo: ${colourName(message.colour)} chooses a plane again (${message.actions} action${message.actions === 1 ? '' : 's'} taken back).`, big: true }];
    case 'game_over':
      return [{ text: resultText(message.result), big: true }];
    default:
      return [];
  }
}
