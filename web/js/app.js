// The client's entry point: a hash router over the views.
//
//   #/               the start page
//   #/rules          how to play
//   #/room/<id>      a live room (seat, same device or spectator); the invite link; a table
//                    room (an edition, or three or four players) gets the table view
//   #/game/<id>      a finished game: result, move list, replay and fairness check
//   #/players/<id>   a player's profile: rating, record, recent games
//   #/leaderboard    the rated players, best first
//   #/position/<notation>  any position of any edition (url-encoded table notation) as a board
//
// Leaving a live game through the site's own links asks first.

import { pruneSeats } from './api.js';
import { confirmDialog, h } from './dom.js';
import { mountLeaderboard } from './views/leaderboard.js';
import { mountPosition } from './views/position.js';
import { mountProfile } from './views/profile.js';
import { mountReplay } from './views/replay.js';
import { mountRules } from './views/rules.js';
import { mountAnyRoom } from './views/table-room.js';
import { mountStart } from './views/start.js';

const root = document.getElementById('app');
let unmount = () => {};
let pendingIntent = null;

/** Navigates to `route` (e.g. `/room/<id>`); `intent` is handed to the next view only. */
function go(route, intent = null) {
  pendingIntent = intent;
  if (location.hash === `#${route}`) route_();
  else location.hash = route;
}

function route_() {
  unmount();
  const intent = pendingIntent ?? {};
  pendingIntent = null;
  const [, view, id] = (location.hash.replace(/^#/, '') || '/').split('/');
  const query = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const itemId = id?.split('?')[0];
  if (view === 'position') {
    // The notation is everything after the view's name, still url-encoded.
    unmount = mountPosition(root, location.hash.replace(/^#\/position\/?/, ''));
  } else if (view === 'room' && itemId) {
    unmount = mountAnyRoom(root, itemId, { ...intent, watch: intent.watch || query.has('watch') }, go);
  } else if (view === 'game' && itemId) {
    unmount = mountReplay(root, itemId);
  } else if (view === 'players' && itemId) {
    unmount = mountProfile(root, itemId);
  } else if (view?.split('?')[0] === 'leaderboard') {
    unmount = mountLeaderboard(root);
  } else if (view?.split('?')[0] === 'rules') {
    unmount = mountRules(root);
  } else if (!view) {
    unmount = mountStart(root, go);
  } else {
    root.replaceChildren(h('p', {}, 'Nothing here. ', h('a', { href: '#/' }, 'Start page')));
    unmount = () => {};
  }
  root.focus({ preventScroll: true });
}

// The header's links leave the page's view: in a live game, ask first.
document.querySelector('header.top')?.addEventListener('click', async (event) => {
  const link = event.target.closest('a[href^="#"]');
  if (!link || !unmount.confirmLeave?.()) return;
  event.preventDefault();
  const leave = await confirmDialog('Leave this game? Your seat is held for a while, then the game is lost.', 'Leave', 'Stay');
  if (leave) go(link.getAttribute('href').slice(1));
});

pruneSeats();
window.addEventListener('hashchange', route_);
route_();
