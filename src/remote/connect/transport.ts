/**
 * A resolved server as a transport for the MCP client: `${NAME}` read from the environment (in memory
 * only). stdio goes through `ServerProcess`, which keeps the exit code and the tail of stderr for
 * messages; HTTP through the SDK's Streamable HTTP transport, its answers bounded. What cannot be
 * built (a variable not set, a URL that is not one, a folder that does not exist) is a failure.
 */
import { existsSync, statSync } from 'node:fs';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expand, redact, type ReadVariable } from '../../language/variables.js';
import type { ResolvedServer } from '../declare/spec.js';
import { boundedHttpTransport } from './answer-bound.js';
import type { ServerFailure } from './failures.js';
import { ServerProcess } from './server-process.js';

export type ServerTransport = ServerProcess | StreamableHTTPClientTransport;

/** A transport, and the OpenTelemetry attributes of a connection over it that do not change. */
export interface MadeTransport {
  readonly transport: ServerTransport;
  readonly attributes: Readonly<Record<string, string | number>>;
  /** The values `${NAME}` was read as: messages about this connection never show them. */
  readonly secrets: readonly ReadVariable[];
}

/**
 * A new, unstarted transport to the server; `network.transport` is `pipe` for stdio, and HTTP adds
 * the server's address and port.
 *
 * @example transportFor(resolveServer({ name: 'memory', spec: { command: 'npx' }, root: '/app' }, 8388608), process.env)
 */
export function transportFor(
  server: ResolvedServer,
  env: Readonly<Record<string, string | undefined>>,
): MadeTransport | { failure: ServerFailure } {
  const fields: (readonly [string, string])[] =
    server.transport === 'http'
      ? [['url', server.url], ...Object.entries(server.headers).map(([key, text]) => [`headers.${key}`, text] as const)]
      : [
          ...server.args.map((arg, index) => [`args[${index}]`, arg] as const),
          ...Object.entries(server.env).map(([key, text]) => [`env.${key}`, text] as const),
        ];
  const values: string[] = [];
  const secrets: ReadVariable[] = [];
  for (const [field, text] of fields) {
    const expanded = expand(text, env);
    if ('missing' in expanded) return { failure: { kind: 'variable', field, variable: expanded.missing } };
    values.push(expanded.text);
    secrets.push(...expanded.read);
  }
  if (server.transport === 'http') {
    const [text, ...headerValues] = values;
    let url: URL;
    try {
      url = new URL(text!);
    } catch {
      return { failure: { kind: 'bad-url' } };
    }
    const headers = Object.fromEntries(Object.keys(server.headers).map((key, index) => [key, headerValues[index]!]));
    return {
      transport: boundedHttpTransport(url, headers, server.maxAnswerBytes),
      // A span records the address: a host read from `${NAME}` is redacted there too.
      attributes: Object.fromEntries(
        Object.entries(httpAttributes(url)).map(([key, value]) => [
          key,
          typeof value === 'string' ? redact(value, secrets) : value,
        ]),
      ),
      secrets,
    };
  }
  if (!(existsSync(server.cwd) && statSync(server.cwd).isDirectory()))
    return { failure: { kind: 'no-cwd', cwd: server.cwd } };
  const args = values.slice(0, server.args.length);
  const envValues = values.slice(server.args.length);
  const serverEnv = Object.fromEntries(Object.keys(server.env).map((key, index) => [key, envValues[index]!]));
  const process = new ServerProcess(server.command, args, {
    env: serverEnv,
    cwd: server.cwd,
    maxLineBytes: server.maxAnswerBytes,
  });
  return { transport: process, attributes: PIPE, secrets };
}

const PIPE = { 'network.transport': 'pipe' };

/** The OpenTelemetry attributes of a connection to `url` (MCP's semantic conventions). */
function httpAttributes(url: URL): Record<string, string | number> {
  return {
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
    'server.address': url.hostname.replace(/^\[(.*)\]$/, '$1'),
    'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
  };
}
