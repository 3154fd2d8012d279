// After the last move and around the game: the game-over panel ("You won" / "You lost", names,
// reason, fairness folded away), a rematch online that both accept, play again against the
// computer, preset quick messages, the spectator count, the your-turn title, the move list and the
// replay by turn, the rules page, and no serious axe finding on any page (phone and desktop).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { VIEWPORTS, axeViolations, launchBrowser, openPage, playUntilOver, startServer } from './harness.mjs';

let server;
let browser;

before(async () => {
  server = await startServer({ AEROPLANE_BOT_PACE_MS: '20' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** An element's text on one line. */
async function text(page, testid) {
  return (await page.getByTestId(testid).textContent()).replace(/\s+/g, ' ').trim();
}

async function assertAccessible(page, what) {
  assert.deepEqual(await axeViolations(page), [], `no serious axe finding on ${what}`);
}

test('a rematch online: both accept, colours swap in a new room; quick messages, spectators and the your-turn title', async () => {
  const errors = [];
  const ann = await openPage(browser, server.url, errors, 'ann', { viewport: VIEWPORTS.desktop });
  await ann.goto('/');
  await ann.getByTestId('name').fill('Ann');
  await ann.getByTestId('create-room').click();
  const link = await ann.getByTestId('invite-link').inputValue();
  const bob = await openPage(browser, server.url, errors, 'bob', { viewport: VIEWPORTS.phone });
  await bob.goto(link);
  await bob.locator('#join-name').fill('Bob');
  await bob.getByTestId('take-seat').click();
  await ann.getByTestId('turn').filter({ hasText: 'Your turn' }).waitFor();
  assert.equal(await ann.title(), 'Your turn · Aeroplane Chess');
  assert.equal(await bob.title(), 'Aeroplane Chess');
  assert.equal(await ann.getByTestId('sound').isChecked(), false, 'the sound is off by default');

  const eve = await openPage(browser, server.url, errors, 'eve');
  await eve.goto(link);
  await eve.getByTestId('messages').filter({ hasText: 'You are a spectator' }).waitFor();
  await ann.getByTestId('spectators').filter({ hasText: '1 spectator watching' }).waitFor({ timeout: 20000 });
  for (const [page, what] of [[ann, 'a live game (desktop)'], [bob, 'a live game (phone)'], [eve, 'a spectator\'s view']]) {
    await assertAccessible(page, what);
  }

  await ann.getByTestId('say-good_luck').click();
  await bob.getByTestId('messages').filter({ hasText: 'Ann: “Good luck!”' }).waitFor();
  await eve.getByTestId('messages').filter({ hasText: 'Ann: “Good luck!”' }).waitFor();
  assert.equal(await eve.getByTestId('quick-messages').count(), 0, 'spectators send no quick messages');
  await playUntilOver([ann, bob], { limit: 20 });

  await bob.getByTestId('resign').click();
  await bob.getByTestId('confirm-yes').click();
  await ann.getByTestId('headline').filter({ hasText: 'You won' }).waitFor();
  await bob.getByTestId('headline').filter({ hasText: 'You lost' }).waitFor();
  await eve.getByTestId('headline').filter({ hasText: 'Ann (Red) won' }).waitFor();
  assert.equal(await text(ann, 'versus'), 'Ann (Red) vs Bob (Yellow)');
  assert.equal(await ann.getByTestId('result').innerText(), 'Red wins: Yellow resigned.');
  await ann.getByTestId('fairness-result').filter({ hasText: /verified/ }).waitFor();
  assert.equal(await ann.getByTestId('fairness-details').getAttribute('open'), null, 'the fairness detail is folded away');
  await assertAccessible(ann, 'the game-over panel');

  const oldRoom = ann.url();
  await ann.getByTestId('rematch').click();
  await ann.getByTestId('rematch-status').filter({ hasText: 'waiting for Bob' }).waitFor();
  await bob.getByTestId('rematch-status').filter({ hasText: 'Ann wants a rematch.' }).waitFor();
  await bob.getByTestId('rematch').filter({ hasText: 'Accept the rematch' }).click();
  for (const page of [ann, bob]) {
    await page.waitForURL((url) => url.href !== oldRoom && url.hash.startsWith('#/room/'));
  }
  assert.equal(ann.url(), bob.url(), 'both are in the same new room');
  await bob.getByTestId('messages').filter({ hasText: 'You are Red' }).waitFor();
  await ann.getByTestId('messages').filter({ hasText: 'You are Yellow' }).waitFor();
  await bob.getByTestId('turn').filter({ hasText: 'Your turn: roll the die.' }).waitFor();
  await eve.getByTestId('watch-rematch').click();
  await eve.getByTestId('player-red').filter({ hasText: 'Bob' }).waitFor();
  await playUntilOver([bob, ann], { limit: 6 });
  assert.deepEqual(errors, [], 'no browser console errors');
});

test('play again against the computer in one click; the move list reads turn by turn and the replay steps by turn', async () => {
  const errors = [];
  const page = await openPage(browser, server.url, errors, 'again', { viewport: VIEWPORTS.phone });
  await page.goto('/');
  await page.getByTestId('name').fill('Solo');
  await page.getByTestId('bot-colour').selectOption('yellow');
  await page.getByTestId('bot-level').selectOption('easy');
  await page.getByTestId('play-computer').click();
  await page.getByTestId('messages').filter({ hasText: 'You are Yellow' }).waitFor();
  await playUntilOver([page], { limit: 30 });
  await page.getByTestId('resign').click();
  await page.getByTestId('confirm-yes').click();
  await page.getByTestId('headline').filter({ hasText: 'You lost' }).waitFor();
  assert.equal(await text(page, 'versus'), 'Computer (easy) (Red) vs Solo (Yellow)');
  await page.getByTestId('fairness-result').filter({ hasText: /verified/ }).waitFor();
  const finished = page.url();

  // The stored game: a readable move list and a replay by turn.
  await page.getByTestId('replay-link').click();
  const list = page.getByTestId('move-list');
  await list.locator('li').first().filter({ hasText: /^1\. Red: rolled \d/ }).waitFor();
  await page.getByTestId('replay-turn-forward').click();
  await page.getByTestId('replay-position').filter({ hasText: 'turn 1 of' }).waitFor();
  await page.getByTestId('replay-turn-forward').click();
  await page.getByTestId('replay-position').filter({ hasText: 'turn 2 of' }).waitFor();
  await page.getByTestId('replay-turn-back').click();
  await page.getByTestId('replay-position').filter({ hasText: 'turn 1 of' }).waitFor();
  await assertAccessible(page, 'the replay (phone)');

  await page.goBack();
  await page.getByTestId('play-again').click();
  await page.waitForURL((url) => url.href !== finished && url.hash.startsWith('#/room/'));
  await page.getByTestId('messages').filter({ hasText: 'You are Yellow' }).waitFor();
  await page.getByTestId('player-red').filter({ hasText: 'computer, easy' }).waitFor();
  assert.deepEqual(errors, [], 'no browser console errors');
});

for (const [size, viewport] of Object.entries({ phone: VIEWPORTS.phone, desktop: VIEWPORTS.desktop })) {
  test(`the start page and the rules page (${size}) speak to players and have no serious axe finding`, async () => {
    const errors = [];
    const page = await openPage(browser, server.url, errors, `rules-${size}`, { viewport });
    await page.goto('/');
    await assertAccessible(page, 'the start page');
    assert.equal(await page.getByTestId('seed').isVisible(), false, 'the dice seed is folded away');
    await page.getByTestId('start-rules').click();
    await page.locator('h1', { hasText: 'How to play' }).waitFor();
    for (const topic of ['Take off with a six', 'Safe squares', 'Land on a plane to capture it', 'Roll again', 'Three sixes in a row', 'Finish exactly']) {
      await page.locator('h2', { hasText: topic }).waitFor();
    }
    assert.ok(await page.locator('svg.diagram').count() >= 6, 'small board diagrams');
    await assertAccessible(page, 'the rules page');
    assert.deepEqual(errors, []);
  });
}
