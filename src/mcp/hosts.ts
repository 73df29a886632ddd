/**
 * DNS rebinding: a web page on a name its attacker controls, resolved to this machine, would reach the
 * server with that name in `Host`. So a request is served only when its `Host` is an IP address, a
 * local name (`localhost`), or a name the server was told to answer to (`allowedHosts`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { localhostAllowedHostnames, validateHostHeader } from '@modelcontextprotocol/server';

/**
 * A guard that answers 403 (and returns false) for a request whose `Host` is a name not allowed.
 *
 * @example const allowed = hostGuard(['mcp.example.com']); if (!allowed(req, res)) return;
 */
export function hostGuard(allowedHosts: readonly string[]): (req: IncomingMessage, res: ServerResponse) => boolean {
  const names = [...localhostAllowedHostnames(), ...allowedHosts.map((name) => name.toLowerCase())];
  return (req, res) => {
    const result = validateHostHeader(req.headers.host, names);
    if (result.ok || (result.errorCode === 'invalid_host' && isAddress(result.hostname))) return true;
    res.writeHead(403, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: `${result.message}; a name the server answers to is given with --allowed-hosts`,
        },
        id: null,
      }),
    );
    return false;
  };
}

function isAddress(hostname: string | undefined): boolean {
  return hostname !== undefined && isIP(hostname.replace(/^\[(.*)\]$/, '$1')) !== 0;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** Whether binding `host` keeps the server on this machine. */
export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}
