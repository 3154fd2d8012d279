import { launchBrowser, openPage, playUntilOver, startServer } from './harness.mjs';
const server = await startServer();
const browser = await launchBrowser();
const errors = [];
try {
  const ann = await openPage(browser, server.url, errors, 'ann', { reducedMotion: 'no-preference' });
  ann.on('pageerror', (e) => console.log('STACK', e.stack));
  await ann.goto('/');
  await ann.getByTestId('name').fill('Ann');
  await ann.getByTestId('create-room').click();
  const link = await ann.getByTestId('invite-link').inputValue();
  const bob = await openPage(browser, server.url, errors, 'bob');
  await bob.goto(link);
  await bob.locator('#join-name').fill('Bob');
  await bob.getByTestId('take-seat').click();
  await playUntilOver([ann, bob], { limit: 60, ways: ['board', 'key'], stallMs: 5000 });
  console.log('ok');
} catch (e) { console.log(e.message); }
console.log(errors);
await browser.close(); await server.stop();
