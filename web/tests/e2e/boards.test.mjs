// The boards of the editions in the position viewer (#/position/<notation>): a four-player
// flights position and a three-player classic position with stacks, their planes counted per
// colour, the stack tokens with their counts, no plane hidden by another on a phone, a stack
// chosen and moved as one, the ranking of seats that are out, a refused notation, the rules
// page's example boards; axe on every page, and the screenshots `board-flights-4p` and
// `board-classic-3p` (desktop and phone) in `target/e2e-screens/`, or `docs/screenshots/` with
// UPDATE_SCREENSHOT=1.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { REPO, VIEWPORTS, axeViolations, launchBrowser, openPage, startServer } from './harness.mjs';

let server;
let browser;
const DIR = process.env.UPDATE_SCREENSHOT ? join(REPO, 'docs', 'screenshots') : join(REPO, 'target', 'e2e-screens');

const FLIGHTS_4P = 'flights red:b,3,3,f green:16,b,b,30 yellow:b,f,55,f blue:40,40,40,b red 6 1 -';
const CLASSIC_3P = 'classic red:12,12,53,b yellow:40,40,40,f blue:2,b,b,b red 2 0 -';

before(async () => {
  mkdirSync(DIR, { recursive: true });
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function openPosition(page, notation) {
  await page.goto(`/#/position/${encodeURIComponent(notation)}`);
  await page.locator('[data-testid=position-board] svg.board').waitFor();
}

/** The planes drawn (not hidden under a stack's token) per colour. */
function visiblePlanes(page) {
  return page.evaluate(() => {
    const counts = {};
    for (const plane of document.querySelectorAll('[data-testid=position-board] .plane')) {
      if (getComputedStyle(plane).display === 'none') continue;
      counts[plane.dataset.colour] = (counts[plane.dataset.colour] ?? 0) + 1;
    }
    return counts;
  });
}

/** Pairs of drawn planes whose discs overlap by more than a sliver, as readable lines. */
function overlappingPlanes(page) {
  return page.evaluate(() => {
    const discs = [...document.querySelectorAll('[data-testid=position-board] .plane')]
      .filter((plane) => getComputedStyle(plane).display !== 'none')
      .map((plane) => {
        const box = plane.querySelector('.body').getBoundingClientRect();
        return { id: plane.dataset.testid, x: box.x + box.width / 2, y: box.y + box.height / 2, r: box.width / 2 };
      });
    const found = [];
    for (let i = 0; i < discs.length; i += 1) {
      for (let j = i + 1; j < discs.length; j += 1) {
        const [a, b] = [discs[i], discs[j]];
        if (Math.hypot(a.x - b.x, a.y - b.y) < (a.r + b.r) * 0.85) found.push(`${a.id} overlaps ${b.id}`);
      }
    }
    return { found, smallest: Math.min(...discs.map((d) => d.r * 2)) };
  });
}

async function shot(page, name) {
  await page.screenshot({ path: join(DIR, `${name}.png`), fullPage: true });
  assert.deepEqual(await axeViolations(page), [], `no serious axe finding on ${name}`);
}

test('a four-player flights position: four colours, the coloured ring, jumps, flight lines, every plane drawn', async () => {
  const errors = [];
  const page = await openPage(browser, server.url, errors, 'flights-4p', { viewport: VIEWPORTS.desktop });
  await openPosition(page, FLIGHTS_4P);
  // Yellow's two planes at the centre are one counted token; every other plane is drawn.
  assert.deepEqual(await visiblePlanes(page), { red: 4, green: 4, yellow: 3, blue: 4 });
  const board = page.getByTestId('position-board');
  assert.equal(await board.locator('.base.inactive').count(), 0, 'every base is seated');
  assert.equal(await board.locator('rect[data-ring]').count(), 52);
  const ringColours = await board.locator('rect[data-ring]').evaluateAll((squares) =>
    squares.slice(0, 5).map((s) => s.getAttribute('class').match(/fill-(\w+)/)[1]));
  assert.deepEqual(ringColours, ['red', 'green', 'yellow', 'blue', 'red'], 'the colours repeat every 4 squares');
  assert.equal(await board.locator('.jump-mark').count(), 40, 'ten jump squares per colour');
  assert.equal(await board.locator('.flight-line').count(), 4, 'a dashed flight line per colour');
  assert.equal(await board.locator('.lane').first().locator('rect').count(), 6, 'a runway of six squares');
  // Red's two planes on square 3 and blue's three on 40 are all drawn, side by side.
  assert.equal(await board.locator('.plane-red[data-position="3"]').count(), 2);
  assert.equal(await board.locator('.plane-blue[data-position="40"]').count(), 3);
  assert.equal(await board.locator('.stack-count').count(), 1, 'flights has no stacks, only the centre is counted');
  assert.equal(await board.getByTestId('stack-yellow').getAttribute('data-count'), '2');
  // Red may move for its 6: every plane but the one at the centre is marked movable.
  assert.equal(await board.locator('.plane-red.movable').count(), 3);
  await page.getByTestId('position-summary').filter({ hasText: 'flights, 4 players. Red to move a plane for a 6' }).waitFor();
  await page.getByTestId('position-ranking').filter({ hasText: 'Nobody is out yet.' }).waitFor();
  const { found } = await overlappingPlanes(page);
  assert.deepEqual(found, [], 'no plane hides another');
  await shot(page, 'board-flights-4p');
  assert.deepEqual(errors, []);
});

for (const [size, viewport] of Object.entries({ desktop: VIEWPORTS.desktop, phone: VIEWPORTS.phone })) {
  test(`a three-player classic position with stacks (${size}): one token per stack with its count, green dimmed`, async () => {
    const errors = [];
    const page = await openPage(browser, server.url, errors, `classic-3p-${size}`, { viewport });
    await openPosition(page, CLASSIC_3P);
    // Red: the stack of two on 12 is one token, plus 53 and the hangar; yellow: its stack of
    // three on 40 and its plane at the centre; blue: four; green does not play.
    assert.deepEqual(await visiblePlanes(page), { red: 3, yellow: 2, blue: 4 });
    const board = page.getByTestId('position-board');
    assert.equal(await board.locator('.base-green.inactive').count(), 1);
    assert.equal(await board.getByTestId('stack-red').getAttribute('data-count'), '2');
    assert.equal(await board.getByTestId('stack-yellow').getAttribute('data-count'), '3');
    assert.equal(await board.getByTestId('stack-red').innerHTML().then((html) => html.includes('>2<')), true);
    assert.match(await board.locator('.plane-red.stack').getAttribute('aria-label'), /^Red stack of planes 1 and 2, on square 12/);
    assert.match(await board.locator('.plane-yellow.stack').getAttribute('aria-label'), /^Yellow stack of planes 1, 2 and 3, on square 40/);
    const { found, smallest } = await overlappingPlanes(page);
    assert.deepEqual(found, [], 'no plane hides another');
    assert.ok(smallest >= 9, `the smallest plane is ${smallest.toFixed(1)} px wide`);
    await shot(page, size === 'desktop' ? 'board-classic-3p' : 'board-classic-3p-phone');
    assert.deepEqual(errors, []);
  });
}

test('a classic stack is chosen as one token and moved as one; a stack sent home comes apart; a walk, jump and shortcut is animated to its end', async () => {
  const errors = [];
  const page = await openPage(browser, server.url, errors, 'stack', { viewport: VIEWPORTS.desktop, reducedMotion: 'no-preference' });
  await page.goto('/#/rules');
  await page.locator('h1', { hasText: 'How to play' }).waitFor();
  const result = await page.evaluate(async () => {
    const { BoardView } = await import('/js/board.js');
    const container = document.createElement('div');
    document.querySelector('main').append(container);
    const chosen = [];
    const board = new BoardView(container, {
      ruleset: 'classic', colours: ['red', 'yellow', 'blue'], onSelect: (colour, plane) => chosen.push([colour, plane]),
    });
    const planes = { red: [12, 12, 'base', 'base'], yellow: [33, 'base', 'base', 'base'], blue: ['base', 'base', 'base', 'base'] };
    board.setState({ planes, toAct: 'red', roll: 2, legal: [0, 1, 2, 3], selectable: true });
    const legalTokens = container.querySelectorAll('.plane-red.legal').length;
    const targets = container.querySelectorAll('.target').length;
    container.querySelector('.plane-red.stack').dispatchEvent(new MouseEvent('click', { bubbles: true }));
    const hidden = container.querySelector('[data-testid=plane-red-1]');
    const hiddenFocusable = hidden.hasAttribute('tabindex');
    // 12 → 14, then 14 is no jump square; yellow's plane at 33 (ring 7) is passed, not hit.
    await board.animateSteps('red', [0, 1], [{ kind: 'walk', from: 12, to: 14 }]);
    const lead = container.querySelector('[data-testid=plane-red-0]').getAttribute('transform');
    const follower = hidden.getAttribute('transform');
    // Yellow lands on the stack: both red planes fly home and are drawn again, one by one.
    await board.animateSteps('yellow', [0], [{ kind: 'walk', from: 33, to: 40 }, { kind: 'sent_home', colour: 'red', planes: [0, 1] }]);
    const shownAgain = getComputedStyle(hidden).display !== 'none';
    // A move of walk, jump and shortcut ends on the shortcut's landing square (progress 32).
    const { moveSteps, positionPoint } = await import('/js/geometry.js');
    board.setState({ planes: { ...planes, red: ['base', 'base', 13, 'base'] }, toAct: 'red' });
    const steps = moveSteps('red', 13, 3, 'classic');
    await board.animateSteps('red', [2], steps);
    const landed = container.querySelector('[data-testid=plane-red-2]').getAttribute('transform');
    const end = positionPoint('red', 32, 2, 'classic');
    const expected = `translate(${end.x.toFixed(3)} ${end.y.toFixed(3)})`;
    board.setState({ planes: { ...planes, red: ['base', 'base', 'base', 'base'], yellow: [40, 'base', 'base', 'base'] }, toAct: 'red' });
    return {
      legalTokens, targets, chosen, hiddenFocusable, lead, follower, shownAgain, kinds: steps.map((s) => s.kind), landed, expected,
      stacks: container.querySelectorAll('.stack-count').length,
    };
  });
  assert.equal(result.legalTokens, 3, 'the stack is one legal token, beside the two hangar planes');
  assert.equal(result.targets, 3, 'one target for the stack');
  assert.deepEqual(result.chosen, [['red', 0]], 'choosing the token chooses the stack');
  assert.equal(result.hiddenFocusable, false, 'the plane under the token is no tab stop');
  assert.equal(result.lead, result.follower, 'the stack moved together');
  assert.equal(result.shownAgain, true, 'a stack sent home comes apart');
  assert.equal(result.stacks, 0);
  assert.deepEqual(result.kinds, ['walk', 'jump', 'flight']);
  assert.equal(result.landed, result.expected, 'the shortcut is flown to its landing square');
  assert.deepEqual(errors, []);
});

test('the viewer ranks the seats that are out and refuses a line that is not a position', async () => {
  const errors = [];
  const page = await openPage(browser, server.url, errors, 'ranking', { viewport: VIEWPORTS.phone });
  await openPosition(page, 'classic red=1:f,f,f,f yellow:40,b,b,f blue:2,b,b,b yellow - 0 -');
  await page.getByTestId('position-ranking').filter({ hasText: '1st: Red (finished)' }).waitFor();
  assert.equal(await page.getByTestId('stack-red').getAttribute('data-count'), '4', 'four red planes at the centre, counted');
  await page.getByTestId('position-input').fill('flights red:b,b,b,b green:b,b,b,b yellow:b,b,b,b red - 0 -');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.getByTestId('position-error').filter({ hasText: 'green does not play with 3 players' }).waitFor();
  assert.deepEqual(await axeViolations(page), [], 'no serious axe finding on the refusal');
  assert.deepEqual(errors, []);
});

test('the rules page shows an example board per edition, each opening in the viewer', async () => {
  const errors = [];
  const page = await openPage(browser, server.url, errors, 'rules-editions', { viewport: VIEWPORTS.desktop });
  await page.goto('/#/rules');
  for (const id of ['plyyard', 'flights', 'classic', 'classic-house']) {
    await page.getByTestId(`example-${id}`).locator('svg.board').waitFor();
  }
  assert.equal(await page.getByTestId('example-classic').locator('.plane-yellow.stack').count(), 1);
  assert.deepEqual(await axeViolations(page), [], 'no serious axe finding on the rules page');
  await page.getByTestId('example-flights').locator('xpath=..').getByRole('link', { name: 'Open in the position viewer' }).click();
  await page.getByTestId('position-summary').filter({ hasText: 'flights, 4 players. Red to move a plane for a 3' }).waitFor();
  assert.deepEqual(await axeViolations(page), [], 'no serious axe finding in the viewer');
  assert.deepEqual(errors, []);
});
