// The traps a new player fell into (issue 13), one test each, at phone and desktop sizes: the
// seat lost by reopening the invite link, the invisible clock, captures never on screen, the die
// in the wrong colour, hints and buttons numbering planes differently, clutter, the quick match
// that waited twice as long with no way out, the missing closed banner and leaked listeners, the
// empty client seed, and leaving, focus, touch and draw-offer pitfalls.

import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';

import {
  VIEWPORTS, expectedHttpError, launchBrowser, openPage as openTrackedPage, startServer, step, untilChoice,
} from './harness.mjs';

let server;
let browser;
const opened = [];

/** A page in its own context, closed (with its WebSockets) when the test ends. */
async function openPage(...args) {
  const page = await openTrackedPage(...args);
  opened.push(page);
  return page;
}

before(async () => {
  server = await startServer({
    AEROPLANE_BOT_PACE_MS: '20', AEROPLANE_QUICK_MATCH_WAIT_MS: '1500', AEROPLANE_GRACE_MS: '60000',
    // Every test here opens rooms and sockets from one address, faster than a person would.
    AEROPLANE_ROOMS_PER_ADDRESS_PER_MINUTE: '1000', AEROPLANE_MAX_CONNECTIONS_PER_ADDRESS: '1000',
  });
  browser = await launchBrowser();
});

afterEach(async () => {
  for (const page of opened.splice(0)) await page.context().close().catch(() => {});
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** Creates an online room (with a turn clock of `clockMs` if given) and seats Ann (Red) and Bob (Yellow). */
async function onlineGame(errors, viewport, { clockMs = 0 } = {}) {
  const body = { mode: 'online', ...(clockMs ? { turn_clock_ms: clockMs } : {}) };
  const room = await fetch(`${server.url}/api/rooms`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  }).then((r) => r.json());
  const link = `/#/room/${room.id}`;
  const pages = [];
  for (const name of ['Ann', 'Bob']) {
    const page = await openPage(browser, server.url, errors, name, { viewport });
    await page.goto(link);
    await page.locator('#join-name').fill(name);
    await page.getByTestId('take-seat').click();
    await page.getByTestId('messages').filter({ hasText: /You are (Red|Yellow)/ }).waitFor();
    pages.push(page);
  }
  await pages[0].getByTestId('turn').filter({ hasText: 'Your turn' }).waitFor();
  return { ann: pages[0], bob: pages[1], link, id: room.id };
}

async function localGame(errors, viewport, label = 'local') {
  const page = await openPage(browser, server.url, errors, label, { viewport });
  await startLocalGame(page);
  return page;
}

/** Starts a same-device game on `page` (from the start page) and waits for Red's first roll. */
async function startLocalGame(page) {
  await page.goto('/');
  await page.getByTestId('play-local').waitFor();
  // (A client without named same-device players still gets this far, so each trap's own
  // assertion is what fails there.)
  if (await page.getByTestId('red-name').count()) {
    await page.getByTestId('red-name').fill('Ann');
    await page.getByTestId('yellow-name').fill('Bob');
  }
  await page.getByTestId('play-local').click();
  await page.getByTestId('turn').filter({ hasText: 'Red): roll the die.' }).or(page.getByTestId('turn').filter({ hasText: 'Red: roll the die.' })).waitFor();
}

for (const [size, viewport] of Object.entries({ phone: VIEWPORTS.phone, desktop: VIEWPORTS.desktop })) {
  test(`trap 1 and 8 (${size}): reopening the invite link in the same browser reclaims the seat, and the old tab says why it stopped`, async () => {
    const errors = [];
    const { ann, link } = await onlineGame(errors, viewport);
    const again = await ann.context().newPage();
    await again.goto(link);
    await again.getByTestId('messages').filter({ hasText: 'You are Red' }).waitFor();
    await again.getByTestId('turn').filter({ hasText: 'Your turn: roll the die.' }).waitFor();
    assert.equal(await again.getByTestId('roll').isEnabled(), true);
    await ann.getByTestId('connection-banner').filter({ hasText: 'This seat is now played in another window.' }).waitFor();
    assert.deepEqual(errors, []);
  });

  test(`trap 2 (${size}): every running clock, the strikes, a played-for-you line and the grace countdown are shown`, async () => {
    const errors = [];
    const { ann, bob } = await onlineGame(errors, viewport, { clockMs: 2500 });
    for (const page of [ann, bob]) {
      await page.getByTestId('clock-red').filter({ hasText: /^0:0[1-3]$/ }).waitFor();
      assert.equal(await page.getByTestId('strikes-red').innerText(), '0 of 3 time-outs');
    }
    await ann.getByTestId('clock-warning').filter({ hasText: /Hurry/ }).waitFor();
    // Ann lets the clock run out: the server plays for her, and everyone sees it.
    await ann.getByTestId('messages').filter({ hasText: 'played for you: time ran out' }).waitFor();
    await bob.getByTestId('messages').filter({ hasText: 'played for them: time ran out' }).waitFor();
    await bob.getByTestId('strikes-red').filter({ hasText: '1 of 3 time-outs' }).waitFor();
    // A reload shows the clocks and strikes at once, from the snapshot.
    await bob.reload();
    await bob.getByTestId('strikes-red').filter({ hasText: '1 of 3 time-outs' }).waitFor();
    await bob.locator('.clock.running').first().waitFor();
    // Bob leaves: Ann sees how long his seat is held.
    await bob.context().close();
    await ann.getByTestId('conn-yellow').filter({ hasText: /disconnected: seat held 0:[45]\d/ }).waitFor();
    assert.deepEqual(errors, []);
  });
}

test('trap 2: in a quick match both players see the game start and Red\'s clock waits for Red', async () => {
  const errors = [];
  const one = await openPage(browser, server.url, errors, 'quick-one', { viewport: VIEWPORTS.phone });
  const two = await openPage(browser, server.url, errors, 'quick-two');
  for (const [page, name] of [[one, 'Quinn'], [two, 'Rae']]) {
    await page.goto('/');
    await page.getByTestId('name').fill(name);
  }
  await Promise.all([one.getByTestId('quick-match').click(), two.getByTestId('quick-match').click()]);
  for (const page of [one, two]) {
    await page.getByTestId('messages').filter({ hasText: 'The game has started. Red rolls first.' }).waitFor();
    await page.getByTestId('clock-red').filter({ hasText: /^0:[23]\d$/ }).waitFor();
  }
  assert.deepEqual(errors, []);
});

/**
 * Plays same-device games until a message matches `pattern`; fails after `seconds` of play
 * (bounded by time, not by steps, so that a slow machine only makes it slower). The dice are
 * random, so a game may end without the message: then `again(page)` starts another (a CI run
 * once saw a whole game without a capture).
 */
async function playUntilMessage(page, pattern, again, seconds = 120) {
  for (const deadline = Date.now() + seconds * 1000; Date.now() < deadline;) {
    if (await page.getByTestId('messages').filter({ hasText: pattern }).count()) return;
    const done = await step(page);
    if (done?.kind === 'over') await again(page);
    else if (!done) await page.waitForTimeout(10);
  }
  assert.fail(`no ${pattern} in ${seconds} s of play`);
}

test('trap 3: a capture is announced with its planes, stays on screen, and the captured plane flies home', async () => {
  const errors = [];
  const page = await localGame(errors, VIEWPORTS.desktop, 'capture');
  // What the page shows is recorded from the start of each game (a new game is a new page).
  const watch = () => page.evaluate(() => {
    globalThis.capturedPlanes = new Set();
    new MutationObserver((records) => {
      for (const r of records) if (r.target.classList?.contains('captured')) globalThis.capturedPlanes.add(r.target.dataset.testid);
    }).observe(document.querySelector('svg.board'), { attributes: true, attributeFilter: ['class'], subtree: true });
    globalThis.announcements = [];
    const announce = document.querySelector('[data-testid=announce]');
    new MutationObserver(() => globalThis.announcements.push(announce.textContent))
      .observe(announce, { childList: true, characterData: true, subtree: true });
  });
  await watch();
  await playUntilMessage(page, 'Capture!', async () => {
    await startLocalGame(page);
    await watch();
  });
  const line = await page.getByTestId('messages').locator('li', { hasText: 'Capture!' }).first().innerText();
  const match = line.match(/Capture! (Red|Yellow) plane [1-4] sent (Red|Yellow) planes? ([1-4](, [1-4])*( and [1-4])?) back to base\./);
  assert.ok(match, line);
  // The extra roll that follows does not replace the capture: both are in the announcement.
  const shown = await page.evaluate(() => globalThis.announcements);
  assert.ok(shown.some((text) => text.includes(line) && text.includes('rolls again')), `announced together: ${shown.join(' | ')}`);
  const victim = `plane-${match[2].toLowerCase()}-${Number(match[3][0]) - 1}`;
  assert.ok((await page.evaluate(() => [...globalThis.capturedPlanes])).includes(victim), `${victim} flew home`);
  assert.deepEqual(errors, []);
});

for (const [size, viewport] of Object.entries({ phone: VIEWPORTS.phone, desktop: VIEWPORTS.desktop })) {
  test(`trap 4 (${size}): the die says whose roll it is and is cleared when the turn passes`, async () => {
    const errors = [];
    const page = await localGame(errors, viewport, 'die');
    await page.getByTestId('die-owner').filter({ hasText: 'Ann (Red) to roll' }).waitFor();
    assert.equal(await page.getByTestId('die').innerText(), '–');
    // Red plays until the turn passes; each step checks whose turn it is and acts in one go, so
    // Yellow's own roll is left alone.
    for (let i = 0; i < 400; i += 1) {
      const acted = await page.evaluate(() => {
        const turn = document.querySelector('[data-testid=turn]').innerText;
        if (turn.startsWith('Bob (Yellow)')) return 'done';
        if (!turn.startsWith('Ann (Red)')) return null;
        const button = [document.querySelector('[data-testid=roll]:not([disabled])'), document.querySelector('[data-testid^=move-]:not([disabled])')].find(Boolean);
        button?.click();
        return button ? 'acted' : null;
      });
      if (acted === 'done') break;
      if (!acted) await page.waitForTimeout(10);
    }
    await page.getByTestId('turn').filter({ hasText: 'Bob (Yellow): roll the die.' }).waitFor();
    assert.equal(await page.getByTestId('die').innerText(), '–');
    assert.equal(await page.getByTestId('die-owner').innerText(), 'Bob (Yellow) to roll');
    await page.getByTestId('roll').click();
    await page.getByTestId('die-owner').filter({ hasText: 'Bob (Yellow) rolled' }).or(page.getByTestId('die-owner').filter({ hasText: 'Ann (Red) to roll' })).waitFor();
    assert.deepEqual(errors, []);
  });

  test(`trap 5 (${size}): a hint names the plane and the move as the move buttons do`, async () => {
    const errors = [];
    const page = await openPage(browser, server.url, errors, 'hint', { viewport });
    await page.goto('/');
    await page.getByTestId('bot-colour').selectOption('red');
    await page.getByTestId('play-computer').click();
    await page.getByTestId('messages').filter({ hasText: 'You are Red' }).waitFor();
    assert.ok(await untilChoice(page), 'a plane choice comes');
    const buttons = await page.locator('[data-testid^=move-]').allInnerTexts();
    await page.getByTestId('hint').click();
    const hint = await page.getByTestId('messages').locator('li', { hasText: 'Hint' }).first().innerText();
    assert.ok(buttons.some((text) => hint.startsWith(`Hint (normal): ${text}`)), `${hint} names one of ${buttons.join(' | ')}`);
    assert.deepEqual(errors, []);
  });
}

test('trap 6: no corner planes or Resign before a seat, no Roll or key tips for spectators, no leftovers at game over', async () => {
  const errors = [];
  const ann = await openPage(browser, server.url, errors, 'clutter-ann');
  await ann.goto('/');
  await ann.getByTestId('create-room').click();
  const link = await ann.getByTestId('invite-link').inputValue();
  const bob = await openPage(browser, server.url, errors, 'clutter-bob', { viewport: VIEWPORTS.phone });
  await bob.goto(link);
  await bob.getByTestId('take-seat').waitFor();
  assert.equal(await bob.getByTestId('board').isHidden(), true, 'no board before a seat is taken');
  assert.equal(await bob.getByTestId('resign').isHidden(), true);
  await bob.getByTestId('take-seat').click();
  await ann.getByTestId('turn').filter({ hasText: 'Your turn' }).waitFor();

  const eve = await openPage(browser, server.url, errors, 'clutter-eve', { viewport: VIEWPORTS.phone });
  await eve.goto(link);
  await eve.getByTestId('messages').filter({ hasText: 'You are a spectator' }).waitFor();
  assert.equal(await eve.getByTestId('roll').isHidden(), true, 'spectators have no Roll button');
  assert.equal(await eve.getByTestId('keys').isHidden(), true, 'spectators have no key tips');

  await bob.getByTestId('resign').click();
  await bob.getByTestId('confirm-yes').click();
  for (const page of [ann, bob, eve]) {
    await page.getByTestId('headline').waitFor();
    assert.equal(await page.getByTestId('controls').isHidden(), true, 'no die, Roll button or key tips after the game');
    const text = await page.locator('main').innerText();
    assert.ok((text.match(/Game over/g) ?? []).length <= 1, 'at most one "Game over"');
    const empty = await page.$$eval('.panel > section', (sections) =>
      sections.filter((s) => !s.hidden && s.innerText.trim() === '').length);
    assert.equal(empty, 0, 'no empty boxes');
  }
  assert.equal(await ann.getByTestId('headline').innerText(), 'You won');
  assert.equal(await bob.getByTestId('headline').innerText(), 'You lost');
  assert.deepEqual(errors, []);
});

test('trap 7 and 8: a lone quick match shows progress, asks once, can be cancelled, and never moves a page it left', async () => {
  const errors = [];
  const page = await openPage(browser, server.url, errors, 'lonely', { viewport: VIEWPORTS.phone });
  let requests = 0;
  page.on('request', (request) => { if (request.url().includes('/api/quick-match')) requests += 1; });
  await page.goto('/');
  await page.getByTestId('quick-match').click();
  await page.getByTestId('quick-progress').filter({ hasText: /Looking for an opponent… \d+ s/ }).waitFor();
  await page.getByTestId('start-status').filter({ hasText: 'Nobody else is looking' }).waitFor();
  assert.equal(requests, 1, 'the browser did not send the request again');

  // Cancel while waiting.
  await page.getByTestId('quick-match').click();
  await page.getByTestId('cancel-quick-match').click();
  await page.getByTestId('start-status').filter({ hasText: 'Quick match cancelled.' }).waitFor();
  assert.equal(await page.getByTestId('quick-match').isEnabled(), true);

  // Leave the start page while waiting: a player arriving later is not paired with the page.
  await page.getByTestId('quick-match').click();
  await page.getByTestId('quick-progress').waitFor();
  await page.getByTestId('rules-link').click();
  await page.locator('h1', { hasText: 'How to play' }).waitFor();
  const late = await fetch(`${server.url}/api/quick-match`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Late' }),
  });
  assert.equal(late.status, 409, 'nobody was waiting any more');
  assert.match(page.url(), /#\/rules$/);
  assert.deepEqual(errors.filter((line) => !expectedHttpError(line, 409)), []);
});

test('trap 8: the replay removes its key listener when left', async () => {
  const errors = [];
  const page = await localGame(errors, VIEWPORTS.desktop, 'listener');
  await page.getByTestId('resign').click();
  await page.getByTestId('confirm-yes').click();
  await page.getByTestId('fairness-result').filter({ hasText: /verified/ }).waitFor(); // the record is stored
  await page.getByTestId('replay-link').click();
  await page.getByTestId('replay-position').waitFor();
  await page.locator('header a').first().click();
  await page.getByTestId('create-room').waitFor();
  const cdp = await page.context().newCDPSession(page);
  const { result } = await cdp.send('Runtime.evaluate', { expression: 'document.getElementById("app")' });
  const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: result.objectId });
  assert.equal(listeners.filter((l) => l.type === 'keydown').length, 0);
  assert.deepEqual(errors, []);
});

test('trap 9: a player who typed no seed still plays with a random seed from the browser', async () => {
  const errors = [];
  const page = await localGame(errors, VIEWPORTS.desktop, 'seed');
  await page.getByTestId('resign').click();
  await page.getByTestId('confirm-yes').click();
  await page.getByTestId('fairness-result').filter({ hasText: /verified/ }).waitFor();
  await page.getByTestId('fairness').locator('summary').first().click();
  const seed = page.getByTestId('fairness').locator('dt', { hasText: 'Red seed' }).locator('xpath=following-sibling::dd[1]');
  assert.match(await seed.innerText(), /^"[0-9a-f]{32}"$/);
  assert.deepEqual(errors, []);
});

for (const [size, viewport] of Object.entries(VIEWPORTS)) {
  test(`trap 10 (${size}): leaving a live game asks first`, async () => {
    const errors = [];
    const { ann } = await onlineGame(errors, viewport);
    await ann.locator('header a').first().click();
    await ann.getByTestId('confirm-dialog').waitFor({ timeout: 3000 });
    await ann.getByTestId('confirm-no').click();
    assert.match(ann.url(), /#\/room\//);
    assert.deepEqual(errors, []);
  });

  test(`trap 10 (${size}): only movable planes are tab stops, they are big enough to tap, and their landing squares show without hover`, async () => {
    const errors = [];
    const { ann, bob } = await onlineGame(errors, viewport);
    assert.ok(await untilChoice(ann, [bob]), 'Ann gets a plane to choose');
    const legal = await ann.$$eval('.plane.legal', (planes) => planes.map((p) => p.dataset.testid).sort());
    const focused = new Set();
    await ann.locator('body').focus();
    for (let i = 0; i < 60; i += 1) {
      await ann.keyboard.press('Tab');
      const id = await ann.evaluate(() => document.activeElement?.closest?.('.plane')?.dataset.testid ?? null);
      if (id) focused.add(id);
    }
    assert.deepEqual([...focused].sort(), legal, 'only the movable planes are tab stops');
    for (const box of await ann.$$eval('.plane.legal', (planes) => planes.map((p) => p.getBoundingClientRect().width))) {
      assert.ok(box >= 24, `a movable plane is ${box} px wide`);
    }
    assert.equal(await ann.locator('.target').count(), legal.length, 'every landing square shows without hover');
    assert.deepEqual(errors, []);
  });

  test(`trap 10 (${size}): with the board in view, Roll and the move buttons are on screen too`, async () => {
    const errors = [];
    const { ann, bob } = await onlineGame(errors, viewport);
    const inView = async (locator) => {
      const box = await locator.boundingBox();
      return Boolean(box && box.y >= 0 && box.y + box.height <= viewport.height);
    };
    await ann.getByTestId('board').evaluate((board) => board.scrollIntoView({ block: 'end' }));
    assert.ok(await inView(ann.getByTestId('roll')), 'Roll is on screen');
    assert.ok(await untilChoice(ann, [bob]), 'Ann gets a plane to choose');
    await ann.getByTestId('board').evaluate((board) => board.scrollIntoView({ block: 'end' }));
    for (const button of await ann.locator('[data-testid^=move-]').all()) {
      assert.ok(await inView(button), `${await button.innerText()} is on screen`);
    }
    assert.ok(await inView(ann.getByTestId('offer-draw')), 'the draw offer button is on screen');
    assert.deepEqual(errors, []);
  });
}

test('trap 10: a draw offer waits for an answer, and rolling asks before it declines', async () => {
  const errors = [];
  const { ann, bob } = await onlineGame(errors, VIEWPORTS.phone);
  await ann.getByTestId('offer-draw').click();
  await bob.getByTestId('accept-draw').waitFor();
  await bob.waitForTimeout(4500); // longer than the 4 s after which the offer used to vanish
  assert.equal(await bob.getByTestId('accept-draw').isVisible(), true, 'the offer is still there');
  for (let i = 0; i < 400 && !(await bob.getByTestId('roll').isEnabled()); i += 1) {
    if (!(await step(ann))) await bob.waitForTimeout(10);
  }
  await bob.getByTestId('roll').click();
  await bob.getByTestId('confirm-dialog').filter({ hasText: 'Rolling declines the draw offer' }).waitFor({ timeout: 3000 });
  await bob.getByTestId('confirm-no').click();
  assert.equal(await bob.getByTestId('accept-draw').isVisible(), true, 'not declined');
  assert.deepEqual(errors, []);
});
