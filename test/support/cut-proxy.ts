// A loopback TCP proxy in front of a test server whose sockets a test can cut at will: what a
// load balancer restart, a dropped Wi-Fi or a NAT timeout does to a client's connections.
import net from 'node:net';

export interface CutProxy {
  /** The proxy's base URL (http://127.0.0.1:<port>). */
  url: string;
  /** Connections accepted so far. */
  accepted(): number;
  /** Destroys every open connection, on both sides; new ones are accepted as before. */
  cut(): void;
  close(): Promise<void>;
}

export async function startCutProxy(target: string): Promise<CutProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<net.Socket>();
  let accepted = 0;
  const track = (s: net.Socket): void => {
    open.add(s);
    s.once('close', () => open.delete(s));
    // A cut socket errors on the other side's pending writes: expected, not a failure.
    s.on('error', () => s.destroy());
  };
  const server = net.createServer((client) => {
    accepted++;
    const upstream = net.connect(Number(port), hostname);
    track(client);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${own}`,
    accepted: () => accepted,
    cut() {
      for (const s of open) s.destroy();
    },
    close() {
      for (const s of open) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
