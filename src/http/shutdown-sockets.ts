// Shutdown must never wait on a socket that carries nothing. Node's closeIdleConnections (what
// Fastify's forceCloseConnections: 'idle' calls) skips two kinds: a connection that has not sent
// a request yet (Node counts it as busy so the headers timeout can reach it; fetch clients open
// such spares, e.g. next to an aborted stream), and a keep-alive connection whose response ends
// only after closing began (a held call the engine ends at stop). Either kept close() waiting
// until the client dropped it (undici: 4 s) or the 72 s keep-alive ran out.
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ShutdownSockets {
  /** From now on, end each connection once it has no response in flight; drop the idle ones now. */
  closing(): void;
}

export function createShutdownSockets(server: Server): ShutdownSockets {
  /** Every open connection, with how many of its responses are unfinished. */
  const inFlight = new Map<Socket, number>();
  let closing = false;

  const endWhenIdle = (socket: Socket): void => {
    if (closing && inFlight.get(socket) === 0) socket.end(() => socket.destroy());
  };

  // One listener each, shared by every connection and response (`this` is the emitter): a
  // closure per socket and per request would stay for as long as a held call is held.
  function forget(this: Socket): void {
    inFlight.delete(this);
  }
  function responded(this: ServerResponse): void {
    const socket = this.req.socket;
    if (!inFlight.has(socket)) return;
    inFlight.set(socket, (inFlight.get(socket) ?? 1) - 1);
    endWhenIdle(socket);
  }

  server.on('connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.on('close', forget);
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    res.on('close', responded);
  });

  return {
    closing() {
      closing = true;
      for (const socket of inFlight.keys()) endWhenIdle(socket);
    },
  };
}
