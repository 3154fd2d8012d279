// The room's clocks as the viewer sees them: the turn clock of the player to act, the strikes it
// counted, and how long a disconnected player's seat is still held.
//
// The server sends lengths, not times of day (`deadline_ms` on turn events and on the
// `player_connected` that starts a quick match's first clock, `clock.remaining_ms` and
// `seats.*.grace_ms` in snapshots), so the client counts them down from when each message
// arrived, on its own monotonic clock.

/** The last seconds of a turn clock in which the player is warned. */
export const WARN_MS = 10000;

/** Minutes and seconds, "0:07". */
export function clockText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** Counts down the turn clock and held seats of one room, and counts the strikes. */
export class ClockTracker {
  /** `onTick()` is called four times a second while something counts down. */
  constructor(onTick) {
    this.onTick = onTick;
    this.perDecision = null; // ms, or null in a room without a clock
    this.maxStrikes = 3;
    this.strikes = { red: 0, yellow: 0 };
    this.deadline = null; // performance.now() time the pending decision times out
    this.colour = null; // whose decision
    this.graces = {}; // colour → performance.now() time the held seat is forfeited
    this.lastClockRoll = null;
    this.timer = setInterval(() => { if (this.running()) this.onTick(); }, 250);
  }

  running() {
    return this.deadline !== null || Object.keys(this.graces).length > 0;
  }

  /** Takes everything from a snapshot (welcome, sync, undo). */
  fromSnapshot(snapshot) {
    const now = performance.now();
    const clock = snapshot.clock;
    this.perDecision = clock?.per_decision_ms ?? null;
    this.maxStrikes = clock?.max_strikes ?? this.maxStrikes;
    this.strikes = {
      red: clock?.strikes.red ?? 0, yellow: clock?.strikes.yellow ?? 0,
      blue: clock?.strikes.blue ?? 0, green: clock?.strikes.green ?? 0,
    };
    const live = snapshot.phase === 'playing';
    this.deadline = live && clock?.remaining_ms != null ? now + clock.remaining_ms : null;
    this.colour = live ? toAct(snapshot) : null;
    this.graces = {};
    for (const colour of ['red', 'yellow', 'blue', 'green']) {
      const grace = snapshot.seats[colour]?.grace_ms;
      if (live && grace != null) this.graces[colour] = now + grace;
    }
  }

  /** Follows one room event; `after` is the room's state once it is applied. */
  onEvent(message, after) {
    const now = performance.now();
    if (typeof message.deadline_ms === 'number') {
      this.deadline = now + message.deadline_ms;
      this.colour = toAct(after);
    }
    if (message.by_clock) {
      // One strike per time-out: a roll and the move played with it count once.
      const sameTimeout = message.type !== 'rolled' && this.lastClockRoll === message.colour;
      if (!sameTimeout) this.strikes[message.colour] += 1;
    }
    if (message.type === 'rolled') this.lastClockRoll = message.by_clock ? message.colour : null;
    // A table room tells a move in steps after the roll: the timed-out turn ends with its turn.
    else if (['moved', 'turn_passed', 'extra_roll'].includes(message.type)) this.lastClockRoll = null;
    if (message.type === 'player_disconnected' && after.phase === 'playing' && message.grace_ms) {
      this.graces[message.colour] = now + message.grace_ms;
    }
    if (message.type === 'player_connected') delete this.graces[message.colour];
    if (after.phase !== 'playing') {
      this.deadline = null;
      this.graces = {};
    }
  }

  /** The ms left on `colour`'s turn clock, or null when it is not running for `colour`. */
  remaining(colour) {
    if (this.deadline === null || this.colour !== colour) return null;
    return Math.max(0, this.deadline - performance.now());
  }

  /** The ms left before `colour`'s held seat is forfeited, or null. */
  grace(colour) {
    const until = this.graces[colour];
    return until === undefined ? null : Math.max(0, until - performance.now());
  }

  stop() {
    clearInterval(this.timer);
  }
}

// The colour to act in a room's state: a two-player plyyard room's `game` or a table room's `table`.
function toAct(state) {
  return state.game?.to_act ?? state.table?.to_act ?? null;
}
