/**
 * What another server is, in one model: declared as written (`McpServerSpec`, the fields of an entry of
 * `mcpServers` in toolgen.config.yaml, as generated `mcp-servers.ts` and an app's overrides hold them),
 * then resolved once (`ResolvedServer`: a `cwd` made absolute, the answer bound filled in) for the
 * connection layer (`remote/connect/`). `${NAME}` stays unread in both: it is read when connecting.
 */
import path from 'node:path';

/** A server over stdio (`command`, …) or Streamable HTTP (`url`, …); `${NAME}` is read when connecting. */
export type McpServerSpec =
  | {
      readonly command: string;
      readonly args?: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
      /** Relative to the folder of toolgen.config.yaml (`McpServersOptions.root`). */
      readonly cwd?: string;
      /** The largest answer (one JSON-RPC line) it may send, in bytes; default `McpServersOptions.maxAnswerBytes`. */
      readonly maxAnswerBytes?: number;
    }
  | {
      readonly url: string;
      readonly headers?: Readonly<Record<string, string>>;
      /** The largest answer (one response body) it may send, in bytes; default `McpServersOptions.maxAnswerBytes`. */
      readonly maxAnswerBytes?: number;
    };

/** A server by its name, as declared; a relative `cwd` is relative to `root` (the config file's folder). */
export interface DeclaredServer {
  readonly name: string;
  readonly spec: McpServerSpec;
  readonly root: string;
}

/** A declared server ready to connect to: every default filled in, `cwd` absolute, `${NAME}` still unread. */
export type ResolvedServer =
  | {
      readonly transport: 'stdio';
      readonly name: string;
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd: string;
      readonly maxAnswerBytes: number;
      /** How it is started, as a message shows it (`shownSpec`). */
      readonly shown: string;
    }
  | {
      readonly transport: 'http';
      readonly name: string;
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly maxAnswerBytes: number;
      readonly shown: string;
    };

/**
 * The server resolved: `maxAnswerBytes` the bound of a server whose spec sets none.
 *
 * @example resolveServer({ name: 'files', spec: { command: 'npx', cwd: 'data' }, root: '/app' }, 8388608).cwd // '/app/data'
 */
export function resolveServer(server: DeclaredServer, maxAnswerBytes: number): ResolvedServer {
  const { name, spec } = server;
  const bound = spec.maxAnswerBytes ?? maxAnswerBytes;
  const shown = shownSpec(spec);
  if ('url' in spec)
    return { transport: 'http', name, url: spec.url, headers: spec.headers ?? {}, maxAnswerBytes: bound, shown };
  return {
    transport: 'stdio',
    name,
    command: spec.command,
    args: spec.args ?? [],
    env: spec.env ?? {},
    cwd: path.resolve(server.root, spec.cwd ?? '.'),
    maxAnswerBytes: bound,
    shown,
  };
}

/**
 * How a server is started or reached, as a message shows it: as declared, `${NAME}` unread (so no
 * value read from the environment is ever printed), an argument quoted when it holds a space or a quote.
 *
 * @example shownSpec({ command: 'node', args: ['my server.mjs'] }) // 'node "my server.mjs"'
 */
export function shownSpec(spec: McpServerSpec): string {
  if ('url' in spec) return spec.url;
  const quote = (arg: string) => (arg === '' || /[\s"']/.test(arg) ? JSON.stringify(arg) : arg);
  return [spec.command, ...(spec.args ?? [])].map(quote).join(' ');
}
