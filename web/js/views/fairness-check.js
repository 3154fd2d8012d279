// The fairness check shown at game over and with every stored game: recomputes the commitment
// and every roll in this browser (WebCrypto SHA-256, ChaCha20 in JS) from the revealed seeds.

import { h } from '../dom.js';
import { verifyGame } from '../fairness.js';

/** The roll values of a game record's action log, in order (undone rolls included). */
export function recordRolls(record) {
  return record.actions.filter((a) => a.action === 'roll').map((a) => a.value);
}

/**
 * The client seeds of the seated colours in a fairness view or record ({red: 'x', blue: ''}):
 * red and yellow always, blue and green when they played (scheme v2 frames only those).
 */
export function seatedSeeds(fairness) {
  const seeds = { red: fairness.red_seed ?? '', yellow: fairness.yellow_seed ?? '' };
  for (const colour of ['blue', 'green']) {
    if (typeof fairness[`${colour}_seed`] === 'string') seeds[colour] = fairness[`${colour}_seed`];
  }
  return seeds;
}

/**
 * Runs the check and fills `container`. `fairness` holds {scheme, commitment, server_seed,
 * red_seed, yellow_seed}; `rolls` the values to check; `announced` the commitment this client
 * was shown before the first roll, if it saw it; `observed` the rolls it saw live, if it saw all;
 * `ruleset` the edition (scheme v2 keys name it).
 * Resolves to the verification result.
 */
export async function runFairnessCheck(container, { fairness, rolls, announced = null, observed = null, ruleset = 'plyyard' }) {
  container.replaceChildren(h('p', { 'data-testid': 'fairness-result' }, 'Checking the dice…'));
  const seeds = seatedSeeds(fairness);
  const result = await verifyGame({
    scheme: fairness.scheme,
    commitment: fairness.commitment,
    serverSeed: fairness.server_seed,
    redSeed: fairness.red_seed ?? '',
    yellowSeed: fairness.yellow_seed ?? '',
    rolls,
    ruleset,
    seeds,
  });
  const announcedOk = announced === null || announced === fairness.commitment;
  const observedOk = observed === null ||
    (observed.length === rolls.length && observed.every((v, i) => v === rolls[i]));
  const ok = result.ok && announcedOk && observedOk;
  const line = (pass, text) => h('li', { class: pass ? 'verified' : 'not-verified' }, `${pass ? '✓' : '✗'} ${text}`);
  const checks = [
    line(result.commitmentOk, 'SHA-256 of the revealed server seed equals the commitment.'),
    line(result.rollsOk, result.rollsOk
      ? `All ${result.checked} rolls re-derived from the seeds (ChaCha20) match.`
      : result.mismatchAt >= 0
        ? `Roll ${result.mismatchAt + 1} was ${rolls[result.mismatchAt]}, the seeds give ${result.expected[result.mismatchAt]}.`
        : `The rolls could not be checked${result.error ? `: ${result.error}` : ''}.`),
  ];
  if (announced !== null) checks.push(line(announcedOk, 'The commitment shown before the first roll is the one revealed.'));
  if (observed !== null) checks.push(line(observedOk, 'The rolls seen during the game are the stored ones.'));
  // The verdict stays in view; how it was reached is folded away for those who want it.
  container.replaceChildren(
    h('p', {
      'data-testid': 'fairness-result',
      'data-verified': ok ? 'true' : 'false',
      class: ok ? 'verified' : 'not-verified',
      role: 'status',
    }, ok ? '✓ Dice verified in this browser' : '✗ Dice NOT verified'),
    h('details', { 'data-testid': 'fairness-details' },
      h('summary', {}, 'How the dice were checked'),
      h('ul', { class: 'checks' }, checks),
      h('dl', {},
        h('dt', {}, 'Scheme'), h('dd', {}, fairness.scheme ?? 'v1'),
        h('dt', {}, 'Commitment'), h('dd', {}, fairness.commitment),
        h('dt', {}, 'Server seed'), h('dd', {}, fairness.server_seed),
        h('dt', {}, 'Red seed'), h('dd', { 'data-testid': 'red-seed' }, JSON.stringify(fairness.red_seed ?? '')),
        h('dt', {}, 'Yellow seed'), h('dd', { 'data-testid': 'yellow-seed' }, JSON.stringify(fairness.yellow_seed ?? '')),
        ...['blue', 'green'].filter((colour) => colour in seeds).flatMap((colour) => [
          h('dt', {}, `${colour[0].toUpperCase()}${colour.slice(1)} seed`),
          h('dd', { 'data-testid': `${colour}-seed` }, JSON.stringify(seeds[colour]))]),
        h('dt', {}, 'Rolls'), h('dd', {}, rolls.join(' ') || '(none)'))),
  );
  return { ...result, ok };
}
