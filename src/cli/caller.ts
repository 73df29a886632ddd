/**
 * The caller the flags make, for every command that calls the app's tools (`run`, `signal`, `resume`,
 * `serve`, `studio`): the generated index it loads, who calls (`--user`, `--permissions`,
 * `--casefile`), the expression budget, and the audit log. One place builds the audit context and
 * the executor from them, so the commands cannot drift in how a caller is made.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import {
  AuditContext,
  ChainExecutor,
  type AuditContextOptions,
  type ExpressionBudget,
  type RunStore,
  type ToolRegistry,
} from '../runtime/index.js';
import { loadRegistry } from './load-tools.js';

/** The shared flags, read (`definitions/shared-flags.ts`). */
export interface CallerOptions {
  /** Where relative paths on the command line start: the current directory. */
  readonly root: string;
  /** The project root, the config file's folder: what a stdio MCP server's relative `cwd` is relative to. */
  readonly projectRoot: string;
  /** The generated index to import. */
  readonly registry: string;
  readonly userId: string;
  readonly permissions: readonly string[];
  readonly casefileId: string | null;
  /** What one evaluation of an expression may spend; the runtime's defaults for what it leaves out. */
  readonly expressionBudget?: Partial<ExpressionBudget>;
}

/**
 * The app's registry, from the generated index the caller names. Close it when done: that stops the
 * stdio MCP servers its remote tools started.
 *
 * @example const registry = await callerRegistry(caller);
 */
export function callerRegistry(caller: CallerOptions): Promise<ToolRegistry> {
  return loadRegistry(path.resolve(caller.root, caller.registry), caller.projectRoot);
}

/**
 * The audit context of the caller, for this process: its session is `<command>-<pid>`.
 *
 * @example const context = callerContext(caller, 'run');
 */
export function callerContext(
  caller: CallerOptions,
  command: string,
  options: Pick<AuditContextOptions, 'keepTrail' | 'onRecord'> = {},
): AuditContext {
  return new AuditContext({
    userId: caller.userId,
    sessionId: `${command}-${process.pid}`,
    casefileId: caller.casefileId,
    permissions: caller.permissions,
    ...options,
  });
}

/**
 * An executor calling as the caller, with its expression budget.
 *
 * @example const executor = callerExecutor(caller, { registry, context: callerContext(caller, 'run') });
 */
export function callerExecutor(
  caller: CallerOptions,
  { registry, context, store }: { registry: ToolRegistry; context: AuditContext; store?: RunStore | null },
): ChainExecutor {
  return new ChainExecutor({
    registry,
    context,
    ...(caller.expressionBudget ? { expressionBudget: caller.expressionBudget } : {}),
    ...(store ? { store } : {}),
  });
}

/**
 * What appends a line of JSON to `--audit-log FILE` (relative to `root`); null without the flag.
 *
 * @example auditLogWriter(process.cwd(), 'audit.jsonl')?.({ event: 'studio.answer' })
 */
export function auditLogWriter(root: string, file: string | null): ((line: unknown) => void) | null {
  if (!file) return null;
  const resolved = path.resolve(root, file);
  return (line) => appendFileSync(resolved, `${JSON.stringify(line)}\n`);
}
