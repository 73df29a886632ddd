import type { AuditContext } from './context.js';
import type { RemoteServers, RemoteTarget } from './remote.js';
import type { ApiTarget, RemoteApis } from './remote-api.js';
import type { ToolFailure } from './errors.js';
import type { CallOutcome, ChainResult, StepResult } from './result.js';
import type { JsonSchema } from '../language/json.js';
import { defaultAuditEvents, DEFAULTS, type ChainPlan } from '../language/plan.js';

export interface ToolPolicies {
  readonly requiresCasefile: boolean;
  readonly requiredPermissions: readonly string[];
  readonly timeoutSeconds: number | null;
}

/**
 * Why the context's caller may not call the tool (a `policy` failure); null when it may.
 *
 * @example policyRefusal(transfer, new AuditContext({ userId: 'u', sessionId: 's' }))?.message // "'transfer' requires permission 'banking.transfer'"
 */
export function policyRefusal(tool: ToolDefinition, context: AuditContext): ToolFailure | null {
  const { policies } = tool;
  if (policies.requiresCasefile && !context.casefileId)
    return { kind: 'policy', message: `'${tool.name}' requires a casefile, and the context has none` };
  if (policies.requiredPermissions.length === 0) return null;
  const missing = policies.requiredPermissions.filter((permission) => !context.hasPermission(permission));
  if (missing.length === 0) return null;
  return { kind: 'policy', message: `'${tool.name}' requires permission ${missing.map((p) => `'${p}'`).join(', ')}` };
}

export interface AuditPolicy {
  readonly successEvent: string;
  readonly failureEvent: string;
  /** Field names hidden (at any depth) in the audit trail's inputs and outputs. */
  readonly redactFields: readonly string[];
}

/** What a handler receives besides its input. */
export interface ToolCallContext {
  readonly audit: AuditContext;
  readonly chainId: string | null;
  readonly stepId: string | null;
  readonly attempt: number;
  /**
   * In a durable run, a key unique to this step of this run, the same across retries and across a
   * crash and resume: a tool with side effects passes it on (a payment API's idempotency key) or
   * remembers it, so that the step's at-least-once re-run after a crash does its effect once. Null
   * outside durable runs.
   */
  readonly idempotencyKey: string | null;
  /** Aborts when the call times out or the chain is cancelled: a handler doing I/O should pass it on. */
  readonly signal: AbortSignal;
  /** The executor making the call: a tool that runs other tools runs them through it, as the same caller. */
  readonly executor: ToolCaller;
}

/** What a caller may pass with any call or run. */
export interface RunOptions {
  /** Aborting it cancels the run: no further tool starts, and the tool in flight sees its signal abort. */
  readonly signal?: AbortSignal;
  /**
   * Called as each step execution of the chain this call runs is recorded (a success, a failure, a
   * skip; blocks and their branches too), in the order of `results`. For progress reports and traces;
   * composites nested in the chain do not report their own steps.
   */
  readonly onStep?: StepListener;
  /**
   * The key the call's handler sees as `context.idempotencyKey` outside a durable run (`toolgen serve`
   * passes the one an MCP client sent in `_meta`); for a composite, each call its chain makes sees
   * this key and the step's place (`<key>/<step>#<visit>`). A durable run's own keys take precedence.
   */
  readonly idempotencyKey?: string;
}

/** What a caller may pass when running a composite. */
export interface CompositeRunOptions extends RunOptions {
  /**
   * Journal the run under this id (the executor needs a `store`): a crash loses no finished step, and
   * running the same id again returns its result, or resumes it, instead of starting a second run.
   */
  readonly runId?: string;
  /** When the id names an unfinished run whose plan changed since: replay it against the new plan anyway. */
  readonly allowPlanChange?: boolean;
}

/** A step execution as it is recorded: the chain, its place in `results`, and the result itself. */
export interface StepEvent {
  readonly chainId: string;
  /** Its index in the chain's `results`. */
  readonly index: number;
  readonly result: StepResult;
}

export type StepListener = (event: StepEvent) => void;

/** Tools by name, as a `ToolRegistry` offers them. */
export interface ToolLookup {
  get(name: string): ToolDefinition | undefined;
  has(name: string): boolean;
  /** Every name, sorted. */
  names(): string[];
  /** The connections remote tools (`defineRemoteTool`) are called through; null or absent when there are none. */
  readonly servers?: RemoteServers | null;
  /** The connections API operations (`defineApiOperation`) are called through; null or absent when there are none. */
  readonly apis?: RemoteApis | null;
}

/** How tools are called: what `ChainExecutor` offers a handler that runs other tools. */
export interface ToolCaller {
  /** The tools it may call. */
  readonly registry: ToolLookup;
  /** Runs a plan from the given state. */
  executeChain(
    plan: ChainPlan,
    initialState?: Record<string, unknown>,
    options?: RunOptions & { chainName?: string; timeoutMs?: number },
  ): Promise<ChainResult>;
  /** Calls a tool by name or definition. Never throws for a failing tool: the outcome says why. */
  call(tool: string | ToolDefinition, input: unknown, options?: RunOptions): Promise<CallOutcome>;
  /** Calls an atomic tool and returns its output; throws `ToolCallError` when the call fails. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handler's input is contravariant: any tool must fit here
  invoke<P, R>(tool: ToolDefinition<P, R, any>, input: P, options?: RunOptions): Promise<R>;
  /** Runs a composite tool; `Suspends` is true for one with a wait step, whose durable run may suspend. */
  runComposite<P, S, Suspends extends boolean = false>(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handler's input is contravariant: any tool must fit here
    tool: ToolDefinition<P, S, any>,
    input: P,
    options?: CompositeRunOptions,
  ): Promise<ChainResult<S, Suspends>>;
}

/**
 * The YAML a composite was built from: its file, relative to the project root (the same on every
 * machine), and the line of every step, by step id (ids are unique in a composite, nested ones too).
 *
 * @example { file: 'config/tools/banking/approved_transfer.yaml', steps: { prepare: 14, approval: 21 } }
 */
export interface ToolSource {
  readonly file: string;
  readonly steps: Readonly<Record<string, number>>;
}

export type ToolHandler<P, R> = (input: P, context: ToolCallContext) => R | Promise<R>;

export type ToolImplementation<P, R> =
  | { readonly kind: 'function'; readonly handler: ToolHandler<P, R> }
  | { readonly kind: 'composite'; readonly plan: ChainPlan };

/**
 * A tool as the runtime knows it: its signature, policies and implementation. `P` and `R` are the
 * parameter and result types, carried for the generated functions' benefit; `I` is what the handler
 * receives, the parameters with their defaults filled in.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handler's input is contravariant: any tool must fit here
export interface ToolDefinition<P = any, R = unknown, I = P> {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the input object. */
  readonly parameters: JsonSchema;
  /** JSON Schema of the output; for a composite, of its final state. */
  readonly returns: JsonSchema | null;
  readonly policies: ToolPolicies;
  readonly audit: AuditPolicy;
  readonly implementation: ToolImplementation<I, R>;
  /** Set for a tool of another MCP server (made by `defineRemoteTool`): which server, and its name there. */
  readonly remote?: RemoteTarget;
  /** Set for an operation of an HTTP API (made by `defineApiOperation`): which API, the operation, how it is called. */
  readonly api?: ApiTarget;
  /** Where a generated composite was written: beside the plan, so that `planHash` does not change with a line. */
  readonly source?: ToolSource;
  /** A display name, when the tool has one (a remote tool's pinned `title`). */
  readonly title?: string;
  /** MCP tool annotations (`readOnlyHint`, …), listed as they are when the tool is served. */
  readonly annotations?: Readonly<Record<string, unknown>>;
  /** Type-only: the parameters a caller passes. */
  readonly __params?: P;
}

/**
 * Declares a tool. Missing policies and audit settings take their defaults.
 *
 * @example
 * const echo = defineTool<{ message: string }, { data: string }>({
 *   name: 'echo', description: 'Echoes', parameters: { type: 'object' },
 *   implementation: { kind: 'function', handler: ({ message }) => ({ data: message }) },
 * });
 */
export function defineTool<P, R, I = P>(
  spec: Omit<ToolDefinition<P, R, I>, 'policies' | 'audit' | 'returns' | '__params'> & {
    readonly policies?: Partial<ToolPolicies>;
    readonly audit?: Partial<AuditPolicy>;
    readonly returns?: JsonSchema | null;
  },
): ToolDefinition<P, R, I> {
  const events = defaultAuditEvents(spec.name);
  return {
    ...spec,
    returns: spec.returns ?? null,
    policies: { ...DEFAULTS.policies, ...spec.policies },
    audit: {
      successEvent: spec.audit?.successEvent ?? events.successEvent,
      failureEvent: spec.audit?.failureEvent ?? events.failureEvent,
      redactFields: spec.audit?.redactFields ?? [],
    },
  };
}
