/** `toolgen studio --store DIR`: the flags; the server is `cli/studio.ts`. */
import { defineCommand } from '../command.js';
import { list, port } from '../flag-values.js';
import { CALLER_FLAGS, callerOptions, READS_OUT_DIR, STORED_RUNS, type CallerFlags } from './shared-flags.js';

interface StudioFlags extends CallerFlags {
  readonly store: string;
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
  details: 'Prints one URL to open, its one-time token signing a browser in (see The studio).',
  exit: '0 when stopped, 2 on bad usage (a `--host` that is not a loopback address, a store that holds no runs)',
  flags: [
    STORED_RUNS,
    { flags: '--port <port>', description: 'the port to serve on (0 for any free port)', parse: port, default: 4319 },
    { flags: '--host <host>', description: 'the loopback address to bind', default: '127.0.0.1' },
    {
      flags: '--allowed-hosts <list>',
      description: 'comma-separated host names requests may be addressed to, besides localhost',
    },
    { flags: '--read-only', description: 'show runs, never answer one' },
    {
      flags: '--audit-log <file>',
      description: 'append the audit records of the runs it continues, and a line per answer (JSON lines)',
    },
    ...CALLER_FLAGS,
  ],
  programFlags: READS_OUT_DIR,
  run: async (invocation) => {
    const { studioCommand } = await import('../studio.js');
    const { flags } = invocation;
    const options = {
      ...(await callerOptions(invocation)),
      store: flags.store,
      port: flags.port,
      host: flags.host,
      readOnly: flags.readOnly === true,
      allowedHosts: list(flags.allowedHosts ?? ''),
      auditLog: flags.auditLog ?? null,
    };
    return studioCommand(options, invocation.output);
  },
});
