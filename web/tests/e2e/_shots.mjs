import { launchBrowser, openPage, playUntilOver, startServer } from './harness.mjs';
const server = await startServer();
const browser = await launchBrowser();
const errors = [];
try {
  const page = await openPage(browser, server.url, errors, 'p', { viewport: { width: 390, height: 844 }, context: { deviceScaleFactor: 1, isMobile: true, hasTouch: true } });
  await page.goto('/');
  await page.screenshot({ path: '/tmp/m-start.png', fullPage: true });
  await page.getByTestId('play-local').click();
  await playUntilOver([page], { limit: 60 });
  await page.screenshot({ path: '/tmp/m-room.png', fullPage: true });
  await page.getByTestId('resign').click();
  await page.screenshot({ path: '/tmp/m-dialog.png' });
  await page.getByTestId('confirm-yes').click();
  await page.getByTestId('fairness-result').filter({ hasText: /verified/i }).waitFor();
  await page.screenshot({ path: '/tmp/m-over.png', fullPage: true });
  await page.getByTestId('replay-link').click();
  await page.getByTestId('replay-position').waitFor();
  await page.getByTestId('replay-forward').click();
  await page.getByTestId('fairness-result').filter({ hasText: /verified/i }).waitFor();
  await page.setViewportSize({ width: 1200, height: 900 });
  await page.screenshot({ path: '/tmp/d-replay.png', fullPage: true });
} catch (e) { console.log(e.message); }
console.log(errors);
await browser.close(); await server.stop();
