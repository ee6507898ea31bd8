// The Host check against DNS rebinding (API.md §1, "Host check"). A web page on a name its owner
// points at 127.0.0.1 is, to the browser, same-origin with this server: its scripts can call
// every door the server leaves open, and their requests carry the page's name in `Host`, which
// no script can change. So a request whose Host is not one of the server's own names is refused
// before anything else runs.
//
// The server's own names: `localhost`, any IP address (a browser sends an address as Host only
// when the page itself was loaded from that address, so no rebinding is involved), the host of
// INTERACTIONS_PUBLIC_BASE_URL and those of INTERACTIONS_ALLOWED_HOSTS. Only the hostname is
// compared (rebinding changes the name, not the port). `X-Forwarded-Host` is never read: a
// rebound page may set it.
//
// Where it applies: `/mcp` always (the MCP transport spec asks servers to refuse rebinding); every
// other door when access control is off (the case rebinding exploits: nothing else stands in the
// way) or when INTERACTIONS_ALLOWED_HOSTS is set (the operator named the server's hosts). With
// access control on and no list, the other doors are not checked: each needs a key, which
// travels in a header a rebound page does not have (keys are never cookies), and a server bound
// to 0.0.0.0 behind a proxy keeps answering whatever name the proxy forwards.
import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { MCP_PATH } from '../mcp/http-plugin.ts';
import { sendRestError } from './errors.ts';

export interface HostCheckOptions {
  /** INTERACTIONS_ALLOWED_HOSTS: host names, lowercase. */
  allowedHosts: readonly string[];
  publicBaseUrl: string | null;
  accessControl: boolean;
}

export const HOST_REFUSED_MESSAGE =
  'the Host header names a host this server does not answer to: use localhost, an IP address, ' +
  'the host of INTERACTIONS_PUBLIC_BASE_URL or one listed in INTERACTIONS_ALLOWED_HOSTS';

/** `name`, `name:port`, `1.2.3.4:port`, `[::1]:port`; nothing else (no userinfo, no path). */
const HOST_HEADER = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/\\@?#]+)(?::[0-9]{1,5})?$/;

/** The lowercase hostname a Host header names (brackets and one trailing dot removed); null when malformed. */
export function hostnameOf(host: string): string | null {
  const m = HOST_HEADER.exec(host);
  if (!m) return null;
  let name = m[1]!.toLowerCase();
  if (name.startsWith('[')) name = name.slice(1, -1);
  if (name.endsWith('.')) name = name.slice(0, -1);
  return name === '' ? null : name;
}

/** The server's own names, as a test of one Host header (absent: accepted, no browser omits it). */
export function hostAccepter(o: Pick<HostCheckOptions, 'allowedHosts' | 'publicBaseUrl'>) {
  const names = new Set(['localhost', ...o.allowedHosts]);
  if (o.publicBaseUrl) names.add(hostnameOf(new URL(o.publicBaseUrl).host) ?? 'localhost');
  return (host: string | undefined): boolean => {
    if (host === undefined) return true;
    const name = hostnameOf(host);
    return name !== null && (isIP(name) !== 0 || names.has(name));
  };
}

/** Whether every door is checked, or /mcp only (see the head of this file). */
export function checksEveryDoor(o: HostCheckOptions): boolean {
  return !o.accessControl || o.allowedHosts.length > 0;
}

/** One line for the start-up log: where the check applies and what it accepts. */
export function hostCheckSummary(o: HostCheckOptions): string {
  const names = ['localhost', 'IP addresses'];
  if (o.publicBaseUrl) names.push(new URL(o.publicBaseUrl).hostname);
  names.push(...o.allowedHosts);
  const where = checksEveryDoor(o)
    ? 'every door'
    : '/mcp only (access control is on and INTERACTIONS_ALLOWED_HOSTS is empty)';
  return `Host check on ${where}; accepted hosts: ${names.join(', ')}`;
}

/**
 * A server listening beyond loopback with no name configured accepts only `localhost` and IP
 * addresses on the checked doors: said at start, so a proxy's name is configured before /mcp
 * refuses it. Null when there is nothing to say.
 */
export function hostCheckWarning(o: HostCheckOptions & { bindHost: string }): string | null {
  const name = hostnameOf(
    o.bindHost.includes(':') && !o.bindHost.startsWith('[') ? `[${o.bindHost}]` : o.bindHost,
  );
  const loopback = name === 'localhost' || name === '::1' || (name?.startsWith('127.') ?? false);
  if (loopback || o.publicBaseUrl !== null || o.allowedHosts.length > 0) return null;
  return (
    `HOST=${o.bindHost} listens beyond loopback but no host name is configured: ` +
    `${checksEveryDoor(o) ? 'every door' : '/mcp'} answers 403 to a request that names this server by a DNS name; ` +
    'set INTERACTIONS_PUBLIC_BASE_URL or INTERACTIONS_ALLOWED_HOSTS to the names clients use'
  );
}

/** Installs the check on `app` (the root instance, before the door hook: a foreign Host is 403 before any 401). */
export function useHostCheck(app: FastifyInstance, o: HostCheckOptions): void {
  const accepts = hostAccepter(o);
  const everyDoor = checksEveryDoor(o);
  app.addHook('onRequest', (req, reply, done) => {
    if (accepts(req.headers.host)) return done();
    if (!everyDoor && !isMcp(req.url)) return done();
    // Answered here: done() is not called, so nothing of the route runs.
    sendRestError(reply, 'FORBIDDEN', HOST_REFUSED_MESSAGE);
  });
}

function isMcp(url: string): boolean {
  return (
    url.startsWith(MCP_PATH) && (url.length === MCP_PATH.length || '?/#'.includes(url[MCP_PATH.length]!))
  );
}
