// The verifiable-dice scheme v1 of fairness.md, byte for byte, for the browser (and Node 20).
//
// SHA-256 comes from WebCrypto (`crypto.subtle.digest`); ChaCha20 is written out below. The
// stream is rand_chacha's ChaCha20Rng with stream 0 and counter 0, which equals the RFC 8439
// keystream with an all-zero nonce read as little-endian 32-bit words.

export const SCHEME = 'v1';
export const KEY_TAG = 'aeroplane-dice-v1';
/** The key tag of scheme v2 (every edition, two to four players). */
export const KEY_TAG_V2 = 'aeroplane-dice-v2';
/** The order in which v2 frames the seated colours' seeds. */
export const V2_COLOUR_ORDER = ['red', 'yellow', 'blue', 'green'];
export const MAX_CLIENT_SEED_BYTES = 64;
const REJECT_FROM = 4294967292;

const encoder = new TextEncoder();

export function bytesToHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function hexToBytes(hex) {
  if (typeof hex !== 'string' || hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw new Error('not a hex string');
  }
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

export async function sha256(bytes) {
  return new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes));
}

/** `hex(SHA-256(server_seed))` for a server seed given as bytes. */
export async function commitmentOf(serverSeed) {
  return bytesToHex(await sha256(serverSeed));
}

function lengthPrefixed(bytes) {
  const framed = new Uint8Array(4 + bytes.length);
  new DataView(framed.buffer).setUint32(0, bytes.length, false);
  framed.set(bytes, 4);
  return framed;
}

/** The UTF-8 bytes of a client seed; throws for a seed over 64 bytes (never truncated). */
export function clientSeedBytes(seed) {
  const bytes = encoder.encode(seed ?? '');
  if (bytes.length > MAX_CLIENT_SEED_BYTES) {
    throw new Error(`a client seed is at most ${MAX_CLIENT_SEED_BYTES} bytes, this one has ${bytes.length}`);
  }
  return bytes;
}

/** `SHA-256("aeroplane-dice-v1" || lp(server_seed) || lp(red_seed) || lp(yellow_seed))`. */
export async function gameKey(serverSeed, redSeed, yellowSeed) {
  const parts = [
    encoder.encode(KEY_TAG),
    lengthPrefixed(serverSeed),
    lengthPrefixed(clientSeedBytes(redSeed)),
    lengthPrefixed(clientSeedBytes(yellowSeed)),
  ];
  const total = parts.reduce((n, p) => n + p.length, 0);
  const message = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    message.set(part, offset);
    offset += part.length;
  }
  return sha256(message);
}

/**
 * v2: `SHA-256("aeroplane-dice-v2" || lp(server_seed) || lp(ruleset) || lp(colour) || lp(seed)
 * for each seated colour in the order red, yellow, blue, green)`; `seeds` maps the seated colours
 * to their client seeds (a colour absent from it does not play).
 */
export async function gameKeyV2(serverSeed, ruleset, seeds) {
  const parts = [encoder.encode(KEY_TAG_V2), lengthPrefixed(serverSeed), lengthPrefixed(encoder.encode(ruleset))];
  for (const colour of V2_COLOUR_ORDER) {
    if (!(colour in seeds)) continue;
    parts.push(lengthPrefixed(encoder.encode(colour)), lengthPrefixed(clientSeedBytes(seeds[colour] ?? '')));
  }
  const message = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    message.set(part, offset);
    offset += part.length;
  }
  return sha256(message);
}

function rotl(v, n) {
  return ((v << n) | (v >>> (32 - n))) >>> 0;
}

function quarterRound(s, a, b, c, d) {
  s[a] = (s[a] + s[b]) >>> 0; s[d] = rotl(s[d] ^ s[a], 16);
  s[c] = (s[c] + s[d]) >>> 0; s[b] = rotl(s[b] ^ s[c], 12);
  s[a] = (s[a] + s[b]) >>> 0; s[d] = rotl(s[d] ^ s[a], 8);
  s[c] = (s[c] + s[d]) >>> 0; s[b] = rotl(s[b] ^ s[c], 7);
}

/** The 16 output words of one ChaCha20 block (20 rounds) for a 32-byte key and zero nonce. */
export function chacha20Block(key, counter) {
  const view = new DataView(key.buffer, key.byteOffset, key.byteLength);
  const input = new Uint32Array(16);
  input[0] = 0x61707865; input[1] = 0x3320646e; input[2] = 0x79622d32; input[3] = 0x6b206574;
  for (let i = 0; i < 8; i += 1) input[4 + i] = view.getUint32(4 * i, true);
  input[12] = counter >>> 0;
  input[13] = Math.floor(counter / 2 ** 32) >>> 0; // rand_chacha: a 64-bit block counter
  // Words 14 and 15 (the stream / nonce) stay zero.
  const s = Uint32Array.from(input);
  for (let round = 0; round < 10; round += 1) {
    quarterRound(s, 0, 4, 8, 12); quarterRound(s, 1, 5, 9, 13);
    quarterRound(s, 2, 6, 10, 14); quarterRound(s, 3, 7, 11, 15);
    quarterRound(s, 0, 5, 10, 15); quarterRound(s, 1, 6, 11, 12);
    quarterRound(s, 2, 7, 8, 13); quarterRound(s, 3, 4, 9, 14);
  }
  for (let i = 0; i < 16; i += 1) s[i] = (s[i] + input[i]) >>> 0;
  return s;
}

/** The die stream of a game key: `next()` returns the next roll, 1..=6. */
export class DieStream {
  constructor(key) {
    this.key = key;
    this.counter = 0;
    this.words = new Uint32Array(0);
    this.index = 0;
  }

  nextWord() {
    if (this.index >= this.words.length) {
      this.words = chacha20Block(this.key, this.counter);
      this.counter += 1;
      this.index = 0;
    }
    const word = this.words[this.index];
    this.index += 1;
    return word;
  }

  next() {
    for (;;) {
      const word = this.nextWord();
      if (word < REJECT_FROM) return (word % 6) + 1;
    }
  }

  take(n) {
    return Array.from({ length: n }, () => this.next());
  }
}

/**
 * Checks a finished game's fairness fields and roll sequence: the commitment against the revealed
 * server seed, then every roll against the stream (scheme v2 also needs `ruleset` and `seeds`,
 * the seated colours' client seeds). Returns {ok, commitmentOk, rollsOk, checked,
 * mismatchAt, expected, error}.
 */
export async function verifyGame({ scheme, commitment, serverSeed, redSeed, yellowSeed, rolls, ruleset, seeds }) {
  const result = { ok: false, commitmentOk: false, rollsOk: false, checked: 0, mismatchAt: -1 };
  try {
    if (scheme && scheme !== SCHEME && scheme !== 'v2') throw new Error(`unknown fairness scheme ${scheme}`);
    const seed = hexToBytes(serverSeed);
    if (seed.length !== 32) throw new Error('the server seed is not 32 bytes');
    result.commitmentOk = (await commitmentOf(seed)) === String(commitment).toLowerCase();
    const key = scheme === 'v2'
      ? await gameKeyV2(seed, ruleset, seeds ?? { red: redSeed, yellow: yellowSeed })
      : await gameKey(seed, redSeed, yellowSeed);
    const stream = new DieStream(key);
    result.expected = stream.take(rolls.length);
    result.mismatchAt = rolls.findIndex((value, i) => Number(value) !== result.expected[i]);
    result.checked = rolls.length;
    result.rollsOk = result.mismatchAt < 0;
    result.ok = result.commitmentOk && result.rollsOk;
  } catch (error) {
    result.error = error.message;
  }
  return result;
}
