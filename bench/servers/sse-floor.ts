// The fan-out floor: a trivial node:http server that keeps every GET /events response open and,
// on POST /fire, writes the request body as one SSE data line to all of them. No framework, no
// GraphQL, no store: what broadcasting one line to N sockets costs on this machine.
import http from 'node:http';

const streams = new Set<http.ServerResponse>();

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/health') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return;
  }
  if (req.method === 'GET' && req.url === '/events') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(':\n\n');
    streams.add(res);
    req.on('close', () => streams.delete(res));
    return;
  }
  if (req.method === 'POST' && req.url === '/fire') {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const line = `data: ${body}\n\n`;
      for (const s of streams) s.write(line);
      res.writeHead(204).end();
    });
    return;
  }
  res.writeHead(404).end();
});

server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  for (const s of streams) s.destroy();
  server.close(() => process.exit(0));
});
