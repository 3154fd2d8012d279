import { test } from 'node:test';
import assert from 'node:assert/strict';

import { DieStream, bytesToHex, commitmentOf, gameKeyV2, verifyGame } from '../../js/fairness.js';

// The known-answer vectors of /work/shared/spec/fairness.md, scheme v2.
const serverSeed = Uint8Array.from({ length: 32 }, (_, i) => i);
const VECTORS = [
  {
    ruleset: 'flights', seeds: { red: 'red', yellow: '', blue: 'blue' },
    key: '0c939b2ed82dd910ddcb192fc2c9fce2159cb59605b77a65f048f31ce16b7b00',
    rolls: '3 5 6 5 4 3 1 6 5 1 6 5 3 1 2 1 3 4 5 2',
  },
  {
    ruleset: 'classic', seeds: { red: 'r', yellow: 'y', blue: 'b', green: 'g' },
    key: '16fcbd2ca87295fcf084aff1eb956a1335cec09378530565738da04ad6af8ceb',
    rolls: '6 2 4 4 2 6 5 5 6 2 1 6 2 5 4 4 6 5 3 6',
  },
  {
    ruleset: 'plyyard', seeds: { red: 'red', yellow: 'yellow' },
    key: '819fce3d0aadfaadd44db4c81c4ffe1625d249f6593cce59d5a51a33f7f88a3b',
    rolls: '3 1 5 6 2 2 3 1 1 4 5 4 2 2 5 1 6 4 2 5',
  },
];

for (const vector of VECTORS) {
  const seated = Object.keys(vector.seeds).join(', ');
  test(`the v2 key of ${vector.ruleset} with ${seated} matches fairness.md`, async () => {
    assert.equal(bytesToHex(await gameKeyV2(serverSeed, vector.ruleset, vector.seeds)), vector.key);
  });

  test(`the first twenty v2 rolls of ${vector.ruleset} with ${seated} match fairness.md`, async () => {
    const key = await gameKeyV2(serverSeed, vector.ruleset, vector.seeds);
    assert.deepEqual(new DieStream(key).take(20), vector.rolls.split(' ').map(Number));
  });
}

test('the v2 key frames the colours in the order red, yellow, blue, green whatever the order given', async () => {
  const given = { green: 'g', blue: 'b', yellow: 'y', red: 'r' };
  assert.equal(bytesToHex(await gameKeyV2(serverSeed, 'classic', given)), VECTORS[1].key);
});

test('a v2 game verifies with its ruleset and seeds and fails with another ruleset', async () => {
  const vector = VECTORS[0];
  const game = {
    scheme: 'v2', commitment: await commitmentOf(serverSeed), serverSeed: bytesToHex(serverSeed),
    rolls: vector.rolls.split(' ').map(Number), seeds: vector.seeds,
  };
  assert.equal((await verifyGame({ ...game, ruleset: 'flights' })).ok, true);
  const wrong = await verifyGame({ ...game, ruleset: 'classic' });
  assert.equal(wrong.ok, false);
  assert.equal(wrong.commitmentOk, true);
});
