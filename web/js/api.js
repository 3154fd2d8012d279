// The server's HTTP API (docs/protocol.md), and where seat tokens are kept.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

async function request(method, path, body) {
  const init = { method, headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
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

/** `POST /api/rooms`; `options` may hold {mode, colour, level} for computer and local games. */
export function createRoom(options = {}) {
  return request('POST', '/api/rooms', { mode: 'online', ...options });
}

export function roomStatus(id) {
  return request('GET', `/api/rooms/${encodeURIComponent(id)}`);
}

/** `POST /api/quick-match`: resolves when another player is matched (or rejects `no_match`). */
export function quickMatch(name, clientSeed) {
  const body = { name };
  if (clientSeed) body.client_seed = clientSeed;
  return request('POST', '/api/quick-match', body);
}

export function getGame(id) {
  return request('GET', `/api/games/${encodeURIComponent(id)}`);
}

/** `GET /api/games?player=&limit=`: finished games, newest first (never a 404). */
export function listGames({ player, limit = 20 } = {}) {
  const query = new URLSearchParams({ limit: String(limit) });
  if (player) query.set('player', player);
  return request('GET', `/api/games?${query}`);
}

export function getReplay(id) {
  return request('GET', `/api/games/${encodeURIComponent(id)}/replay`);
}

/** The WebSocket URL of a room: the `ws_path` the server gave, or the documented default. */
export function wsUrl(roomId, wsPath) {
  const path = wsPath || `/ws/rooms/${encodeURIComponent(roomId)}`;
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}${path}`;
}

// Seat tokens live in sessionStorage, one key per room: they survive a reload and a network drop
// in this tab, never appear in a URL, and a second tab opening the invite link is a new visitor.
const seatKey = (roomId) => `plyyard.seat.${roomId}`;

export function saveSeat(roomId, seat) {
  sessionStorage.setItem(seatKey(roomId), JSON.stringify(seat));
}

export function loadSeat(roomId) {
  try {
    return JSON.parse(sessionStorage.getItem(seatKey(roomId)) ?? 'null');
  } catch {
    return null;
  }
}

export function forgetSeat(roomId) {
  sessionStorage.removeItem(seatKey(roomId));
}

export function savedName() {
  return localStorage.getItem('plyyard.name') || '';
}

export function saveName(name) {
  localStorage.setItem('plyyard.name', name);
}
