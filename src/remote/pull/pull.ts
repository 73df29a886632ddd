/**
 * Pulls one server: connects with the official MCP client (v2), lists every tool, page after page,
 * and returns them as the lock pins them, or what went wrong, as data: the CLI words it. `${NAME}`
 * is expanded here, in memory only: what is returned holds only what the server said, every value a
 * `${NAME}` was read as redacted from it (`redact`, as the app's connections do).
 */
import { existsSync, statSync } from 'node:fs';
import {
  Client,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import type { HttpServerConfig, McpServerConfig, StdioServerConfig } from '../declare/config.js';
import { byCodeUnits, lockedTool, type LockedServer, type LockedTool } from '../lock/lock.js';
import { MAX_PIN_DEPTH, pinTooDeep } from '../lock/format.js';
import { boundedHttpTransport, DEFAULT_MAX_ANSWER_BYTES, tooLarge } from '../connect/answer-bound.js';
import { ServerProcess, type ProcessEnd } from '../connect/server-process.js';
import { expand, redact, type ReadVariable } from '../../language/variables.js';

/** The request that was under way when a server failed. */
export type Stage = 'initialize' | 'tools/list';

/** Why a server could not be pulled. */
export type PullFailure =
  | { readonly kind: 'variable'; readonly field: string; readonly variable: string }
  | { readonly kind: 'no-cwd'; readonly cwd: string }
  | { readonly kind: 'not-started'; readonly code: string; readonly message: string }
  | { readonly kind: 'ended'; readonly end: ProcessEnd; readonly stage: Stage; readonly stderr: readonly string[] }
  | {
      readonly kind: 'timeout';
      readonly seconds: number;
      readonly stage: Stage;
      readonly stderr: readonly string[];
    }
  | { readonly kind: 'http'; readonly status: number; readonly statusText: string; readonly stage: Stage }
  | { readonly kind: 'unreachable'; readonly reason: string }
  | { readonly kind: 'too-large'; readonly maxBytes: number; readonly stage: Stage }
  | { readonly kind: 'protocol'; readonly message: string; readonly stage: Stage; readonly stderr: readonly string[] };

export type PullResult =
  | { readonly ok: true; readonly server: McpServerConfig; readonly locked: LockedServer }
  | { readonly ok: false; readonly server: McpServerConfig; readonly failure: PullFailure };

export interface PullOptions {
  /** The bound on each request, `initialize` included. */
  readonly timeoutSeconds: number;
  /** Where `${NAME}` is read from. */
  readonly env: NodeJS.ProcessEnv;
  /** How toolgen introduces itself in `initialize`. */
  readonly clientVersion: string;
}

/** How many lines of a failed server's stderr a report keeps. */
export const STDERR_LINES = 10;
/** A server that hands out cursors for ever is not listing tools. */
const MAX_PAGES = 1000;

/**
 * Connects to the server, lists its tools, and closes the connection (stops the process).
 *
 * @example await pullServer(server, { timeoutSeconds: 30, env: process.env, clientVersion: '0.1.0' })
 */
export async function pullServer(server: McpServerConfig, options: PullOptions): Promise<PullResult> {
  const failed = (failure: PullFailure): PullResult => ({ ok: false, server, failure });
  const connection =
    server.transport === 'stdio' ? stdioTransport(server, options.env) : httpTransport(server, options.env);
  if ('failure' in connection) return failed(connection.failure);
  const { transport, secrets } = connection;
  const client = new Client({ name: 'toolgen', version: options.clientVersion });
  const timeout = options.timeoutSeconds * 1000;
  let stage: Stage = 'initialize';
  try {
    await client.connect(transport, { timeout });
    stage = 'tools/list';
    const tools = await listTools(client, timeout);
    const info = client.getServerVersion();
    const locked: LockedServer = {
      serverInfo: { name: info?.name ?? '', version: info?.version ?? '' },
      tools: Object.fromEntries(tools.map((tool) => [tool.name, tool])),
    };
    return { ok: true, server, locked };
  } catch (error) {
    return failed(redactFailure(failureOf(error, transport, stage, options.timeoutSeconds), secrets));
  } finally {
    await client.close().catch(() => {});
  }
}

async function listTools(client: Client, timeout: number): Promise<LockedTool[]> {
  const tools = new Map<string, LockedTool>();
  let cursor: string | undefined;
  for (let page = 0; ; page += 1) {
    if (page === MAX_PAGES) throw new Error(`it was still handing out cursors after ${MAX_PAGES} pages`);
    // One page a request: the client's listTools walks every page itself, and stops without a word
    // at a server that repeats its cursor.
    const result = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      { timeout },
    );
    for (const tool of result.tools) {
      if (tools.has(tool.name)) throw new Error(`it lists a tool named '${tool.name}' twice`);
      const deep = pinTooDeep(tool as unknown as Record<string, unknown>);
      if (deep)
        throw new Error(
          `its tool '${tool.name}' nests its ${deep[0]} more than ${MAX_PIN_DEPTH} levels deep, deeper than toolgen pins`,
        );
      tools.set(tool.name, lockedTool(tool as unknown as { name: string } & Record<string, unknown>));
    }
    if (!result.nextCursor) break;
    if (result.nextCursor === cursor) throw new Error(`it handed out the cursor '${cursor}' twice`);
    cursor = result.nextCursor;
  }
  return [...tools.values()].sort((a, b) => byCodeUnits(a.name, b.name));
}

/** Expands every `${NAME}` of the fields, or says which field names a variable that is not set. */
function expandAll(
  fields: readonly (readonly [string, string])[],
  env: NodeJS.ProcessEnv,
): { values: string[]; secrets: ReadVariable[] } | { failure: PullFailure } {
  const values: string[] = [];
  const secrets: ReadVariable[] = [];
  for (const [field, text] of fields) {
    const expanded = expand(text, env);
    if ('missing' in expanded) return { failure: { kind: 'variable', field, variable: expanded.missing } };
    values.push(expanded.text);
    secrets.push(...expanded.read);
  }
  return { values, secrets };
}

function stdioTransport(
  server: StdioServerConfig,
  env: NodeJS.ProcessEnv,
): { transport: ServerProcess; secrets: readonly ReadVariable[] } | { failure: PullFailure } {
  const envEntries = Object.entries(server.env);
  const expanded = expandAll(
    [
      ...server.args.map((arg, index) => [`args[${index}]`, arg] as const),
      ...envEntries.map(([name, value]) => [`env.${name}`, value] as const),
    ],
    env,
  );
  if ('failure' in expanded) return expanded;
  if (!(existsSync(server.cwd) && statSync(server.cwd).isDirectory()))
    return { failure: { kind: 'no-cwd', cwd: server.cwd } };
  const args = expanded.values.slice(0, server.args.length);
  const values = expanded.values.slice(server.args.length);
  const serverEnv = Object.fromEntries(envEntries.map(([name], index) => [name, values[index]!]));
  const maxLineBytes = server.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  return {
    transport: new ServerProcess(server.command, args, { env: serverEnv, cwd: server.cwd, maxLineBytes }),
    secrets: expanded.secrets,
  };
}

function httpTransport(
  server: HttpServerConfig,
  env: NodeJS.ProcessEnv,
): { transport: StreamableHTTPClientTransport; secrets: readonly ReadVariable[] } | { failure: PullFailure } {
  const headerEntries = Object.entries(server.headers);
  const expanded = expandAll(
    [['url', server.url] as const, ...headerEntries.map(([name, value]) => [`headers.${name}`, value] as const)],
    env,
  );
  if ('failure' in expanded) return expanded;
  const [url, ...values] = expanded.values;
  let parsed: URL;
  try {
    parsed = new URL(url!);
  } catch {
    return { failure: { kind: 'unreachable', reason: 'its url, with the variables read, is not a URL' } };
  }
  const headers = Object.fromEntries(headerEntries.map(([name], index) => [name, values[index]!]));
  return {
    transport: boundedHttpTransport(parsed, headers, server.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES),
    secrets: expanded.secrets,
  };
}

/** The failure with every value `${NAME}` was read as redacted from what the server or the system said. */
function redactFailure(failure: PullFailure, secrets: readonly ReadVariable[]): PullFailure {
  const hide = (text: string) => redact(text, secrets);
  const lines = (stderr: readonly string[]) => stderr.map(hide);
  switch (failure.kind) {
    case 'ended':
    case 'timeout':
      return { ...failure, stderr: lines(failure.stderr) };
    case 'protocol':
      return { ...failure, message: hide(failure.message), stderr: lines(failure.stderr) };
    case 'not-started':
      return { ...failure, message: hide(failure.message) };
    case 'http':
      return { ...failure, statusText: hide(failure.statusText) };
    case 'unreachable':
      return { ...failure, reason: hide(failure.reason) };
    default:
      return failure;
  }
}

function failureOf(error: unknown, transport: object, stage: Stage, seconds: number): PullFailure {
  const large = tooLarge(transport, error);
  if (large) return { kind: 'too-large', maxBytes: large.maxBytes, stage };
  const process = transport instanceof ServerProcess ? transport : null;
  const stderr = process?.stderrTail(STDERR_LINES) ?? [];
  const end = process?.end ?? null;
  if (end?.kind === 'spawn-error') return { kind: 'not-started', code: end.code, message: end.message };
  if (end) return { kind: 'ended', end, stage, stderr };
  if (error instanceof SdkHttpError && typeof error.status === 'number')
    return { kind: 'http', status: error.status, statusText: error.statusText ?? '', stage };
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
    return { kind: 'timeout', seconds, stage, stderr };
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { kind: 'unreachable', reason: cause?.code ?? cause?.message ?? error.message };
  }
  // The MCP client reads an answer by recursion: one nested thousands deep overflows its stack.
  if (error instanceof RangeError && /call stack/.test(error.message))
    return {
      kind: 'protocol',
      message: `its answer nests too deep to read (toolgen pins at most ${MAX_PIN_DEPTH} levels)`,
      stage,
      stderr,
    };
  return { kind: 'protocol', message: error instanceof Error ? error.message : String(error), stage, stderr };
}
