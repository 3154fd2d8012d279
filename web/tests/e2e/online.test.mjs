// Two browser contexts play an online room from the invite link to the end; a third watches.
// Along the way: draw offer and decline, a reload that reclaims the seat with its token, the
// spectator's board following the players', resignation with confirmation, the fairness check,
// and the replay of the stored game.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { REPO, launchBrowser, openPage, playUntilOver, startServer, untilChoice } from './harness.mjs';

let server;
let browser;
const errors = [];

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function planePositions(page) {
  return page.$$eval('.plane', (planes) =>
    planes.map((p) => `${p.dataset.colour}${p.dataset.plane}:${p.dataset.position}`).sort());
}

async function waitForTurnText(page, pattern) {
  await page.getByTestId('turn').filter({ hasText: pattern }).waitFor();
}

test('two players play an online room from the invite link to a resignation, watched by a spectator', async () => {
  // Red creates the room; the page shows the invite link while it waits.
  const ann = await openPage(browser, server.url, errors, 'ann', { reducedMotion: 'no-preference' });
  await ann.goto('/');
  await ann.getByTestId('name').fill('Ann');
  await ann.locator('summary', { hasText: 'dice seed' }).click();
  await ann.getByTestId('seed').fill('ann-seed');
  await ann.getByTestId('create-room').click();
  const inviteLink = await ann.getByTestId('invite-link').inputValue();
  assert.match(inviteLink, /#\/room\/[0-9a-f-]{36}$/);
  await waitForTurnText(ann, /Waiting for the second player/);
  assert.equal(await ann.getByTestId('roll').isDisabled(), true);

  // Yellow opens the link and takes the free seat. Its WebSockets pass through a route, so the
  // test can cut the line later as a network drop would.
  const bob = await openPage(browser, server.url, errors, 'bob');
  const bobLines = [];
  await bob.routeWebSocket(/\/ws\/rooms\//, (ws) => {
    const upstream = ws.connectToServer();
    bobLines.push({ ws, upstream });
  });
  await bob.goto(inviteLink);
  await bob.locator('#join-name').fill('Bob');
  await bob.getByTestId('take-seat').click();
  await waitForTurnText(ann, /Your turn: roll the die/);
  await waitForTurnText(bob, /Red to roll/);
  await ann.getByTestId('conn-yellow').filter({ hasText: 'online' }).waitFor();

  // A third visitor with the same link watches: the seats are taken.
  const eve = await openPage(browser, server.url, errors, 'eve', { viewport: { width: 390, height: 844 } });
  await eve.goto(inviteLink);
  await eve.getByTestId('messages').filter({ hasText: 'You are a spectator' }).waitFor();
  assert.equal(await eve.getByTestId('roll').isDisabled(), true);
  assert.equal(await eve.getByTestId('resign').isHidden(), true);

  // Play a while: Ann picks planes on the board, Bob with the keyboard.
  await playUntilOver([ann, bob], { limit: 60, ways: ['board', 'key'] });

  // Draw offer, decline, and the anti-spam rule.
  await ann.getByTestId('offer-draw').click();
  await bob.getByTestId('accept-draw').waitFor();
  await eve.getByTestId('draw').filter({ hasText: 'Red offers a draw' }).waitFor();
  await bob.getByTestId('decline-draw').click();
  await ann.getByTestId('messages').filter({ hasText: 'Yellow declined the draw' }).waitFor();
  assert.equal(await ann.getByTestId('offer-draw').isDisabled(), true);

  // Keep playing until several planes are out, then save the mid-game board for the README.
  await playUntilOver([ann, bob], { limit: 80, ways: ['focus', 'button'] });
  assert.ok(await untilChoice(ann, [bob]), 'Ann gets a plane to choose');
  await ann.waitForTimeout(1200); // let the last move's animation finish
  const shot = process.env.UPDATE_SCREENSHOT ? join(REPO, 'docs', 'screenshot-board.png') : join(REPO, 'target', 'e2e-board.png');
  await ann.screenshot({ path: shot });

  // The spectator's board follows the players'.
  await bob.waitForTimeout(300);
  assert.deepEqual(await planePositions(eve), await planePositions(ann));

  // Bob's line drops: his page opens a new WebSocket and is back in his seat with its token.
  const line = bobLines.at(-1);
  line.upstream.close({ code: 1011, reason: 'test drop' });
  line.ws.close({ code: 1011, reason: 'test drop' });
  for (let i = 0; i < 100 && bobLines.length < 2; i += 1) await bob.waitForTimeout(50);
  assert.equal(bobLines.length, 2, 'Bob opened one new WebSocket');
  await bob.getByTestId('messages').locator('li').first().filter({ hasText: /You are Yellow|is connected/ }).waitFor();
  await bob.getByTestId('connection-banner').waitFor({ state: 'hidden' });
  await ann.getByTestId('conn-yellow').filter({ hasText: 'online' }).waitFor();
  assert.deepEqual(await planePositions(bob), await planePositions(ann));

  // Bob reloads the page: the seat token in localStorage reclaims his seat again.
  await bob.reload();
  await bob.getByTestId('messages').filter({ hasText: 'You are Yellow' }).waitFor();
  assert.deepEqual(await planePositions(bob), await planePositions(ann));
  assert.equal(await bob.evaluate(() => location.href.includes('token')), false);
  const steps = await playUntilOver([ann, bob], { limit: 6 });
  assert.ok(steps > 0, 'the reconnected player can still play');

  // Bob resigns, after confirming.
  await bob.getByTestId('resign').click();
  await bob.getByTestId('confirm-no').click();
  assert.equal(await bob.getByTestId('game-over').isHidden(), true);
  await bob.getByTestId('resign').click();
  await bob.getByTestId('confirm-yes').click();
  for (const page of [ann, bob, eve]) {
    await page.getByTestId('result').filter({ hasText: 'Red wins: Yellow resigned.' }).waitFor();
    const verdict = page.getByTestId('fairness-result');
    await verdict.filter({ hasText: /verified/i }).waitFor();
    assert.equal(await verdict.getAttribute('data-verified'), 'true', await page.getByTestId('fairness').innerText());
  }

  // The stored game replays step by step.
  await ann.getByTestId('replay-link').click();
  const position = ann.getByTestId('replay-position');
  await position.filter({ hasText: 'Step 0 of' }).waitFor();
  const total = Number((await position.innerText()).match(/of (\d+)/)[1]);
  assert.ok(total > 60, `the replay has all the actions (${total})`);
  const start = await planePositions(ann);
  await ann.getByTestId('replay-end').click();
  await position.filter({ hasText: `Step ${total} of ${total}` }).waitFor();
  const end = await planePositions(ann);
  assert.notDeepEqual(end, start);
  await ann.getByTestId('replay-back').click();
  await position.filter({ hasText: `Step ${total - 1} of` }).waitFor();
  await ann.getByTestId('replay-action').filter({ hasText: /rolled|moved/ }).waitFor();
  await ann.getByTestId('replay-start').click();
  await ann.getByTestId('replay-forward').click();
  await ann.getByTestId('replay-forward').click();
  await position.filter({ hasText: 'Step 2 of' }).waitFor();
  await ann.getByTestId('replay-play').click();
  await position.filter({ hasText: 'Step 4 of' }).waitFor();
  await ann.getByTestId('replay-play').click();
  const verdict = ann.getByTestId('fairness-result');
  await verdict.filter({ hasText: /verified/i }).waitFor();
  assert.equal(await verdict.getAttribute('data-verified'), 'true');

  // A visitor opens the same game by its id from the start page.
  const gameId = inviteLink.split('/').pop();
  const visitor = await openPage(browser, server.url, errors, 'visitor');
  await visitor.goto('/');
  await visitor.getByTestId('game-id').fill(gameId);
  await visitor.getByTestId('open-game').click();
  await visitor.getByTestId('result').filter({ hasText: 'Red wins: Yellow resigned.' }).waitFor();
  await visitor.getByTestId('fairness-result').filter({ hasText: /verified/i }).waitFor();

  assert.deepEqual(errors, [], 'no browser console errors');
});

test('quick match pairs two visitors in a new room', async () => {
  const one = await openPage(browser, server.url, errors, 'quick-1');
  const two = await openPage(browser, server.url, errors, 'quick-2');
  for (const [page, name] of [[one, 'Quinn'], [two, 'Rae']]) {
    await page.goto('/');
    await page.getByTestId('name').fill(name);
  }
  await Promise.all([one.getByTestId('quick-match').click(), two.getByTestId('quick-match').click()]);
  await one.waitForURL(/#\/room\//);
  await two.waitForURL(/#\/room\//);
  assert.equal(one.url().split('#')[1], two.url().split('#')[1], 'both are in the same room');
  await Promise.all([one, two].map((page) => page.getByTestId('turn').filter({ hasText: /roll/ }).waitFor()));
  const turns = await Promise.all([one, two].map((page) => page.getByTestId('turn').innerText()));
  assert.equal(turns.filter((t) => t.startsWith('Your turn')).length, 1, 'exactly one of them is Red');
  await playUntilOver([one, two], { limit: 10 });

  // One closes the page: the other sees the opponent disconnected (the seat is held for a while).
  const twoColour = (await two.locator('.player', { hasText: '(you)' }).getAttribute('data-testid')).slice(7);
  await two.context().close();
  await one.getByTestId(`conn-${twoColour}`).filter({ hasText: 'disconnected' }).waitFor();
  await one.getByTestId('messages').filter({ hasText: /lost the connection; the seat is held for \d+ s/ }).waitFor();
  assert.deepEqual(errors, [], 'no browser console errors');
});

test('a draw offer can be withdrawn, and an accepted one ends the game as a draw', async () => {
  const ann = await openPage(browser, server.url, errors, 'draw-ann');
  await ann.goto('/');
  await ann.getByTestId('name').fill('Dana');
  await ann.getByTestId('create-room').click();
  const inviteLink = await ann.getByTestId('invite-link').inputValue();
  const bob = await openPage(browser, server.url, errors, 'draw-bob');
  await bob.goto(inviteLink);
  await bob.getByTestId('take-seat').click();
  await waitForTurnText(ann, /Your turn/);

  await ann.getByTestId('offer-draw').click();
  await ann.getByTestId('withdraw-draw').click();
  await bob.getByTestId('messages').filter({ hasText: 'Red withdrew the draw offer' }).waitFor();
  assert.equal(await bob.getByTestId('accept-draw').count(), 0);
  assert.equal(await ann.getByTestId('offer-draw').isDisabled(), true, 'Red waits for a turn of Yellow');

  await bob.getByTestId('offer-draw').click();
  await ann.getByTestId('accept-draw').click();
  for (const page of [ann, bob]) {
    await page.getByTestId('result').filter({ hasText: 'Draw (draw agreed).' }).waitFor();
    await page.getByTestId('fairness-result').filter({ hasText: /verified/i }).waitFor();
    assert.equal(await page.getByTestId('fairness-result').getAttribute('data-verified'), 'true');
  }
  assert.deepEqual(errors, [], 'no browser console errors');
});
