/** `toolgen studio --store DIR` (or `--dbos URL`): the flags; the server is `cli/studio.ts`. */
import { defineCommand } from '../command.js';
import { UsageError } from '../exit.js';
import { list, port } from '../flag-values.js';
import { CALLER_FLAGS, callerOptions, READS_OUT_DIR, type CallerFlags } from './shared-flags.js';

interface StudioFlags extends CallerFlags {
  readonly store?: string;
  readonly dbos?: string;
  readonly token?: string;
  readonly port: number;
  readonly host: string;
  readonly allowedHosts?: string;
  readonly readOnly?: boolean;
  readonly auditLog?: string;
}

export const studio = defineCommand<Record<string, never>, StudioFlags>({
  name: 'studio',
  usage: 'studio --store DIR',
  description:
    'serve a page of the runs in a store, each with its graph and steps, and an inbox that answers waiting runs',
  details:
    'Or `--dbos URL` in place of `--store`: the runs of a `DbosRunStore`. Prints one URL to open, its one-time token signing a browser in (see The studio).',
  exit: '0 when stopped, 2 on bad usage (both or neither of `--store` and `--dbos`, a `--host` beyond loopback without a token of your own, a folder that is no store (no `runs/` in it; an empty store is served), a database it cannot reach or that has no toolgen runs table)',
  flags: [
    {
      flags: '--store <dir>',
      description: 'the file store: the --store DIR of `toolgen run` or `toolgen serve` (or --dbos)',
    },
    { flags: '--dbos <url>', description: "the PostgreSQL URL of a DbosRunStore's system database (or --store)" },
    { flags: '--port <port>', description: 'the port to serve on (0 for any free port)', parse: port, default: 4319 },
    {
      flags: '--host <host>',
      description: 'the address to bind (beyond loopback only with a token of your own)',
      default: '127.0.0.1',
    },
    {
      flags: '--token <token>',
      description:
        'a sign-in token of your own (at least 24 characters; TOOLGEN_STUDIO_TOKEN is read when absent): required for a --host beyond loopback',
    },
    {
      flags: '--allowed-hosts <list>',
      description: 'comma-separated host names requests may be addressed to, besides localhost',
    },
    { flags: '--read-only', description: 'show runs, never answer one' },
    {
      flags: '--audit-log <file>',
      description:
        'append the audit records of the runs it continues or starts, and a line per answer, start, resume and cancel (JSON lines)',
    },
    ...CALLER_FLAGS,
  ],
  programFlags: READS_OUT_DIR,
  run: async (invocation) => {
    const { studioCommand } = await import('../studio.js');
    const { flags } = invocation;
    const options = {
      ...(await callerOptions(invocation)),
      store: studioStore(flags),
      port: flags.port,
      host: flags.host,
      readOnly: flags.readOnly === true,
      allowedHosts: list(flags.allowedHosts ?? ''),
      auditLog: flags.auditLog ?? null,
      token: flags.token ?? process.env['TOOLGEN_STUDIO_TOKEN'] ?? null,
    };
    return studioCommand(options, invocation.output);
  },
});

/** Which store the studio shows: exactly one of `--store DIR` and `--dbos URL`. */
function studioStore(flags: StudioFlags): { readonly dir: string } | { readonly dbos: string } {
  if (flags.store !== undefined && flags.dbos !== undefined)
    throw new UsageError('give --store DIR or --dbos URL, not both: the studio shows one store');
  if (flags.store !== undefined) return { dir: flags.store };
  if (flags.dbos !== undefined) return { dbos: flags.dbos };
  throw new UsageError(
    'give the store to show: --store DIR (a file store) or --dbos URL (the PostgreSQL of a DbosRunStore)',
  );
}
