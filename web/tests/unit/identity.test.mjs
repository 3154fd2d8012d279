// The guest identity (js/identity.js) against a fake server and a fake localStorage: made on the
// first visit, checked once per page, renewed after `bad_identity`, absent on an older server.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { ApiError } from '../../js/api.js';
import { Identity } from '../../js/identity.js';

const KEY = 'plyyard.identity';
const ANN = { id: '11111111-1111-4111-8111-111111111111', secret: 'c2VjcmV0LWFubg', name: 'Ann' };
const NEW = { id: '22222222-2222-4222-8222-222222222222', secret: 'bmV3LXNlY3JldA', name: 'Ann' };

/** A Storage with only what the code uses. */
function fakeStorage(entries = {}) {
  const map = new Map(Object.entries(entries));
  return {
    getItem: (key) => (map.has(key) ? map.get(key) : null),
    setItem: (key, value) => map.set(key, String(value)),
    removeItem: (key) => map.delete(key),
    map,
  };
}

const error = (status, code) => ({ status, body: { code, message: code } });

/**
 * A fetch answering from `routes` ("METHOD /path" → {status, body} or a function of the request);
 * every call is kept in `calls` as {method, path, body, authorization}.
 */
function fakeFetch(routes) {
  const calls = [];
  const fetch = async (path, init) => {
    const call = {
      method: init.method, path, body: init.body ? JSON.parse(init.body) : undefined,
      authorization: init.headers.authorization ?? null,
    };
    calls.push(call);
    let answer = routes[`${init.method} ${path}`] ?? error(404, 'no_route');
    if (typeof answer === 'function') answer = answer(call);
    const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
    return { ok: answer.status < 300, status: answer.status, text: async () => text };
  };
  return { fetch, calls };
}

const stored = (storage) => JSON.parse(storage.getItem(KEY));

test('a first visit makes an identity with the typed name and keeps it in storage', async () => {
  const storage = fakeStorage();
  const { fetch, calls } = fakeFetch({ 'POST /api/players': { status: 201, body: ANN } });
  const identity = new Identity({ storage, fetch });
  assert.deepEqual(await identity.ensure('Ann'), { id: ANN.id, name: 'Ann' });
  assert.deepEqual(calls.map((c) => [c.method, c.path, c.body]), [['POST', '/api/players', { name: 'Ann' }]]);
  assert.deepEqual(stored(storage), ANN);
  assert.equal(identity.credentials(), `${ANN.id}.${ANN.secret}`);
  assert.deepEqual(identity.headers(), { authorization: `Bearer ${ANN.id}.${ANN.secret}` });
  assert.equal(identity.name(), 'Ann');
});

test('a first visit without a name leaves the name to the server', async () => {
  const { fetch, calls } = fakeFetch({ 'POST /api/players': { status: 201, body: { ...ANN, name: 'Guest 4821' } } });
  const identity = new Identity({ storage: fakeStorage(), fetch });
  assert.equal((await identity.ensure()).name, 'Guest 4821');
  assert.deepEqual(calls[0].body, {});
});

test('a name the server refuses is left to the server rather than failing the visit', async () => {
  const { fetch, calls } = fakeFetch({
    'POST /api/players': (call) => (call.body.name ? error(400, 'bad_field') : { status: 201, body: { ...ANN, name: 'Guest 1' } }),
  });
  const identity = new Identity({ storage: fakeStorage(), fetch });
  assert.equal((await identity.ensure('\u202eevil')).name, 'Guest 1');
  assert.equal(calls.length, 2);
});

test('a stored identity is checked once per page with its credentials, and its name refreshed', async () => {
  const storage = fakeStorage({ [KEY]: JSON.stringify(ANN) });
  const { fetch, calls } = fakeFetch({ 'GET /api/players/me': { status: 200, body: { id: ANN.id, name: 'Annie' } } });
  const identity = new Identity({ storage, fetch });
  const [first, second] = await Promise.all([identity.ensure(), identity.ensure()]);
  await identity.ensure();
  assert.deepEqual(first, { id: ANN.id, name: 'Annie' });
  assert.equal(second, first);
  assert.equal(calls.length, 1, 'one check for the whole page');
  assert.equal(calls[0].authorization, `Bearer ${ANN.id}.${ANN.secret}`);
  assert.equal(stored(storage).name, 'Annie');
  assert.equal(stored(storage).secret, ANN.secret, 'the secret is kept');
});

test('a stored identity the server no longer knows is replaced by a new one of the same name', async () => {
  const storage = fakeStorage({ [KEY]: JSON.stringify(ANN) });
  const { fetch, calls } = fakeFetch({
    'GET /api/players/me': error(401, 'bad_identity'),
    'POST /api/players': { status: 201, body: NEW },
  });
  const identity = new Identity({ storage, fetch });
  assert.deepEqual(await identity.ensure(), { id: NEW.id, name: 'Ann' });
  assert.deepEqual(calls.map((c) => `${c.method} ${c.path}`), ['GET /api/players/me', 'POST /api/players']);
  assert.deepEqual(calls[1].body, { name: 'Ann' });
  assert.equal(calls[1].authorization, null, 'a new identity is asked for without the old credentials');
  assert.deepEqual(stored(storage), NEW);
});

test('an older server without identities means playing anonymously, with nothing stored', async () => {
  for (const status of [404, 405]) {
    const storage = fakeStorage();
    const { fetch } = fakeFetch({ 'POST /api/players': error(status, 'no_route') });
    const identity = new Identity({ storage, fetch });
    assert.equal(await identity.ensure('Ann'), null);
    assert.equal(identity.credentials(), null);
    assert.deepEqual(identity.headers(), {});
    assert.equal(storage.map.size, 0);
    assert.deepEqual(await identity.liveRooms(), []);
    assert.equal(await identity.rename('Bob'), null);
  }
});

test('an identity stored for a newer server is not sent to an older one', async () => {
  const storage = fakeStorage({ [KEY]: JSON.stringify(ANN) });
  const { fetch } = fakeFetch({ 'GET /api/players/me': error(404, 'no_route') });
  const identity = new Identity({ storage, fetch });
  assert.equal(await identity.ensure(), null);
  assert.equal(identity.credentials(), null);
  assert.deepEqual(stored(storage), ANN, 'kept for when the server learns identities');
});

test('a server that cannot be reached fails the check, and the next call tries again', async () => {
  let up = false;
  const calls = [];
  const fetch = async (path, init) => {
    calls.push(path);
    if (!up) throw new TypeError('Failed to fetch');
    return { ok: true, status: 201, text: async () => JSON.stringify(ANN) };
  };
  const identity = new Identity({ storage: fakeStorage(), fetch });
  await assert.rejects(identity.ensure(), { code: 'network' });
  up = true;
  assert.equal((await identity.ensure()).id, ANN.id);
  assert.equal(calls.length, 2);
});

test('an authenticated request refused as bad_identity is sent once more with a new identity', async () => {
  const storage = fakeStorage({ [KEY]: JSON.stringify(ANN) });
  const { fetch, calls } = fakeFetch({
    'GET /api/players/me': { status: 200, body: { id: ANN.id, name: 'Ann' } },
    'POST /api/players': { status: 201, body: NEW },
  });
  const identity = new Identity({ storage, fetch });
  const seen = [];
  const room = await identity.authed(async (headers) => {
    seen.push(headers.authorization);
    if (seen.length === 1) throw new ApiError(401, 'bad_identity', 'Unknown player.');
    return { id: 'room' };
  });
  assert.deepEqual(room, { id: 'room' });
  assert.deepEqual(seen, [`Bearer ${ANN.id}.${ANN.secret}`, `Bearer ${NEW.id}.${NEW.secret}`]);
  assert.deepEqual(calls.map((c) => `${c.method} ${c.path}`), ['GET /api/players/me', 'POST /api/players']);
});

test('other refusals of an authenticated request are not retried', async () => {
  const storage = fakeStorage({ [KEY]: JSON.stringify(ANN) });
  const { fetch } = fakeFetch({ 'GET /api/players/me': { status: 200, body: { id: ANN.id, name: 'Ann' } } });
  const identity = new Identity({ storage, fetch });
  let tries = 0;
  await assert.rejects(identity.authed(async () => { tries += 1; throw new Error('no_match'); }), /no_match/);
  assert.equal(tries, 1);
});

test('renaming sends PATCH /api/players/me and keeps the new name', async () => {
  const storage = fakeStorage({ [KEY]: JSON.stringify(ANN) });
  const { fetch, calls } = fakeFetch({
    'GET /api/players/me': { status: 200, body: { id: ANN.id, name: 'Ann' } },
    'PATCH /api/players/me': (call) => ({ status: 200, body: { id: ANN.id, name: call.body.name.trim() } }),
  });
  const identity = new Identity({ storage, fetch });
  assert.deepEqual(await identity.rename(' Bob '), { id: ANN.id, name: 'Bob' });
  const patch = calls.find((c) => c.method === 'PATCH');
  assert.deepEqual(patch.body, { name: ' Bob ' });
  assert.equal(patch.authorization, `Bearer ${ANN.id}.${ANN.secret}`);
  assert.equal(stored(storage).name, 'Bob');
  assert.equal(identity.name(), 'Bob');
});

test('a refused new name leaves the stored one as it was', async () => {
  const storage = fakeStorage({ [KEY]: JSON.stringify(ANN) });
  const { fetch } = fakeFetch({
    'GET /api/players/me': { status: 200, body: { id: ANN.id, name: 'Ann' } },
    'PATCH /api/players/me': error(400, 'bad_field'),
  });
  const identity = new Identity({ storage, fetch });
  await assert.rejects(identity.rename('x'.repeat(40)), { code: 'bad_field' });
  assert.equal(stored(storage).name, 'Ann');
});

test('the live rooms come with their seat tokens', async () => {
  const rooms = [{ room_id: 'r1', ws_path: '/ws/rooms/r1', colour: 'red', token: 't1', mode: 'online', phase: 'playing' }];
  const storage = fakeStorage({ [KEY]: JSON.stringify(ANN) });
  const { fetch, calls } = fakeFetch({
    'GET /api/players/me': { status: 200, body: { id: ANN.id, name: 'Ann' } },
    'GET /api/players/me/live': { status: 200, body: { rooms } },
  });
  const identity = new Identity({ storage, fetch });
  assert.deepEqual(await identity.liveRooms(), rooms);
  assert.equal(calls.at(-1).authorization, `Bearer ${ANN.id}.${ANN.secret}`);
});

test('a corrupt stored identity counts as none', async () => {
  const storage = fakeStorage({ [KEY]: '{not json' });
  const { fetch } = fakeFetch({ 'POST /api/players': { status: 201, body: ANN } });
  const identity = new Identity({ storage, fetch });
  assert.equal(identity.stored(), null);
  assert.equal((await identity.ensure()).id, ANN.id);
});
