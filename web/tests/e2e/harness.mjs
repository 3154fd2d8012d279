// Shared pieces of the browser tests: the real server on a free port, Debian's Chromium driven by
// playwright-core, pages that record every console error, and helpers that play a game.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

export const WEB_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const REPO = resolve(WEB_DIR, '..');

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** The server binary: `AEROPLANE_SERVER_BIN`, or built now with cargo (a no-op when fresh). */
export function serverBinary() {
  if (process.env.AEROPLANE_SERVER_BIN) return process.env.AEROPLANE_SERVER_BIN;
  const build = spawnSync('cargo', ['build', '--quiet', '-p', 'aeroplane-server', '--bin', 'aeroplane-server'], {
    cwd: REPO, stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (build.status !== 0) throw new Error('cargo build -p aeroplane-server failed');
  const target = process.env.CARGO_TARGET_DIR ? resolve(REPO, process.env.CARGO_TARGET_DIR) : join(REPO, 'target');
  const binary = join(target, 'debug', 'aeroplane-server');
  if (!existsSync(binary)) throw new Error(`no server binary at ${binary}`);
  return binary;
}

async function waitForHttp(url, child, output) {
  const deadline = Date.now() + 30000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${output.join('')}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the server did not answer ${url} in 30 s:\n${output.join('')}`);
}

/**
 * Starts the real server on a free port with its own data folder; `env` adds settings.
 * Resolves to {url, stop()}.
 */
export async function startServer(env = {}) {
  const binary = serverBinary();
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'aeroplane-e2e-'));
  mkdirSync(join(dataDir, 'data'), { recursive: true });
  const output = [];
  const inherited = { ...process.env };
  delete inherited.DATABASE_URL; // finished games go to the SQLite file in the fresh data folder
  const child = spawn(binary, [], {
    cwd: dataDir,
    env: {
      ...inherited,
      AEROPLANE_LISTEN: `127.0.0.1:${port}`,
      AEROPLANE_DATA_DIR: join(dataDir, 'data'),
      RUST_LOG: process.env.RUST_LOG || 'warn',
      // Every page of a test comes from 127.0.0.1, and every new browser context spends one of
      // the address's room creations on its guest identity (POST /api/players): allow plenty.
      AEROPLANE_ROOMS_PER_ADDRESS_PER_MINUTE: '1000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => output.push(chunk.toString()));
  child.stderr.on('data', (chunk) => output.push(chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/health`, child, output);
    const page = await fetch(`${url}/`).then((r) => (r.ok ? r.text() : ''), () => '');
    if (!page.includes('js/app.js')) throw new Error('the server does not serve the browser client at /');
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url,
    output,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Debian's Chromium, headless, with a fresh profile per browser context. */
export function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/**
 * A page in a new context (its own storage) whose console errors and uncaught exceptions are
 * collected in `errors`, each prefixed by `label`.
 */
export async function openPage(browser, baseURL, errors, label, options = {}) {
  const context = await browser.newContext({
    baseURL,
    viewport: options.viewport ?? { width: 1200, height: 900 },
    reducedMotion: options.reducedMotion ?? 'reduce',
    ...options.context,
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${label}: console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`${label}: uncaught: ${error.message}`));
  page.setDefaultTimeout(15000);
  return page;
}

/**
 * Takes one step for this page if it may act: rolls, or moves a legal plane. `how` picks the way
 * a plane is chosen: 'button' (the move list), 'board' (click the plane in the SVG), 'focus'
 * (focus the plane in the SVG, as Tab does, and press Enter) or 'key' (press its number). Returns what it did, or null.
 */
export async function step(page, how = 'button') {
  const action = await page.evaluate(() => {
    if (document.querySelector('[data-testid=game-over]:not([hidden])')) return { kind: 'over' };
    const roll = document.querySelector('[data-testid=roll]');
    if (roll && !roll.disabled) {
      roll.click();
      return { kind: 'roll' };
    }
    const moves = [...document.querySelectorAll('[data-testid^=move-]:not([disabled])')];
    if (moves.length > 0) {
      const choice = moves[Math.floor(Math.random() * moves.length)];
      return { kind: 'move', plane: Number(choice.dataset.testid.slice(5)) };
    }
    return null;
  });
  if (action?.kind !== 'move') return action;
  try {
    if (how === 'focus') {
      await page.locator(`.plane.legal[data-plane="${action.plane}"]`).focus({ timeout: 2000 });
      await page.keyboard.press('Enter');
    } else if (how === 'board') {
      const plane = page.locator(`.plane.legal[data-plane="${action.plane}"]`);
      await plane.click({ timeout: 2000, force: true });
    } else if (how === 'key') {
      await page.keyboard.press(String(action.plane + 1));
    } else {
      await page.getByTestId(`move-${action.plane}`).click({ timeout: 2000 });
    }
  } catch {
    return null; // the choice went away (already sent, or the state moved on)
  }
  return action;
}

/** What a page shows, for failure messages. */
export async function describePage(page) {
  return page.evaluate(() => {
    const text = (id) => document.querySelector(`[data-testid=${id}]`)?.innerText ?? '(none)';
    return `turn: ${text('turn')} | die: ${text('die')} | messages: ${text('messages').split('\n').slice(0, 6).join(' / ')}`;
  });
}

/**
 * Plays with every page until one shows the game-over panel or `limit` steps were taken; fails
 * when nobody can act for `stallMs`.
 */
export async function playUntilOver(pages, { limit = 4000, ways = [], onStep = null, stallMs = 15000 } = {}) {
  let steps = 0;
  let lastAction = Date.now();
  for (;;) {
    let acted = false;
    for (let i = 0; i < pages.length; i += 1) {
      const done = await step(pages[i], ways[i] ?? 'button');
      if (done?.kind === 'over') return steps;
      if (done) {
        acted = true;
        steps += 1;
        lastAction = Date.now();
        if (onStep) await onStep(steps);
      }
    }
    if (steps >= limit) return steps;
    if (!acted) {
      if (Date.now() - lastAction > stallMs) {
        const states = await Promise.all(pages.map(describePage));
        throw new Error(`nobody could act for ${stallMs} ms after ${steps} steps:\n${states.join('\n')}`);
      }
      await pages[0].waitForTimeout(15);
    }
  }
}

/** Rolls for these pages (others act on their own) until `page` has a plane to choose. */
export async function untilChoice(page, others = [], { limit = 400 } = {}) {
  for (let i = 0; i < limit; i += 1) {
    if ((await page.locator('[data-testid^=move-]:not([disabled])').count()) > 0) return true;
    const rolled = await page.evaluate(() => {
      const roll = document.querySelector('[data-testid=roll]');
      if (roll && !roll.disabled) { roll.click(); return true; }
      return false;
    });
    for (const other of others) await step(other);
    if (!rolled) await page.waitForTimeout(20);
  }
  return false;
}

/**
 * Runs axe-core in the page; returns the serious and critical violations as readable lines.
 */
export async function axeViolations(page) {
  await page.addScriptTag({ path: join(WEB_DIR, 'node_modules', 'axe-core', 'axe.min.js') });
  const violations = await page.evaluate(async () => {
    const result = await globalThis.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.join(', ')}`);
}

/** Phone, portrait tablet and desktop viewports. */
export const VIEWPORTS = {
  phone: { width: 390, height: 844 },
  tablet: { width: 768, height: 1024 },
  desktop: { width: 1200, height: 900 },
};

/** Whether a console error is the browser's note on a refused request the page expected. */
export function expectedHttpError(line, status) {
  return line.includes(`status of ${status}`);
}
