/**
 * What the generated adapters (`generated/adapters/<framework>.ts`) share, whichever agent framework
 * runs them: the executor a request's tool calls go through, one call, and its outcome as a model
 * should read it. Nothing here knows a framework: the adapters import the frameworks, the runtime
 * does not, so an app pays only for the framework it uses.
 */
import { describeError, RuntimeUsageError, ToolCallError } from './errors.js';
import { isPlainObject } from '../language/json.js';
import { ChainExecutor, type ChainExecutorOptions } from './executor.js';
import { callerView, failedText, suspendedText } from './caller-view.js';
import type { ChainFailure, ChainResult, ChainSuccess, ChainSuspended, ChainWaiting } from './result.js';
import type { ToolRegistry } from './registry.js';
import type { ToolDefinition } from './tool.js';

/** What a request has for its tool calls: its executor, or what makes one (a registry and an audit context at least). */
export type AdapterCaller = ChainExecutor | ChainExecutorOptions;

/** A generated tool's typed function, as its module exports it: `echoChainDemo(executor, params, options)`. */
export type GeneratedFunction<P, X> = (
  executor: ChainExecutor,
  params: P,
  options?: { readonly signal?: AbortSignal },
) => Promise<X>;

/**
 * What a model gets from a tool, by what its generated function returns: an atomic tool's output, a
 * composite's final state, or, when a durable run suspends, what it waits for. A failure is no output:
 * it is thrown.
 */
export type AdapterOutput<X> =
  X extends ChainSuccess<infer S>
    ? S
    : X extends ChainSuspended<unknown>
      ? SuspendedRunOutput
      : X extends ChainFailure<unknown>
        ? never
        : X;

/**
 * A durable run that waits for a signal (a person's approval): not the tool's output yet, and no
 * failure either, so the model is told not to call the tool again. `executor.signal(run_id, …)` goes on.
 */
export interface SuspendedRunOutput {
  readonly status: 'suspended';
  readonly run_id: string;
  readonly waiting: ChainWaiting;
  /** The same in words, for the model. */
  readonly message: string;
}

/**
 * Runs one tool call for a framework: the tool's definition, its generated function (whose types are
 * the tool's: its parameters, and what it returns), the model's input, the framework's signal.
 */
export type AdapterRun = <P, X>(
  definition: ToolDefinition,
  run: GeneratedFunction<P, X>,
  input: unknown,
  signal?: AbortSignal,
) => Promise<AdapterOutput<X>>;

/**
 * The calls of one request: every call runs the tool's generated function on the request's executor,
 * so it is audited as that caller, traced, held to its permissions and, with a store, durable. The
 * input is the model's, unchecked: the executor checks it against the tool's parameters and refuses
 * it with a `validation` failure. A failure throws a `ToolCallError` whose message says what went
 * wrong (each framework hands it to the model as the tool's error); so does a composite whose wait
 * step could not wait, for want of a store.
 *
 * @example
 * const run = adapterRunner({ registry, context: new AuditContext({ userId: 'u1', sessionId: 's1' }) });
 * await run(echoChainDemoDefinition, echoChainDemo, { initial_message: 'hi' }); // the final state
 */
export function adapterRunner(caller: AdapterCaller): AdapterRun {
  const executor = caller instanceof ChainExecutor ? caller : new ChainExecutor(caller);
  return async <P, X>(
    definition: ToolDefinition,
    run: GeneratedFunction<P, X>,
    input: unknown,
    signal?: AbortSignal,
  ) => {
    // An atomic tool's function throws a ToolCallError itself when the call fails.
    const result = await run(executor, input as P, signal ? { signal } : {});
    if (definition.implementation.kind !== 'composite') return result as AdapterOutput<X>;
    return chainOutput(definition, result as ChainResult<unknown, boolean>) as AdapterOutput<X>;
  };
}

/** A composite's run as the model reads it: its final state, what it waits for, or (thrown) why it failed. */
function chainOutput(definition: ToolDefinition, result: ChainResult<unknown, boolean>): unknown {
  const view = callerView(definition, result);
  if (view.status === 'suspended')
    return {
      status: 'suspended',
      run_id: view.runId,
      waiting: view.waiting,
      message: suspendedText(view.runId, view.waiting, 'model'),
    } satisfies SuspendedRunOutput;
  if ('output' in view) return view.output;
  const { step, tool: _tool, ...failure } = view.failure;
  // A wait that could not wait names its step already.
  const said = step === null || view.unwaited ? failure : { ...failure, message: failedText({ ...failure, step }) };
  throw new ToolCallError(definition.name, said);
}

/**
 * A failed call as the model reads it, whichever framework words errors: toolgen's failure, its kind
 * and its message (a composite's names the step). An adapter whose framework words errors itself (the
 * OpenAI Agents SDK, whose later versions drop the message) passes this as its error function.
 *
 * @example toolErrorText(error) // "ToolCallError (validation): shout: input to 'shout' is invalid: text: must be string"
 */
export function toolErrorText(error: unknown): string {
  if (error instanceof ToolCallError) return `ToolCallError (${error.kind}): ${error.message}`;
  return `Error: ${describeError(error)}`;
}

/** Which tools an adapter hands the model, by the names the model calls them; all of them when absent. */
export interface AdapterOptions<N extends string> {
  readonly tools?: readonly N[];
}

/**
 * The tools of `all` the app asked for, in its order, each once (all of them when it names none). A
 * name no tool has is a programmer's error (TypeScript refuses it already), thrown.
 *
 * @example selectTools([a, b], (tool) => tool.name, ['b']) // [b]
 */
export function selectTools<T>(all: readonly T[], nameOf: (tool: T) => string, names?: readonly string[]): T[] {
  if (names === undefined) return [...all];
  const byName = new Map(all.map((tool) => [nameOf(tool), tool]));
  // A name given twice is one tool: frameworks refuse two tools of one name.
  return [...new Set(names)].map((name) => {
    const tool = byName.get(name);
    if (tool === undefined)
      throw new RuntimeUsageError(
        `no tool '${name}' to hand the model; the tools are ${[...byName.keys()].join(', ')}`,
      );
    return tool;
  });
}

/**
 * Whether a person should approve a call before it runs: a tool of another MCP server that may destroy
 * (MCP's `destructiveHint`, which the lock pins; as the specification says, true unless the server
 * says false or the tool is `readOnlyHint`), or a composite that calls one (a step, a fallback, a
 * `_meta.nextTool` it allows), at any depth.
 *
 * @example needsApproval(filesWriteFileDefinition, registry) // true
 */
export function needsApproval(definition: ToolDefinition, registry: ToolRegistry): boolean {
  return approvalOf(definition, registry, new Set());
}

function approvalOf(definition: ToolDefinition, registry: ToolRegistry, seen: Set<string>): boolean {
  if (seen.has(definition.name)) return false;
  seen.add(definition.name);
  if (definition.remote !== undefined) return destructive(definition.annotations ?? {});
  if (definition.implementation.kind !== 'composite') return false;
  return calledTools(definition.implementation.plan).some((name) => {
    const called = registry.get(name);
    return called !== undefined && approvalOf(called, registry, seen);
  });
}

function destructive(annotations: Readonly<Record<string, unknown>>): boolean {
  return annotations['readOnlyHint'] !== true && annotations['destructiveHint'] !== false;
}

/** Every tool a plan may call: each step's, its fallbacks, and the `_meta.nextTool`s it allows, in blocks too. */
function calledTools(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) calledTools(item, found);
  else if (isPlainObject(node))
    for (const [key, value] of Object.entries(node)) {
      if (key === 'tool' && typeof value === 'string') found.push(value);
      else if ((key === 'fallbacks' || key === 'allow') && Array.isArray(value))
        found.push(...value.filter((name): name is string => typeof name === 'string'));
      else calledTools(value, found);
    }
  return found;
}

/** Keywords OpenAI's strict mode takes; any other (`minLength`, `default`, `oneOf`, …) makes a schema unfit for it. */
const STRICT_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'description',
  'title',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);

/**
 * Whether a tool's parameters meet the rules of OpenAI's strict mode as they are: an object at the top,
 * every object listing all its properties as required and closing with `additionalProperties: false`,
 * and no keyword strict mode refuses. Strict mode would otherwise rewrite the schema (optional
 * properties become required and nullable), and the tool would get `null`s its parameters refuse.
 *
 * @example meetsStrictMode({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false }) // true
 */
export function meetsStrictMode(schema: unknown): boolean {
  return isPlainObject(schema) && schema['type'] === 'object' && strictNode(schema);
}

function strictNode(node: unknown): boolean {
  if (!isPlainObject(node)) return false;
  for (const [key, value] of Object.entries(node)) {
    if (!STRICT_KEYWORDS.has(key)) return false;
    if (key === 'items' || key === 'additionalProperties') {
      if (typeof value !== 'boolean' && !strictNode(value)) return false;
    } else if (key === 'properties' || key === '$defs' || key === 'definitions') {
      if (!isPlainObject(value) || !Object.values(value).every(strictNode)) return false;
    } else if (key === 'anyOf' && (!Array.isArray(value) || !value.every(strictNode))) return false;
  }
  const objectLike = node['type'] === 'object' || node['properties'] !== undefined;
  if (!objectLike) return true;
  const names = Object.keys(isPlainObject(node['properties']) ? node['properties'] : {});
  const required = Array.isArray(node['required']) ? node['required'] : [];
  return node['additionalProperties'] === false && names.every((name) => required.includes(name));
}
