// Human sentences for room events and results.

const NAME = { red: 'Red', yellow: 'Yellow' };

export function colourName(colour) {
  return NAME[colour] ?? String(colour);
}

const REASONS = {
  finished: 'all four planes reached the finish',
  resigned: 'resignation',
  agreed: 'draw agreed',
  abandoned: 'the opponent left the game',
  timeout: 'too many turns timed out',
};

export function reasonText(reason) {
  return REASONS[reason] ?? String(reason);
}

export function resultText(result) {
  if (!result) return '';
  if (!result.winner) return `Draw (${reasonText(result.reason)}).`;
  const loser = result.winner === 'red' ? 'yellow' : 'red';
  if (result.reason === 'resigned') return `${colourName(result.winner)} wins: ${colourName(loser)} resigned.`;
  if (result.reason === 'abandoned') return `${colourName(result.winner)} wins: ${colourName(loser)} abandoned the game.`;
  if (result.reason === 'timeout') return `${colourName(result.winner)} wins on time: ${colourName(loser)} timed out too often.`;
  return `${colourName(result.winner)} wins: ${reasonText(result.reason)}.`;
}

function planeCount(planes) {
  return planes.length === 1 ? 'a plane' : `${planes.length} planes`;
}

/**
 * Sentences for one room event: [{text, big}] (big for extra roll, void six, capture, finish and
 * game over, which the client also announces to screen readers).
 */
export function describeEvent(message, state) {
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
      return [{ text: `${colourName(message.colour)} rolled ${message.value}.` }];
    case 'moved': {
      const out = [];
      const plane = `${colourName(message.colour)} plane ${message.plane + 1}`;
      if (message.from === 'base') out.push({ text: `${plane} took off.` });
      else if (message.finished) out.push({ text: `${plane} reached the finish!`, big: true });
      else out.push({ text: `${plane} moved to ${message.to > 50 ? `home-lane step ${message.to - 50}` : `square ${message.to}`}.` });
      for (const capture of message.captures) {
        out.push({
          text: `Capture! ${colourName(message.colour)} sent ${planeCount(capture.planes)} of ${colourName(capture.colour)} back to base.`,
          big: true,
        });
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
      return [{ text: `Game over. ${resultText(message.result)}`, big: true }];
    default:
      return [];
  }
}
