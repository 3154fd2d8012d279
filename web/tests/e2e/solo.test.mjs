// Games one person plays alone: against the computer, and both colours on one device.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { launchBrowser, openPage, playUntilOver, startServer, untilChoice } from './harness.mjs';

let server;
let browser;

before(async () => {
  // The computer normally pauses before each action so people can follow; tests need no pause.
  server = await startServer({ AEROPLANE_BOT_PACE_MS: '20' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('a game against the computer is played to its end, with the dice verified', async () => {
  const errors = [];
  const page = await openPage(browser, server.url, errors, 'solo');
  await page.goto('/');
  await page.getByTestId('name').fill('Solo');
  await page.getByTestId('bot-colour').selectOption('yellow');
  await page.getByTestId('bot-level').selectOption('easy');
  await page.getByTestId('play-computer').click();
  await page.getByTestId('messages').filter({ hasText: 'You are Yellow' }).waitFor();
  assert.equal(await page.getByTestId('offer-draw').count(), 0, 'no draw offers against the computer');
  await page.getByTestId('player-red').filter({ hasText: 'computer, easy' }).waitFor();

  // A hint names a legal plane; a move can be taken back.
  assert.ok(await untilChoice(page), 'a plane choice comes');
  await page.getByTestId('hint').click();
  await page.getByTestId('messages').filter({ hasText: /Hint \(easy\): Plane [1-4]: / }).waitFor();
  const choices = await page.locator('[data-testid^=move-]').count();
  await page.locator('[data-testid^=move-]').first().click();
  await page.getByTestId('undo').click();
  await page.getByTestId('messages').filter({ hasText: /Undo: Yellow chooses a plane again/ }).waitFor();
  assert.equal(await page.locator('[data-testid^=move-]').count(), choices, 'the same choice is pending again');
  const steps = await playUntilOver([page], { limit: 5000 });
  assert.ok(steps > 10);
  await page.getByTestId('result').filter({ hasText: /wins/ }).waitFor();
  const verdict = page.getByTestId('fairness-result');
  await verdict.filter({ hasText: /verified/i }).waitFor({ timeout: 20000 });
  assert.equal(await verdict.getAttribute('data-verified'), 'true');
  assert.deepEqual(errors, [], 'no browser console errors');
});

test('a same-device game lets one page play both colours', async () => {
  const errors = [];
  const page = await openPage(browser, server.url, errors, 'local');
  await page.goto('/');
  await page.getByTestId('play-local').click();
  await page.getByTestId('turn').filter({ hasText: 'Red: roll the die.' }).waitFor();
  assert.equal(await page.getByTestId('hint').isHidden(), true, 'no hints on one device');
  await playUntilOver([page], { limit: 40 });
  await page.getByTestId('resign').click();
  await page.getByTestId('confirm-yes').click();
  await page.getByTestId('result').filter({ hasText: /resigned/ }).waitFor();
  assert.deepEqual(errors, [], 'no browser console errors');
});
