// A table position of any edition, read from its one-line notation (docs/rules/README.md, "The
// editions' position notation"), as pure functions (no DOM).
//
// The browser shows positions of `plyyard`, `flights` and `classic` from the same line the rules
// crate writes, so a position in a bug report, a test or a rules page opens as a board. The
// parser refuses what the crate's parser refuses where the browser can tell without playing the
// rules (the shapes, the seating, the counters, a pending roll with no legal plane, opposing
// planes together, places that do not fit), each with a message that says why; it does not
// replace the crate, which stays the judge of a live game.
//
// A plane's position uses the JSON form the board already draws: 'base', a progress integer
// (0..55 in plyyard, 0..56 in the editions), or 'finished' (progress 56 in plyyard, 57 in the
// editions, written `f`).

/** The rulesets and the house rules each one accepts after a `+`. */
export const RULESETS = { plyyard: [], flights: [], classic: ['jump-after-shortcut'] };

/** Who sits at the table for each player count, in turn order (flights.md F2.2, classic.md C2.2). */
export const SEATING = {
  2: ['red', 'yellow'],
  3: ['red', 'yellow', 'blue'],
  4: ['red', 'green', 'yellow', 'blue'],
};

/** The colours seated for `count` players, in turn order; throws for a count with no seating. */
export function seatingFor(count) {
  const colours = SEATING[count];
  if (!colours) throw new Error(`no seating for ${count} players (2, 3 or 4)`);
  return [...colours];
}

/** The player counts a ruleset allows. */
export function playerCounts(ruleset) {
  return ruleset === 'plyyard' ? [2] : [2, 3, 4];
}

/** The progress of the finish (the centre): 56 in plyyard, 57 in the editions. */
export function finishProgress(ruleset) {
  return ruleset === 'plyyard' ? 56 : 57;
}

/** Whether own planes on one square of the route are a stack that moves as one (classic C7). */
export function formsStacks(ruleset) {
  return ruleset === 'classic';
}

const COLOUR = /^(red|green|yellow|blue)$/;
const SEAT = /^([a-z]+)(?:=(\d+))?:(.*)$/;
const SAFE_PLYYARD = [0, 8, 13, 21, 26, 34, 39, 47];
const START = { red: 0, green: 13, yellow: 26, blue: 39 };

function fail(why) {
  throw new Error(why);
}

function parseRuleset(field) {
  const [ruleset, ...house] = field.split('+');
  if (!Object.hasOwn(RULESETS, ruleset)) {
    fail(`unknown ruleset "${ruleset}" (plyyard, flights, classic)`);
  }
  for (const name of house) {
    if (!RULESETS[ruleset].includes(name)) fail(`${ruleset} has no house rule "${name}"`);
  }
  if (new Set(house).size !== house.length) fail('a house rule is named twice');
  return { ruleset, houseRules: house };
}

function parsePlane(entry, ruleset, colour, index) {
  if (entry === 'b') return 'base';
  if (entry === 'f') return 'finished';
  const last = finishProgress(ruleset) - 1;
  if (!/^(0|[1-9]\d*)$/.test(entry) || Number(entry) > last) {
    fail(`${colour} plane ${index} is "${entry}": a plane is b, f or a progress 0..${last}`);
  }
  return Number(entry);
}

function parseSeat(field, ruleset) {
  const match = SEAT.exec(field);
  if (!match) fail(`"${field}" is not a seat (<colour>:<p0>,<p1>,<p2>,<p3>)`);
  const [, colour, place, list] = match;
  if (!COLOUR.test(colour)) fail(`unknown colour "${colour}" (red, green, yellow, blue)`);
  const entries = list.split(',');
  if (entries.length !== 4) fail(`${colour} has ${entries.length} planes, not 4`);
  const planes = entries.map((entry, i) => parsePlane(entry, ruleset, colour, i));
  return { colour, place: place === undefined ? null : Number(place), planes };
}

function checkSeating(seats, ruleset) {
  const count = seats.length;
  if (!playerCounts(ruleset).includes(count)) {
    fail(`${ruleset} is not played by ${count} players (${playerCounts(ruleset).join(', ')})`);
  }
  const colours = seats.map((seat) => seat.colour);
  const seated = SEATING[count];
  for (const colour of colours) {
    if (colours.indexOf(colour) !== colours.lastIndexOf(colour)) fail(`${colour} is seated twice`);
    if (!seated.includes(colour)) {
      fail(`${colour} does not play with ${count} players (${seated.join(', ')})`);
    }
  }
  if (colours.join() !== seated.join()) fail(`seats must be in turn order: ${seated.join(', ')}`);
}

// Finishers take the best free places and resigners the worst (flights F8.2, classic C9), so
// whatever the order of events, finishers hold 1..k and resigners the last m places.
function checkPlaces(seats, ruleset) {
  const count = seats.length;
  const out = seats.filter((seat) => seat.place !== null);
  if (out.length > 0 && ruleset === 'plyyard') fail('plyyard seats carry no place');
  const places = out.map((seat) => seat.place);
  if (new Set(places).size !== places.length) fail('two seats hold the same place');
  const finishers = [];
  const resigners = [];
  for (const seat of out) {
    const { colour, place, planes } = seat;
    if (place < 1 || place > count) fail(`${colour} holds place ${place}, not 1..${count}`);
    const finished = planes.every((p) => p === 'finished');
    if (finished && ruleset === 'classic') finishers.push(seat);
    else if (planes.every((p) => p === 'base' || (ruleset === 'classic' && p === 'finished'))) resigners.push(seat);
    else fail(`${colour} is out (place ${place}) but has planes in play`);
  }
  finishers.forEach((seat) => {
    if (seat.place > finishers.length) {
      fail(`${seat.colour} finished but holds place ${seat.place}: finishers take the best free places`);
    }
  });
  resigners.forEach((seat) => {
    if (seat.place <= count - resigners.length) {
      fail(`${seat.colour} left but holds place ${seat.place}: a player who leaves takes the worst free place`);
    }
  });
  if (count - out.length < 2) fail('the game is over: fewer than two seats are in play');
  for (const seat of seats) {
    if (seat.place === null && seat.planes.every((p) => p === 'finished')) {
      fail(ruleset === 'classic'
        ? `${seat.colour} has finished all four planes and must carry its place (${seat.colour}=<place>:...)`
        : `${seat.colour} has finished all four planes: the game is over`);
    }
  }
}

/** The planes of the player to act that may move for the pending roll (rules of each edition). */
export function legalPlanes(table) {
  if (table.roll === null) return [];
  const seat = table.seats.find((s) => s.colour === table.toAct);
  const finish = finishProgress(table.ruleset);
  const roll = table.roll;
  return seat.planes.flatMap((position, plane) => {
    if (position === 'finished') return [];
    if (position === 'base') {
      const launches = table.ruleset === 'classic' ? roll % 2 === 0 : roll === 6;
      return launches ? [plane] : [];
    }
    // flights bounces back off the centre (F6.2), so every plane on the route may move.
    if (table.ruleset === 'flights' || position + roll <= finish) return [plane];
    return [];
  });
}

function ringIndex(colour, progress) {
  return (START[colour] + progress) % 52;
}

function checkSharedSquares(table) {
  const holders = new Map();
  for (const seat of table.seats) {
    for (const position of seat.planes) {
      if (typeof position !== 'number' || position > 50) continue;
      const square = ringIndex(seat.colour, position);
      if (table.ruleset === 'plyyard' && SAFE_PLYYARD.includes(square)) continue;
      const other = holders.get(square);
      if (other && other !== seat.colour) {
        fail(`${other} and ${seat.colour} planes share ring square ${square}, where a landing would have sent one home`);
      }
      holders.set(square, seat.colour);
    }
  }
}

function parseStake(field, table) {
  if (field === '-') return [];
  if (!/^[0-3]{1,4}$/.test(field)) fail(`at stake is "${field}": - or plane numbers 0..3`);
  const planes = [...field].map(Number);
  if (planes.some((p, i) => i > 0 && p <= planes[i - 1])) fail('planes at stake must be ascending, each once');
  if (table.ruleset === 'plyyard') fail('plyyard puts no plane at stake');
  if (table.sixes === 0) fail('planes are at stake only after a six (the six counter is 0)');
  if (table.ruleset === 'flights' && planes.length > 1) fail('flights puts only the plane moved last at stake');
  const seat = table.seats.find((s) => s.colour === table.toAct);
  for (const plane of planes) {
    if (typeof seat.planes[plane] !== 'number') fail(`${table.toAct} plane ${plane} is at stake but not on the route`);
  }
  return planes;
}

/**
 * Reads a table notation line into {ruleset, houseRules, seats: [{colour, place, planes}],
 * toAct, roll, sixes, atStake}; throws an Error saying why for a line that is not a position.
 */
export function parseTable(line) {
  if (typeof line !== 'string' || line.trim() === '') fail('the position is empty');
  const fields = line.trim().split(/\s+/);
  if (fields.length < 7 || fields.length > 9) {
    fail(`a position has 7 to 9 fields (ruleset, 2–4 seats, to act, roll, sixes, at stake), not ${fields.length}`);
  }
  const { ruleset, houseRules } = parseRuleset(fields[0]);
  const [toAct, rollField, sixesField, stakeField] = fields.slice(-4);
  const seats = fields.slice(1, -4).map((field) => parseSeat(field, ruleset));
  checkSeating(seats, ruleset);
  checkPlaces(seats, ruleset);
  const actor = seats.find((seat) => seat.colour === toAct);
  if (!actor) fail(`the player to act, "${toAct}", is not seated`);
  if (actor.place !== null) fail(`${toAct} is to act but is out (place ${actor.place})`);
  if (!/^(-|[1-6])$/.test(rollField)) fail(`the pending roll is "${rollField}": - or 1..6`);
  if (!/^[0-2]$/.test(sixesField)) fail(`the six counter is "${sixesField}": 0, 1 or 2`);
  const table = {
    ruleset, houseRules, seats, toAct,
    roll: rollField === '-' ? null : Number(rollField),
    sixes: Number(sixesField),
    atStake: [],
  };
  if (table.roll === 6 && table.sixes === 0) fail('a pending 6 needs a six counter of 1 or 2');
  if (table.roll !== null && table.roll !== 6 && table.sixes > 0) {
    fail(`a pending ${table.roll} needs a six counter of 0`);
  }
  table.atStake = parseStake(stakeField, table);
  if (table.roll !== null && legalPlanes(table).length === 0) {
    fail(`${toAct} has no legal plane for the pending ${table.roll}`);
  }
  checkSharedSquares(table);
  return table;
}

/** Writes a table back in its notation (the inverse of parseTable). */
export function formatTable(table) {
  const ruleset = [table.ruleset, ...table.houseRules].join('+');
  const seats = table.seats.map(({ colour, place, planes }) => {
    const list = planes.map((p) => (p === 'base' ? 'b' : p === 'finished' ? 'f' : String(p)));
    return `${colour}${place === null ? '' : `=${place}`}:${list.join(',')}`;
  });
  const stake = table.atStake.length === 0 ? '-' : table.atStake.join('');
  return [ruleset, ...seats, table.toAct, table.roll ?? '-', table.sixes, stake].join(' ');
}

/**
 * The stacks of a seat's planes (classic C7): arrays of two or more plane numbers at the same
 * progress on the route, lowest plane first. Hangar and centre planes never stack.
 */
export function stacksOf(planes) {
  const byProgress = new Map();
  planes.forEach((position, plane) => {
    if (typeof position !== 'number') return;
    if (!byProgress.has(position)) byProgress.set(position, []);
    byProgress.get(position).push(plane);
  });
  return [...byProgress.values()].filter((group) => group.length > 1);
}

/** The planes that move with `plane` in `ruleset` (its stack in classic, else itself alone). */
export function movingWith(ruleset, planes, plane) {
  if (!formsStacks(ruleset)) return [plane];
  return stacksOf(planes).find((group) => group.includes(plane)) ?? [plane];
}

/** The seats out of play, best place first: the ranking so far. */
export function ranking(table) {
  return table.seats.filter((seat) => seat.place !== null).sort((a, b) => a.place - b.place);
}
