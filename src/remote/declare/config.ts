/**
 * `mcpServers` in toolgen.config.yaml: the servers whose tools toolgen pins, declared as MCP clients
 * (Claude Desktop, Cursor, VS Code) declare them, so an entry can be pasted from theirs. A name maps
 * to `{ command, args, env, cwd }` (stdio) or `{ url, headers }` (Streamable HTTP); `type` may say
 * which, as VS Code and Claude Code write it. Checked by hand, every problem collected with its path.
 * A server comes out as its `McpServerSpec`, in one spelling: `type` and empty lists and maps left
 * out, `cwd` relative to the config file's folder (with `/`) and left out when it is that folder.
 */
import path from 'node:path';
import { isPlainObject } from '../../language/json.js';
import { closestName } from '../../language/suggest.js';
import { badReference } from '../../language/variables.js';
import { byCodeUnits } from '../../language/order.js';
import type { DeclaredServer, McpServerSpec } from './spec.js';

/** A problem at `at` (a path from the config's top); `key`: point at the key, not its value. */
export interface ServerProblem {
  readonly at: readonly (string | number)[];
  readonly message: string;
  readonly key?: boolean;
  readonly suggestion?: string | null;
  /** Part of a string value: where the problem starts in it, and how long it is. */
  readonly span?: { readonly offset: number; readonly length: number };
}

const STDIO_FIELDS = ['command', 'args', 'env', 'cwd'] as const;
const HTTP_FIELDS = ['url', 'headers'] as const;
const FIELDS: readonly string[] = ['type', 'maxAnswerBytes', ...STDIO_FIELDS, ...HTTP_FIELDS];
const TYPES = ['stdio', 'http'] as const;

/**
 * The servers of `mcpServers`, sorted by name, and what is wrong with them; `root` is the config
 * file's folder, which a `cwd` is relative to.
 *
 * @example readServers({ memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } }, '/app')
 */
export function readServers(value: unknown, root: string): { servers: DeclaredServer[]; problems: ServerProblem[] } {
  const problems: ServerProblem[] = [];
  if (!isPlainObject(value)) {
    problems.push({ at: ['mcpServers'], message: "'mcpServers' must be a mapping of server names to servers" });
    return { servers: [], problems };
  }
  const servers: DeclaredServer[] = [];
  // Checked in the file's order, so that problems read top to bottom.
  for (const [name, entry] of Object.entries(value)) {
    const before = problems.length;
    const server = readServer(name, entry, root, problems);
    if (server && problems.length === before) servers.push({ name, spec: server, root });
  }
  return { servers: servers.sort((a, b) => byCodeUnits(a.name, b.name)), problems };
}

function readServer(name: string, entry: unknown, root: string, problems: ServerProblem[]): McpServerSpec | null {
  const at = ['mcpServers', name];
  if (name.trim() === '' || name.includes('/'))
    problems.push({
      at,
      key: true,
      message: `the server name '${name}' ${name.includes('/') ? "contains '/'" : 'is empty'}: tools will be named <server>/<tool>`,
    });
  if (!isPlainObject(entry)) {
    problems.push({
      at,
      message: `server '${name}' must be a mapping: { command, args, env, cwd } or { url, headers }`,
    });
    return null;
  }
  for (const key of Object.keys(entry))
    if (!FIELDS.includes(key))
      problems.push({
        at: [...at, key],
        key: true,
        message: `unknown field '${key}' in server '${name}'`,
        suggestion: closestName(key, FIELDS),
      });
  const type = entry['type'];
  if (type !== undefined && !(TYPES as readonly unknown[]).includes(type))
    problems.push({
      at: [...at, 'type'],
      message:
        type === 'sse'
          ? `server '${name}': type 'sse' (the old HTTP+SSE transport) is not supported; toolgen speaks Streamable HTTP (type: http)`
          : `'type' of server '${name}' must be stdio or http`,
    });
  const stdio = entry['command'] !== undefined;
  const http = entry['url'] !== undefined;
  if (stdio === http) {
    problems.push({
      at,
      message: stdio
        ? `server '${name}' has both command and url: give command (stdio) or url (Streamable HTTP)`
        : `server '${name}' needs command (a program to start, over stdio) or url (Streamable HTTP)`,
    });
    return null;
  }
  const transport = stdio ? 'stdio' : 'http';
  if (typeof type === 'string' && (TYPES as readonly string[]).includes(type) && type !== transport)
    problems.push({
      at: [...at, 'type'],
      message: `server '${name}' is type ${type}, but has ${stdio ? 'command' : 'url'}`,
    });
  const others: readonly string[] = stdio ? HTTP_FIELDS : STDIO_FIELDS;
  for (const key of Object.keys(entry).filter((key) => others.includes(key)))
    problems.push({
      at: [...at, key],
      key: true,
      message: `'${key}' is for a server with ${stdio ? 'url' : 'command'}; server '${name}' has ${stdio ? 'command' : 'url'}`,
    });
  const check = new Checks(at, problems);
  const maxAnswerBytes = check.byteCount(entry, 'maxAnswerBytes');
  const bound = maxAnswerBytes === null ? {} : { maxAnswerBytes };
  if (stdio) {
    const command = check.text(entry, 'command', { variables: false });
    const args = check.list(entry, 'args');
    const env = check.mapping(entry, 'env');
    const cwd = check.text(entry, 'cwd', { variables: false });
    if (command === null) return null;
    const relative = path
      .relative(root, path.resolve(root, cwd ?? '.'))
      .split(path.sep)
      .join('/');
    return {
      command,
      ...(args && args.length > 0 ? { args } : {}),
      ...(env && Object.keys(env).length > 0 ? { env } : {}),
      ...(relative === '' ? {} : { cwd: relative }),
      ...bound,
    };
  }
  const url = check.text(entry, 'url', { variables: true });
  const headers = check.mapping(entry, 'headers');
  if (url === null) return null;
  if (!url.includes('${') && !isHttpUrl(url))
    problems.push({ at: [...at, 'url'], message: `'url' of server '${name}' must be an http:// or https:// URL` });
  return { url, ...(headers && Object.keys(headers).length > 0 ? { headers } : {}), ...bound };
}

/** Whether a text is an http:// or https:// URL. */
export function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** The checks of one entry's fields (a server's, an API's), each reporting under the entry's path. */
export class Checks {
  constructor(
    readonly at: readonly (string | number)[],
    readonly problems: ServerProblem[],
    /** The fields `${NAME}` is read in, as a message names them. */
    readonly variablesIn = 'args, env, headers and url',
  ) {}

  /** A non-empty string field, or null (absent, or reported). */
  text(entry: Record<string, unknown>, key: string, options: { variables: boolean }): string | null {
    const value = entry[key];
    if (value === undefined) return null;
    return this.#string([...this.at, key], value, `'${key}'`, options.variables);
  }

  /** A whole number of bytes, at least 1, or null (absent, or reported). */
  byteCount(entry: Record<string, unknown>, key: string): number | null {
    const value = entry[key];
    if (value === undefined) return null;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      this.problems.push({ at: [...this.at, key], message: `'${key}' must be a whole number of bytes, 1 or more` });
      return null;
    }
    return value;
  }

  list(entry: Record<string, unknown>, key: string): string[] | null {
    const value = entry[key];
    if (value === undefined) return null;
    if (!Array.isArray(value)) {
      this.problems.push({ at: [...this.at, key], message: `'${key}' must be a list of strings` });
      return null;
    }
    const items = value.map((item, index) => this.#string([...this.at, key, index], item, `'${key}[${index}]'`, true));
    return items.every((item) => item !== null) ? (items as string[]) : null;
  }

  mapping(entry: Record<string, unknown>, key: string): Record<string, string> | null {
    const value = entry[key];
    if (value === undefined) return null;
    if (!isPlainObject(value)) {
      this.problems.push({ at: [...this.at, key], message: `'${key}' must be a mapping of names to strings` });
      return null;
    }
    const pairs = Object.entries(value).map(
      ([name, item]) => [name, this.#string([...this.at, key, name], item, `'${key}.${name}'`, true)] as const,
    );
    return pairs.every(([, item]) => item !== null) ? Object.fromEntries(pairs as [string, string][]) : null;
  }

  #string(at: (string | number)[], value: unknown, what: string, variables: boolean): string | null {
    if (typeof value !== 'string') {
      this.problems.push({ at, message: `${what} must be a string${typeof value === 'number' ? ' (quote it)' : ''}` });
      return null;
    }
    if (value === '' && !at.some((part) => part === 'args' || part === 'env')) {
      this.problems.push({ at, message: `${what} must not be empty` });
      return null;
    }
    if (!variables && value.includes('${')) {
      this.problems.push({
        at,
        message: `${what} cannot use \${NAME}: toolgen reads variables in ${this.variablesIn}`,
        span: { offset: value.indexOf('${'), length: 2 },
      });
      return null;
    }
    const bad = variables ? badReference(value) : null;
    if (bad) {
      this.problems.push({
        at,
        message: `'${bad.text}' in ${what} is not a variable toolgen reads: write \${NAME}, read from the environment`,
        span: { offset: bad.offset, length: bad.text.length },
      });
      return null;
    }
    return value;
  }
}
