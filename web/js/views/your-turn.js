// The "your turn" cue: the tab's title says so (seen when the game is in another tab), and a
// short sound plays if the player switched it on (off by default, remembered in this browser).

import { permissions } from '../gamestate.js';

const TITLE = 'Aeroplane Chess';
const SOUND_KEY = 'plyyard.sound';

/** Whether the your-turn sound is on (off unless the player switched it on). */
export function soundOn() {
  return localStorage.getItem(SOUND_KEY) === 'on';
}

/** Switches the your-turn sound on or off. */
export function setSound(on) {
  localStorage.setItem(SOUND_KEY, on ? 'on' : 'off');
}

/** Tells the viewer when it is their turn: the tab's title and, if switched on, a sound. */
export class YourTurnCue {
  constructor() {
    this.mine = false;
  }

  /** Updates the title, and beeps when the turn has just become the viewer's. */
  update(state, seat) {
    const allowed = state ? permissions(state, seat) : {};
    const mine = Boolean(seat && seat !== 'both' && (allowed.roll || allowed.move));
    document.title = mine ? `Your turn · ${TITLE}` : TITLE;
    if (mine && !this.mine && soundOn()) beep();
    this.mine = mine;
  }

  stop() {
    document.title = TITLE;
  }
}

function beep() {
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.25);
    tone.onended = () => audio.close();
  } catch {
    // no audio here; the title still says it
  }
}
