import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  DieStream, bytesToHex, chacha20Block, clientSeedBytes, commitmentOf, gameKey, hexToBytes,
  verifyGame,
} from '../../js/fairness.js';

const serverSeed = Uint8Array.from({ length: 32 }, (_, i) => i);
const COMMITMENT = '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd';
const KEY = 'ea363b74e59c2aba706742168dc0efffd83d062266a94429a7e0a361b0b4aa7c';
const FIRST_ROLLS = [1, 4, 4, 5, 1, 3, 6, 4, 1, 6, 4, 2, 4, 6, 4, 2, 5, 6, 1, 5];

test('the commitment of the known-answer seed matches fairness.md', async () => {
  assert.equal(await commitmentOf(serverSeed), COMMITMENT);
});

test('the game key of the known-answer vector matches fairness.md', async () => {
  assert.equal(bytesToHex(await gameKey(serverSeed, 'red', 'yellow')), KEY);
});

test('the first twenty rolls of the known-answer vector match fairness.md', () => {
  assert.deepEqual(new DieStream(hexToBytes(KEY)).take(20), FIRST_ROLLS);
});

test('the ChaCha20 block matches the RFC 8439 zero-key, zero-nonce keystream', () => {
  // RFC 8439 appendix A.1, test vector #1: key and nonce all zero, block counter 0.
  const words = chacha20Block(new Uint8Array(32), 0);
  const bytes = new Uint8Array(words.buffer.slice(0));
  assert.equal(
    bytesToHex(bytes),
    '76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7' +
      'da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586',
  );
});

test('rolls keep coming across many blocks and stay in 1..=6', () => {
  const rolls = new DieStream(hexToBytes(KEY)).take(1000);
  assert.ok(rolls.every((r) => r >= 1 && r <= 6));
  for (let v = 1; v <= 6; v += 1) assert.ok(rolls.filter((r) => r === v).length > 100);
});

test('a client seed over 64 bytes is refused, not truncated', () => {
  assert.equal(clientSeedBytes('x'.repeat(64)).length, 64);
  assert.throws(() => clientSeedBytes('x'.repeat(65)), /at most 64 bytes/);
  assert.throws(() => clientSeedBytes('é'.repeat(33)), /at most 64 bytes/);
});

test('the empty client seed is framed as a zero length', async () => {
  const a = await gameKey(serverSeed, '', 'yellow');
  const b = await gameKey(serverSeed, undefined, 'yellow');
  assert.equal(bytesToHex(a), bytesToHex(b));
  assert.notEqual(bytesToHex(a), KEY);
});

test('verifyGame accepts the known-answer game and names the first wrong roll', async () => {
  const game = {
    scheme: 'v1', commitment: COMMITMENT, serverSeed: bytesToHex(serverSeed),
    redSeed: 'red', yellowSeed: 'yellow', rolls: FIRST_ROLLS,
  };
  const good = await verifyGame(game);
  assert.equal(good.ok, true);
  assert.equal(good.checked, 20);

  const tampered = await verifyGame({ ...game, rolls: [...FIRST_ROLLS.slice(0, 5), 6] });
  assert.equal(tampered.ok, false);
  assert.equal(tampered.commitmentOk, true);
  assert.equal(tampered.mismatchAt, 5);

  const wrongCommitment = await verifyGame({ ...game, commitment: '00'.repeat(32) });
  assert.equal(wrongCommitment.ok, false);
  assert.equal(wrongCommitment.rollsOk, true);

  const badSeed = await verifyGame({ ...game, serverSeed: 'zz' });
  assert.equal(badSeed.ok, false);
  assert.ok(badSeed.error);
});
