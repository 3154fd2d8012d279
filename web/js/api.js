// The server's HTTP API (docs/protocol.md), where seat tokens are kept, and the client seed.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

/**
 * One JSON request. `options`: {signal, headers (added to the request's), fetch (the function to
 * call, the browser's by default; the unit tests pass a fake)}. Resolves to the parsed body, or
 * rejects with an ApiError carrying the server's error code.
 */
export async function request(method, path, body, options = {}) {
  const init = { method, headers: { accept: 'application/json', ...options.headers }, signal: options.signal };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await (options.fetch ?? globalThis.fetch)(path, init);
  } catch (error) {
    if (error.name === 'AbortError') throw new ApiError(0, 'aborted', 'Cancelled.');
    throw new ApiError(0, 'network', `The server cannot be reached (${error.message}).`);
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    throw new ApiError(response.status, data?.code ?? 'http', data?.message ?? `HTTP ${response.status}`);
  }
  return data;
}

/**
 * `POST /api/rooms`; `options` may hold {mode, colour, level} for computer and local games, and
 * {ruleset, players, house_rules, levels} for a table room;
 * `headers` the player's credentials (`identity.js`).
 */
export function createRoom(options = {}, headers = {}) {
  return request('POST', '/api/rooms', { mode: 'online', ...options }, { headers });
}

export function roomStatus(id) {
  return request('GET', `/api/rooms/${encodeURIComponent(id)}`);
}

/**
 * `POST /api/quick-match`: resolves when another player is matched (or rejects `no_match`);
 * aborting `signal` cancels the request, and the server pairs nobody with it. `table` ({ruleset,
 * players}) asks for a table queue; empty, the two-player plyyard queue as before.
 */
export function quickMatch(name, clientSeed, signal, headers = {}, table = {}) {
  const body = { name, ...table };
  if (clientSeed) body.client_seed = clientSeed;
  return request('POST', '/api/quick-match', body, { signal, headers });
}

export function getGame(id) {
  return request('GET', `/api/games/${encodeURIComponent(id)}`);
}

/**
 * `GET /api/games?player=&limit=`: finished games, newest first (never a 404); `player` is a name,
 * or a player id on a server with identities.
 */
export function listGames({ player, limit = 20 } = {}) {
  const query = new URLSearchParams({ limit: String(limit) });
  if (player) query.set('player', player);
  return request('GET', `/api/games?${query}`);
}

export function getReplay(id) {
  return request('GET', `/api/games/${encodeURIComponent(id)}/replay`);
}

/** `GET /api/players/{id}`: a player's name, rating and counts of games (404 `player_not_found`). */
export function getPlayer(id) {
  return request('GET', `/api/players/${encodeURIComponent(id)}`);
}

/** `GET /api/leaderboard?limit=`: the rated players, best first. */
export function leaderboard(limit = 50) {
  return request('GET', `/api/leaderboard?${new URLSearchParams({ limit: String(limit) })}`);
}

/** The WebSocket URL of a room: the `ws_path` the server gave, or the documented default. */
export function wsUrl(roomId, wsPath) {
  const path = wsPath || `/ws/rooms/${encodeURIComponent(roomId)}`;
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}${path}`;
}

// Seat tokens live in localStorage, one key per room: they survive a reload, a network drop and a
// closed tab, so the same browser opening the invite link again is back in its seat. They never
// appear in a URL. Tokens of rooms long gone are pruned after a week.
const seatKey = (roomId) => `plyyard.seat.${roomId}`;
const SEAT_TTL_MS = 7 * 24 * 3600 * 1000;

/** Keeps this browser's seat in room `roomId`: {colour, token, name, names?}. */
export function saveSeat(roomId, seat) {
  localStorage.setItem(seatKey(roomId), JSON.stringify({ ...seat, saved: Date.now() }));
}

/** This browser's seat in room `roomId` (also one an older client kept per tab), or null. */
export function loadSeat(roomId) {
  try {
    return JSON.parse(localStorage.getItem(seatKey(roomId)) ?? sessionStorage.getItem(seatKey(roomId)) ?? 'null');
  } catch {
    return null;
  }
}

/** Forgets this browser's seat in room `roomId` (its token no longer matches). */
export function forgetSeat(roomId) {
  localStorage.removeItem(seatKey(roomId));
  sessionStorage.removeItem(seatKey(roomId));
}

/** Removes the seat tokens saved more than a week ago. */
export function pruneSeats(now = Date.now()) {
  for (const key of Object.keys(localStorage)) {
    if (!key.startsWith('plyyard.seat.')) continue;
    try {
      if (now - (JSON.parse(localStorage.getItem(key))?.saved ?? 0) > SEAT_TTL_MS) localStorage.removeItem(key);
    } catch {
      localStorage.removeItem(key);
    }
  }
}

/**
 * The client seed to send: the one the player typed, or 16 random bytes in hex from this browser,
 * so the dice never depend on the server's seed alone (`fairness.md`).
 */
export function clientSeed(typed) {
  if (typed) return typed;
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export function savedName() {
  return localStorage.getItem('plyyard.name') || '';
}

export function saveName(name) {
  localStorage.setItem('plyyard.name', name);
}
