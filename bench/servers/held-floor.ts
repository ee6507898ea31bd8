// The floor of a held call: a trivial node:http server that holds every POST /graphql the way a
// held askUser is held (the body read and parsed, the response kept open beside a timer for the
// hold), and answers them all with a small JSON body on POST /release. No framework, no
// GraphQL, no store: what keeping one request open costs in this Node on this machine.
import http from 'node:http';

const HOLD_MS = 120_000;
const held = new Set<{ res: http.ServerResponse; timer: NodeJS.Timeout }>();

function answer(res: http.ServerResponse, status: string): void {
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(`{"data":{"askUser":{"status":"${status}"}}}`);
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/health') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return;
  }
  if (req.method === 'GET' && req.url === '/count') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(String(held.size));
    return;
  }
  if (req.method === 'POST' && req.url === '/graphql') {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const input = (JSON.parse(body) as { variables?: { input?: unknown } }).variables?.input;
      if (input === undefined) {
        res.writeHead(400).end();
        return;
      }
      const hold = {
        res,
        timer: setTimeout(() => {
          held.delete(hold);
          answer(res, 'TIMED_OUT');
        }, HOLD_MS),
      };
      held.add(hold);
      // The response's close: the request's own fires as soon as its body has been read.
      res.on('close', () => {
        clearTimeout(hold.timer);
        held.delete(hold);
      });
    });
    return;
  }
  if (req.method === 'POST' && req.url === '/release') {
    for (const h of held) {
      clearTimeout(h.timer);
      answer(h.res, 'ANSWERED');
    }
    held.clear();
    res.writeHead(204).end();
    return;
  }
  res.writeHead(404).end();
});

server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  for (const h of held) h.res.destroy();
  server.close(() => process.exit(0));
});
