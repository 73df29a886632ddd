/**
 * The call vocabulary between the executor and its engine: where a call happens (`CallSite`), and
 * what the engine needs of the executor to make one (`Core`).
 */
import type { Attempt } from './attempt.js';
import type { Clock } from './clock.js';
import type { RunJournal } from './durable/journal.js';
import type { AuditContext } from './context.js';
import type { InputChecks } from './input-defaults.js';
import type { ToolRegistry } from './registry.js';
import type { AttemptRecord, ChainResult } from './result.js';
import type { Settled } from './settled.js';
import type { StepListener, ToolDefinition } from './tool.js';
import type { TraceContext, Tracing } from './tracing.js';

/** Where a call happens, for the audit trail and the handler. */
export interface CallSite {
  readonly chainId: string | null;
  readonly stepId: string | null;
  readonly attempt: number;
  /** How deep composites are nested here. */
  readonly depth: number;
  readonly signal: AbortSignal;
  readonly waitedMs: number;
  /** The step's own bound for one attempt, in ms. */
  readonly timeoutMs?: number | undefined;
  readonly cache?: { readonly ttlMs: number; readonly shared: boolean } | undefined;
  readonly via?: Attempt['via'];
  /** Receives the chain result when the call runs a composite. */
  readonly onChain?: ((chain: ChainResult<Record<string, unknown>, boolean>) => void) | undefined;
  /** In a durable run: the key the tool sees, stable across retries and crashes. */
  readonly idempotencyKey?: string | undefined;
  /** In a durable run: where the step's attempts gather until they are journaled. */
  readonly pending?: Attempt[] | undefined;
  /** For a top-level durable run: its journal, handed to the chain the call starts. */
  readonly journal?: RunJournal | undefined;
  /** The caller's step listener, for the chain this call runs. */
  readonly onStep?: StepListener | undefined;
  /** When tracing: the parent of the call's span (the chain's, or its block's). */
  readonly trace?: TraceContext | undefined;
}

/** What the engine needs of the executor: its tools, its caller, its clock, and the call itself. */
export interface Core {
  readonly registry: ToolRegistry;
  readonly context: AuditContext;
  readonly clock: Clock;
  readonly random: () => number;
  /** The app's tracer, when it gave one; undefined costs nothing. */
  readonly tracing: Tracing | undefined;
  /** One call: policies, validation, the handler or a nested chain, the audit record. `startedAt` when the caller already read the clock. */
  call(tool: string | ToolDefinition, input: unknown, site: CallSite, startedAt?: number): Settled<Attempt>;
  /**
   * The flat path's call: a plain step's first attempt, nothing to interrupt it (no signal, no bound,
   * no cache), with the same checks and records as `call`. When the tool is a function that returns at
   * once and succeeds, its history entry goes into `sink` and its output comes back, no `Attempt`
   * made; otherwise the attempt, as `call` returns it (not yet in the history), comes back in an `AttemptMade`.
   */
  callAtOnce(
    tool: string,
    known: KnownTool,
    input: unknown,
    chainId: string,
    stepId: string,
    depth: number,
    startedAt: number,
    sink: AttemptSink,
  ): unknown;
}

/**
 * A step's memory of its tool: the definition in the registry that last ran it, with its input
 * checks. A registry never changes the tool behind a name, so a run need not look it up at every step.
 */
export interface KnownTool {
  registry: ToolRegistry | null;
  definition: ToolDefinition | null;
  checks: InputChecks | null;
}

/** Where the flat path puts a call that succeeded at once: the run's history, and when the call ended. */
export interface AttemptSink {
  readonly history: AttemptRecord[];
  lastEndedAt: number;
}

/** What `callAtOnce` returns when the call did not simply succeed at once. */
export class AttemptMade {
  constructor(readonly attempt: Settled<Attempt>) {}
}
