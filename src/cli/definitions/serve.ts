/** `toolgen serve`: stdio, or Streamable HTTP with `--http PORT`. */
import { defineCommand } from '../command.js';
import { count, httpPort, list, seconds } from '../flag-values.js';
import { TOKENS_ENV } from '../tokens.js';
import { CALLER_FLAGS, callerOptions, JOURNAL_RUNS, READS_OUT_DIR, type CallerFlags } from './shared-flags.js';

interface ServeFlags extends CallerFlags {
  readonly http?: number;
  readonly host: string;
  readonly auditLog?: string;
  readonly store?: string;
  readonly tokens?: string;
  readonly allowUnauthenticated?: boolean;
  readonly allowedHosts?: string;
  readonly allowedOrigins?: string;
  readonly publicUrl?: string;
  readonly maxSessions?: number;
  readonly sessionIdleTimeout?: number;
  readonly maxConnections?: number;
  readonly headersTimeout?: number;
  readonly requestTimeout?: number;
}

export const serve = defineCommand<Record<string, never>, ServeFlags>({
  name: 'serve',
  description: 'serve the generated tools as an MCP server (stdio, or Streamable HTTP with --http)',
  details: 'See Serving over MCP.',
  exit: '0 when stopped, 2 on bad usage (a `--host` beyond loopback without tokens, a bad token file, an `--allowed-origins` entry that is not an origin, a `--headers-timeout` longer than `--request-timeout`)',
  flags: [
    {
      flags: '--http <port>',
      description: 'serve over Streamable HTTP on this port instead of stdio',
      parse: httpPort,
    },
    { flags: '--host <host>', description: 'the address to bind with --http', default: '127.0.0.1' },
    {
      flags: '--tokens <file>',
      description: `bearer tokens accepted with --http (JSON; also ${TOKENS_ENV}): each with its user and scopes`,
    },
    {
      flags: '--allow-unauthenticated',
      description: 'with a --host beyond loopback and no tokens: serve anyway, to anyone',
    },
    {
      flags: '--allowed-hosts <list>',
      description: 'comma-separated host names requests may be addressed to (besides localhost and IP addresses)',
    },
    {
      flags: '--allowed-origins <list>',
      description:
        'comma-separated origins (https://app.example.com) browser requests may come from (besides local pages and allowed hosts)',
    },
    {
      flags: '--public-url <url>',
      description: 'the endpoint as clients reach it (the protected resource metadata names it)',
    },
    {
      flags: '--max-sessions <n>',
      description: 'at most this many sessions of 2025-era clients (default 100)',
      parse: count,
    },
    {
      flags: '--session-idle-timeout <seconds>',
      description: 'close such a session after this long without a request (default 1800)',
      parse: count,
    },
    {
      flags: '--max-connections <n>',
      description: 'at most this many connections at once; more are closed (default 256)',
      parse: count,
    },
    {
      flags: '--headers-timeout <seconds>',
      description: "a request's headers must arrive within this long (default 10)",
      parse: seconds,
    },
    {
      flags: '--request-timeout <seconds>',
      description: 'a whole request, body included, must arrive within this long (default 30)',
      parse: seconds,
    },
    JOURNAL_RUNS,
    { flags: '--audit-log <file>', description: 'append every audit record to this file (JSON lines)' },
    ...CALLER_FLAGS,
  ],
  programFlags: READS_OUT_DIR,
  run: async (invocation) => {
    const { serveCommand } = await import('../serve.js');
    const { flags } = invocation;
    const options = {
      ...(await callerOptions(invocation)),
      http: flags.http ?? null,
      host: flags.host,
      auditLog: flags.auditLog ?? null,
      store: flags.store ?? null,
      httpFlags: {
        tokens: flags.tokens ?? null,
        allowUnauthenticated: flags.allowUnauthenticated === true,
        allowedHosts: list(flags.allowedHosts ?? ''),
        allowedOrigins: list(flags.allowedOrigins ?? ''),
        publicUrl: flags.publicUrl ?? null,
        maxSessions: flags.maxSessions ?? null,
        sessionIdleTimeoutSeconds: flags.sessionIdleTimeout ?? null,
        maxConnections: flags.maxConnections ?? null,
        headersTimeoutSeconds: flags.headersTimeout ?? null,
        requestTimeoutSeconds: flags.requestTimeout ?? null,
      },
    };
    return serveCommand(options, invocation.output);
  },
});
