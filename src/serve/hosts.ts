/**
 * DNS rebinding: a web page on a name its attacker controls, resolved to this machine, would reach the
 * server with that name in `Host`. So a request is served only when its `Host` is an IP address, a
 * local name (`localhost`), or a name the server was told to answer to (`allowedHosts`). A browser
 * also says which page sent a request (`Origin`): one from a page that is not local, on an allowed
 * host or an allowed origin is refused too, as the MCP specification asks.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { localhostAllowedHostnames, validateHostHeader } from '@modelcontextprotocol/server';

/** `name`, `name:port`, `[v6]` or `[v6]:port`: anything else in `Host` (`a@localhost`) is malformed. */
const HOST_SYNTAX = /^(?:[A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * A guard that answers 400 for a missing or malformed `Host`, 403 for a name not allowed (and returns false).
 *
 * @example const allowed = hostGuard(['mcp.example.com']); if (!allowed(req, res)) return;
 */
export function hostGuard(allowedHosts: readonly string[]): (req: IncomingMessage, res: ServerResponse) => boolean {
  const names = [...localhostAllowedHostnames(), ...allowedHosts.map((name) => name.toLowerCase())];
  return (req, res) => {
    const header = req.headers.host;
    if (!header) {
      refuse(res, 400, 'the request has no Host header');
      return false;
    }
    const result = HOST_SYNTAX.test(header) ? validateHostHeader(header, names) : null;
    if (result === null || (!result.ok && result.errorCode === 'invalid_host_header')) {
      refuse(res, 400, 'the Host header is not a host name or address with an optional port');
      return false;
    }
    if (result.ok || (result.errorCode === 'invalid_host' && isAddress(result.hostname))) return true;
    refuse(res, 403, `${result.message}; a name the server answers to is given with --allowed-hosts`);
    return false;
  };
}

/**
 * A guard that answers 403 (and returns false) for a request whose `Origin` is present and not
 * allowed: an origin is allowed when its host is local (`localhost`, `127.x.x.x`, `[::1]`, any
 * port), a name of `allowedHosts`, or when it is one of `allowedOrigins` (`https://app.example.com`).
 * A request without `Origin` (not from a browser) passes.
 *
 * @example const allowed = originGuard(['mcp.example.com'], ['https://app.example.com']); if (!allowed(req, res)) return;
 */
export function originGuard(
  allowedHosts: readonly string[],
  allowedOrigins: readonly string[],
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const names = new Set(allowedHosts.map((name) => name.toLowerCase()));
  const origins = new Set(allowedOrigins.map(normalOrigin));
  return (req, res) => {
    const origin = req.headers.origin;
    if (origin === undefined || isAllowedOrigin(origin, names, origins)) return true;
    refuse(
      res,
      403,
      'the request comes from a web page whose origin is not allowed; an origin the server accepts is given with --allowed-origins',
    );
    return false;
  };
}

function isAllowedOrigin(origin: string, names: ReadonlySet<string>, origins: ReadonlySet<string>): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // `null` (a sandboxed frame, a file) is no origin that could be allowed.
  if (url.origin === 'null') return false;
  if (origins.has(url.origin)) return true;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return isLoopback(hostname) || names.has(hostname);
}

/** `https://App.example.com/` and `https://app.example.com` are one origin. */
export function normalOrigin(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    return origin;
  }
}

function refuse(res: ServerResponse, status: 400 | 403, message: string): void {
  res
    .writeHead(status, { 'content-type': 'application/json', connection: 'close' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

function isAddress(hostname: string | undefined): boolean {
  return hostname !== undefined && isIP(hostname.replace(/^\[(.*)\]$/, '$1')) !== 0;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** Whether binding `host` keeps the server on this machine. */
export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}
