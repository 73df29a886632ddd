/**
 * Flags several commands share, worded once: who calls (`run`, `serve`, `signal`, `resume`,
 * `studio`), which store holds a run, and how a run's trace is printed. `callerOptions` reads the
 * caller's flags into the `CallerOptions` that `cli/caller.ts` makes its executor and context from.
 */
import path from 'node:path';
import type { CallerOptions } from '../caller.js';
import type { FlagDefinition, Invocation } from '../command.js';
import { count, list } from '../flag-values.js';
import { toolgen } from './toolgen.js';

export interface CallerFlags {
  readonly registry?: string;
  readonly user: string;
  readonly permissions: string;
  readonly casefile?: string;
  readonly expressionTimeMs?: number;
  readonly expressionDepth?: number;
}

/** Listed after each command's own flags. */
export const CALLER_FLAGS: readonly FlagDefinition[] = [
  { flags: '--registry <file>', description: 'the generated index to import (.ts through tsx, or compiled .js)' },
  { flags: '--user <id>', description: 'the caller in the audit context', default: 'cli' },
  { flags: '--permissions <list>', description: 'comma-separated permissions the caller has', default: '' },
  { flags: '--casefile <id>', description: 'the casefile of the audit context' },
  {
    flags: '--expression-time-ms <ms>',
    description: 'how long one evaluation of a when, transform or choice may compute (default 1000)',
    parse: count,
  },
  {
    flags: '--expression-depth <levels>',
    description: 'how deeply one evaluation may nest (default 1000)',
    parse: count,
  },
];

/** `--store` of the commands that list, continue or show the runs a store holds already. */
export const STORED_RUNS: FlagDefinition = {
  flags: '--store <dir>',
  description: 'the store (required): the --store DIR of `toolgen run` or `toolgen serve`',
  required: true,
};

/** `--store` of the commands that start runs. */
export const JOURNAL_RUNS: FlagDefinition = {
  flags: '--store <dir>',
  description: 'journal durable runs here: a wait step suspends the run instead of failing',
};

export const JSON_TRACE: FlagDefinition = { flags: '--json', description: 'print the result and the trace as JSON' };

export const ALLOW_PLAN_CHANGE: FlagDefinition = {
  flags: '--allow-plan-change',
  description: "replay the run even when its tool's plan changed since it started",
};

/** The program flags a command that calls the app's tools reads: where the generated index is. */
export const READS_OUT_DIR = ['--out-dir'] as const;

/** The program flags a command that builds without writing or watching reads: all but `--watch`. */
export const READS_BUILD_FLAGS: readonly string[] = (toolgen.flags ?? [])
  .map((flag) => /--[\w-]+/.exec(flag.flags)![0])
  .filter((flag) => flag !== '--watch');

/**
 * Who calls, and the generated index to load: by default the out dir's (from the flags, the config
 * file or the default).
 *
 * @example const caller = await callerOptions(invocation);
 */
export async function callerOptions({
  flags,
  cwd,
  project,
  output,
}: Invocation<unknown, CallerFlags>): Promise<CallerOptions> {
  const { settingsFor } = await import('../commands.js');
  const { outDir, root: projectRoot } = await settingsFor(project(), output);
  return {
    root: cwd,
    projectRoot,
    registry: flags.registry ?? path.join(outDir, 'index.ts'),
    userId: flags.user,
    permissions: list(flags.permissions),
    casefileId: flags.casefile ?? null,
    expressionBudget: {
      ...(flags.expressionTimeMs !== undefined ? { timeMs: flags.expressionTimeMs } : {}),
      ...(flags.expressionDepth !== undefined ? { depth: flags.expressionDepth } : {}),
    },
  };
}

/** What `signal` and `resume` take besides the caller. */
export interface ContinueFlags extends CallerFlags {
  readonly store: string;
  readonly json?: boolean;
  readonly allowPlanChange?: boolean;
}

/** The flags of `signal` and `resume`: the store, theirs (`--payload`), then the caller's. */
export function CONTINUE_FLAGS(...own: FlagDefinition[]): readonly FlagDefinition[] {
  return [STORED_RUNS, ...own, ALLOW_PLAN_CHANGE, JSON_TRACE, ...CALLER_FLAGS];
}

/** The caller, the store, and how to print: what `signal` and `resume` read from their flags. */
export async function continueOptions(invocation: Invocation<unknown, ContinueFlags>) {
  const { flags } = invocation;
  return {
    ...(await callerOptions(invocation)),
    store: flags.store,
    json: flags.json === true,
    allowPlanChange: flags.allowPlanChange === true,
  };
}
