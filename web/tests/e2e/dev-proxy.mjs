// Development aid only (E2E_PROXY=1): serves web/ from disk and forwards /api and /ws to a server
// that does not serve the client itself yet, so the browser sees one origin. The tests use the
// server's own `/` whenever it serves the client; see web/SERVING.md.

import { createServer, request } from 'node:http';
import { connect } from 'node:net';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const TYPES = { '.html': 'text/html; charset=utf-8', '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

export function startDevProxy(webDir, target) {
  const upstream = new URL(target);
  const server = createServer(async (req, res) => {
    if (req.url.startsWith('/api/')) {
      const forward = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => { res.writeHead(502); res.end(); });
      req.pipe(forward);
      return;
    }
    const path = normalize(req.url.split('?')[0] === '/' ? '/index.html' : req.url.split('?')[0]);
    try {
      const body = await readFile(join(webDir, path));
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  server.on('upgrade', (req, socket, head) => {
    const out = connect(Number(upstream.port), upstream.hostname, () => {
      const headers = Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`).join('\r\n');
      out.write(`${req.method} ${req.url} HTTP/1.1\r\n${headers}\r\n\r\n`);
      if (head.length) out.write(head);
      out.pipe(socket);
      socket.pipe(out);
    });
    out.on('error', () => socket.destroy());
    socket.on('error', () => out.destroy());
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}
