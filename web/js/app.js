// The client's entry point: a hash router over three views.
//
//   #/               the start page
//   #/room/<id>      a live room (seat, same device or spectator); the invite link
//   #/game/<id>      a finished game: result, fairness check and replay

import { h } from './dom.js';
import { mountReplay } from './views/replay.js';
import { mountRoom } from './views/room.js';
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
  const roomId = id?.split('?')[0];
  if (view === 'room' && roomId) {
    unmount = mountRoom(root, roomId, { ...intent, watch: intent.watch || query.has('watch') });
  } else if (view === 'game' && roomId) {
    unmount = mountReplay(root, roomId);
  } else if (!view) {
    unmount = mountStart(root, go);
  } else {
    root.replaceChildren(h('p', {}, 'Nothing here. ', h('a', { href: '#/' }, 'Start page')));
    unmount = () => {};
  }
  root.focus({ preventScroll: true });
}

window.addEventListener('hashchange', route_);
route_();
