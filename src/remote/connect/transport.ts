/**
 * A server's spec as a transport for the MCP client: `${NAME}` read from the environment (in memory
 * only), a relative `cwd` resolved against the project root. stdio goes through `ServerProcess`,
 * which keeps the exit code and the tail of stderr for messages; HTTP through the SDK's Streamable
 * HTTP transport. What cannot be built (a variable not set, a folder that does not exist) is a
 * `RemoteCallError` saying which server and which field.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expand, redact, type ReadVariable } from '../../language/variables.js';
import { RemoteCallError } from '../../runtime/index.js';
import { boundedHttpTransport } from './answer-bound.js';
import { ServerProcess } from './server-process.js';
import type { McpServerSpec } from '../declare/spec.js';

export type ServerTransport = ServerProcess | StreamableHTTPClientTransport;

/** A transport, and the OpenTelemetry attributes of a connection over it that do not change. */
export interface MadeTransport {
  readonly transport: ServerTransport;
  readonly attributes: Readonly<Record<string, string | number>>;
  /** The values `${NAME}` was read as: messages about this connection never show them. */
  readonly secrets: readonly ReadVariable[];
}

/** Where `${NAME}` is read from, and what a relative `cwd` is relative to. */
export interface Surroundings {
  readonly root: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The bound of a server whose spec sets none. */
  readonly maxAnswerBytes: number;
}

/**
 * A new, unstarted transport to the server; `network.transport` is `pipe` for stdio, and HTTP adds
 * the server's address and port.
 *
 * @example transportFor('memory', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }, { root: '/app', env: process.env })
 */
export function transportFor(name: string, spec: McpServerSpec, around: Surroundings): MadeTransport {
  const secrets: ReadVariable[] = [];
  const read = (field: string, text: string): string => {
    const expanded = expand(text, around.env);
    if ('missing' in expanded)
      throw new RemoteCallError(
        'MCP_MISSING_VARIABLE',
        `cannot connect to MCP server '${name}': its ${field} names \${${expanded.missing}}, which is not set`,
      );
    secrets.push(...expanded.read);
    return expanded.text;
  };
  const readAll = (field: string, values: Readonly<Record<string, string>> | undefined): Record<string, string> =>
    Object.fromEntries(Object.entries(values ?? {}).map(([key, text]) => [key, read(`${field}.${key}`, text)]));
  if ('url' in spec) {
    const text = read('url', spec.url);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new RemoteCallError('MCP_BAD_URL', `cannot connect to MCP server '${name}': its url is not a URL`);
    }
    const headers = readAll('headers', spec.headers);
    return {
      transport: boundedHttpTransport(url, headers, spec.maxAnswerBytes ?? around.maxAnswerBytes),
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
  const args = (spec.args ?? []).map((arg, index) => read(`args[${index}]`, arg));
  const env = readAll('env', spec.env);
  const cwd = path.resolve(around.root, spec.cwd ?? '.');
  if (!(existsSync(cwd) && statSync(cwd).isDirectory()))
    throw new RemoteCallError('MCP_NO_CWD', `cannot start MCP server '${name}': its folder ${cwd} does not exist`);
  const maxLineBytes = spec.maxAnswerBytes ?? around.maxAnswerBytes;
  return { transport: new ServerProcess(spec.command, args, { env, cwd, maxLineBytes }), attributes: PIPE, secrets };
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
