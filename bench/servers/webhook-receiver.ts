// The receiver of the outbox figure: a trivial node:http server that reads and parses every
// POST under /ok/ and answers 204 at once, noting when each question's delivery arrived (by
// the question's id, epoch ms); POSTs to /hang are read and never answered (a hung target).
// GET /stats returns {count, arrivals}; GET /count returns {count} alone (cheap enough to poll
// while deliveries arrive); POST /reset forgets them.
import http from 'node:http';

let arrivals: Record<string, number> = {};
let count = 0;
const hung: http.ServerResponse[] = [];

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/health') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return;
  }
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count, arrivals }));
    return;
  }
  if (req.method === 'GET' && req.url === '/count') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count }));
    return;
  }
  if (req.method === 'POST' && req.url === '/reset') {
    arrivals = {};
    count = 0;
    res.writeHead(204).end();
    return;
  }
  if (req.method === 'POST' && req.url?.startsWith('/hang')) {
    req.resume();
    hung.push(res);
    return;
  }
  if (req.method === 'POST' && req.url?.startsWith('/ok/')) {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const id = (JSON.parse(body) as { question?: { id?: string } }).question?.id ?? `#${count}`;
      arrivals[id] = performance.timeOrigin + performance.now();
      count++;
      res.writeHead(204).end();
    });
    return;
  }
  res.writeHead(404).end();
});

server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  for (const r of hung) r.destroy();
  server.close(() => process.exit(0));
});
