// Screenshots of the start page, a game with its clocks, a capture and the game-over panel, at
// phone and desktop sizes. They go to `target/e2e-screens/`, or to `docs/screenshots/` with
// UPDATE_SCREENSHOT=1 (the README shows one of them). Every page taken is also checked by axe.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { REPO, VIEWPORTS, axeViolations, launchBrowser, openPage, startServer, step } from './harness.mjs';

let server;
let browser;
const DIR = process.env.UPDATE_SCREENSHOT ? join(REPO, 'docs', 'screenshots') : join(REPO, 'target', 'e2e-screens');

before(async () => {
  mkdirSync(DIR, { recursive: true });
  server = await startServer({ AEROPLANE_BOT_PACE_MS: '20' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function shot(page, name) {
  await page.screenshot({ path: join(DIR, `${name}.png`) });
  assert.deepEqual(await axeViolations(page), [], `no serious axe finding on ${name}`);
}

/** Starts a same-device game of Ann and Bob. */
async function localGame(page) {
  await page.goto('/');
  await page.getByTestId('red-name').fill('Ann');
  await page.getByTestId('yellow-name').fill('Bob');
  await page.getByTestId('play-local').click();
  await page.getByTestId('turn').filter({ hasText: 'Ann (Red): roll the die.' }).waitFor();
}

/**
 * Plays same-device games until a capture is announced, and stops there. The dice are random,
 * so a game may end without one (another game starts), and a step taken before the page showed
 * a capture can replace its announcement (the log keeps it: the next capture is waited for).
 * Bounded by time, not by steps, so a slow machine only makes it slower.
 */
async function playUntilCapture(page) {
  await localGame(page);
  const announced = page.getByTestId('announce').filter({ hasText: 'Capture!' });
  const logged = page.getByTestId('messages').locator('li', { hasText: 'Capture!' });
  let seen = 0;
  for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
    const captures = await logged.count();
    if (captures > seen) {
      seen = captures;
      try {
        await announced.waitFor({ timeout: 2000 });
        return;
      } catch {
        // Replaced by a later step's announcement: play on to the next capture.
      }
    }
    const done = await step(page);
    if (done?.kind === 'over') {
      await localGame(page);
      seen = 0;
    } else if (!done) {
      await page.waitForTimeout(10);
    }
  }
  assert.fail('no capture announced in 120 s of play');
}

for (const [size, viewport] of Object.entries({ phone: VIEWPORTS.phone, desktop: VIEWPORTS.desktop })) {
  test(`screenshots (${size}): start page, a game with a clock, a capture, game over`, async () => {
    const errors = [];
    const page = await openPage(browser, server.url, errors, `shots-${size}`, { viewport });
    await page.goto('/');
    await page.getByTestId('identity').waitFor(); // the player's guest identity is shown
    await page.getByTestId('name').fill('Ann');
    await shot(page, `start-${size}`);

    // An online game with a turn clock, a few moves in.
    const room = await fetch(`${server.url}/api/rooms`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'online', turn_clock_ms: 30000 }),
    }).then((r) => r.json());
    await page.goto(`/#/room/${room.id}`);
    await page.locator('#join-name').fill('Ann');
    await page.getByTestId('take-seat').click();
    const bob = await openPage(browser, server.url, errors, `shots-bob-${size}`);
    await bob.goto(`/#/room/${room.id}`);
    await bob.locator('#join-name').fill('Bob');
    await bob.getByTestId('take-seat').click();
    await page.getByTestId('turn').filter({ hasText: 'Your turn' }).waitFor();
    for (let i = 0; i < 40; i += 1) {
      await step(page);
      await step(bob);
    }
    for (let i = 0; i < 200 && !(await page.getByTestId('roll').isEnabled()); i += 1) {
      if (!(await step(bob))) await page.waitForTimeout(20);
    }
    await page.getByTestId('clock-red').filter({ hasText: /^0:[0-3]\d$/ }).waitFor();
    await shot(page, `clock-${size}`);
    await bob.context().close();

    // A same-device game, played until a capture is on screen.
    await playUntilCapture(page);
    await shot(page, `capture-${size}`);

    await page.getByTestId('resign').click();
    await page.getByTestId('confirm-yes').click();
    await page.getByTestId('fairness-result').filter({ hasText: /verified/ }).waitFor();
    await page.getByTestId('game-over').scrollIntoViewIfNeeded();
    await shot(page, `game-over-${size}`);
    assert.deepEqual(errors, []);
  });
}
