// The player's guest identity (issue 17): no sign-up. On the first visit the server gives this
// browser a player id and a secret (`POST /api/players`), kept in localStorage; every room
// creation and quick match then carries `Authorization: Bearer <id>.<secret>`, and every `join`
// of a seat carries the same `<id>.<secret>` as `player`, so the server ties the seat to the
// player: any tab of this browser can list its live games, and finished games count on the
// player's profile and rating.
//
// Two ways it can go wrong are handled here, once for every caller:
// - the server has no identities (an older one answers 404 or 405 to `/api/players`): the browser
//   plays anonymously, as before, and asks again on the next page load;
// - the server no longer knows the stored identity (401 `bad_identity`, e.g. its database was
//   wiped): a new one is made under the same name and the request is sent once more.

import { ApiError, request } from './api.js';

const KEY = 'plyyard.identity';

/** Whether `error` says the server does not offer this route at all (an older server). */
export function isMissingApi(error) {
  return error instanceof ApiError && (error.status === 405 || (error.status === 404 && error.code !== 'player_not_found'));
}

/** Whether `error` says the server does not know the credentials sent. */
export function isBadIdentity(error) {
  return error instanceof ApiError && (error.code === 'bad_identity' || error.code === 'player_not_found');
}

export class Identity {
  /** `storage` (localStorage by default) and `fetch` (the browser's by default) are for tests. */
  constructor({ storage = null, fetch = null } = {}) {
    this.storageOverride = storage;
    this.fetch = fetch ?? undefined;
    this.checked = null; // this page's check of the stored identity, as a promise
    this.unsupported = false;
  }

  get storage() {
    return this.storageOverride ?? globalThis.localStorage;
  }

  /** The stored {id, secret, name}, or null. */
  stored() {
    try {
      const value = JSON.parse(this.storage.getItem(KEY) ?? 'null');
      return value?.id && value?.secret ? value : null;
    } catch {
      return null;
    }
  }

  /** `<id>.<secret>` (a join's `player`), or null without an identity the server may know. */
  credentials() {
    const stored = this.unsupported ? null : this.stored();
    return stored ? `${stored.id}.${stored.secret}` : null;
  }

  /** The player's display name, or null without an identity the server may know. */
  name() {
    return this.credentials() ? this.stored().name : null;
  }

  /** The `Authorization` header for the stored identity, or no header. */
  headers() {
    const credentials = this.credentials();
    return credentials ? { authorization: `Bearer ${credentials}` } : {};
  }

  /**
   * Makes sure the server knows this browser's player, once per page load: the stored identity is
   * checked with `GET /api/players/me`, or a new one is made (named `name` when given). Resolves to
   * {id, name}, or null when the server has no identities; rejects when the server cannot be
   * reached (the next call tries again).
   */
  ensure(name) {
    this.checked ??= this.check(name).catch((error) => {
      this.checked = null;
      throw error;
    });
    return this.checked;
  }

  async check(name) {
    const stored = this.stored();
    if (stored) {
      try {
        const me = await this.send('GET', '/api/players/me');
        this.remember({ ...stored, name: me.name });
        return { id: stored.id, name: me.name };
      } catch (error) {
        if (isMissingApi(error)) return this.noIdentities();
        if (!isBadIdentity(error)) throw error;
      }
    }
    return this.create(name || stored?.name);
  }

  /** `POST /api/players`; a name the server refuses is left to the server to choose. */
  async create(name) {
    let created;
    try {
      created = await request('POST', '/api/players', name ? { name } : {}, { fetch: this.fetch });
    } catch (error) {
      if (isMissingApi(error)) return this.noIdentities();
      if (!(name && error instanceof ApiError && error.code === 'bad_field')) throw error;
      created = await request('POST', '/api/players', {}, { fetch: this.fetch });
    }
    this.unsupported = false;
    this.remember({ id: created.id, secret: created.secret, name: created.name });
    return { id: created.id, name: created.name };
  }

  noIdentities() {
    this.unsupported = true;
    return null;
  }

  /** Replaces an identity the server refused with a new one of the same name. */
  renew() {
    const name = this.stored()?.name;
    this.storage.removeItem(KEY);
    this.checked = this.create(name).catch((error) => {
      this.checked = null;
      throw error;
    });
    return this.checked;
  }

  remember(identity) {
    this.storage.setItem(KEY, JSON.stringify({ id: identity.id, secret: identity.secret, name: identity.name }));
  }

  /**
   * Calls `send(headers)` with the player's credentials (none on a server without identities);
   * when the server refuses them as `bad_identity`, renews the identity and calls once more.
   */
  async authed(send) {
    try {
      await this.ensure();
    } catch {
      // the server cannot be reached: the request itself will say so
    }
    try {
      return await send(this.headers());
    } catch (error) {
      if (!isBadIdentity(error) || !this.credentials()) throw error;
      await this.renew();
      return send(this.headers());
    }
  }

  /** An authenticated JSON request of this identity. */
  send(method, path, body) {
    return request(method, path, body, { fetch: this.fetch, headers: this.headers() });
  }

  /** `PATCH /api/players/me`: the new display name; resolves to {id, name}, or null without identities. */
  async rename(name) {
    if (!(await this.ensure())) return null;
    const profile = await this.authed(() => this.send('PATCH', '/api/players/me', { name }));
    const stored = this.stored();
    if (stored) this.remember({ ...stored, name: profile.name });
    return { id: profile.id ?? stored?.id, name: profile.name };
  }

  /**
   * `GET /api/players/me/live`: the open rooms where this player holds a seat, as
   * [{room_id, ws_path, colour, token, mode, phase}]; empty without identities.
   */
  async liveRooms() {
    if (!(await this.ensure())) return [];
    const live = await this.authed(() => this.send('GET', '/api/players/me/live'));
    return live?.rooms ?? [];
  }
}

/** This page's identity. */
export const identity = new Identity();
