/**
 * One run of a chain, from its plan to its `ChainResult`: its id and start, its state, its signal
 * (the caller's plus the chain's own time limit), its span, the engine run over its steps, and its
 * end recorded in the audit context. Synchronous while every step settles at once.
 */
import { randomUUID } from 'node:crypto';
import type { ChainPlan } from '../language/plan.js';
import type { Core } from './call.js';
import { chainResult } from './chain-result.js';
import { compilePlan, type CompiledPlan } from './compiled-plan.js';
import type { RunJournal } from './durable/journal.js';
import type { AnyChainResult } from './durable/runs.js';
import { topContext, type Run, type SequenceEnd } from './engine/context.js';
import { dagOutputs, runDag } from './engine/dag.js';
import { runSequence } from './engine/sequence.js';
import { newState } from './engine/state.js';
import { isPending, type Settled } from './settled.js';
import { AbortReason, childController, NEVER } from './signals.js';
import { endWorkflowSpan, parentOf, startWorkflowSpan } from './spans.js';
import type { StepListener } from './tool.js';
import { UNRECORDED, type TraceContext, type TraceSpan } from './tracing.js';

/** Composites calling composites deeper than this fail with a `limit` error (recursion is a build error; this guards plans built at run time). */
const MAX_NESTING = 32;

/** What starting a chain takes: made once per chain. */
export interface ChainRequest {
  readonly plan: ChainPlan;
  readonly initialState: Record<string, unknown>;
  readonly name: string;
  /** How deep composites are nested: 0 for a chain the app started. */
  readonly depth: number;
  readonly signal: AbortSignal;
  readonly timeoutMs: number | undefined;
  /** In a durable run: its journal (the chain's id and start come from it). */
  readonly journal: RunJournal | undefined;
  /** The key of the call that runs the chain, outside its own journal: its steps' keys are made from it. */
  readonly idempotencyKey: string | undefined;
  readonly onStep: StepListener | undefined;
  /** When tracing: the parent of the chain's span. */
  readonly trace: TraceContext | undefined;
  /** When the call that runs the chain started (epoch ms): the chain starts then. Undefined: now. */
  readonly startedAt: number | undefined;
}

/** A chain under way: what its end needs. */
interface ChainRun {
  readonly request: ChainRequest;
  readonly compiled: CompiledPlan;
  readonly run: Run;
  readonly state: Record<string, unknown>;
  readonly startedAt: string;
  readonly span: TraceSpan | undefined;
}

/**
 * Runs a plan: synchronously while every step settles at once, so a chain of synchronous tools makes
 * no promise. Like an async function, it never throws: what throws comes back as a rejected promise.
 */
export function runChain(core: Core, request: ChainRequest): Settled<AnyChainResult> {
  try {
    return startChain(core, request);
  } catch (error) {
    return Promise.reject(error);
  }
}

function startChain(core: Core, request: ChainRequest): Settled<AnyChainResult> {
  const { plan, journal, name } = request;
  const compiled = compilePlan(plan);
  // A resumed run is the same chain: its id and start (a built-in templates may read) come from the journal.
  const chainId = journal?.start.chainId ?? newChainId();
  // One clock read for the call, the chain and its first step: nothing between them waits.
  const startedMs = request.startedAt ?? core.clock.now();
  const startedAt = journal?.start.startedAt ?? isoTime(startedMs);
  // Not a spread: V8 adds properties to a spread-made object on a slow path (see `newState`).
  const state = newState(request.initialState);
  const run: Run = {
    core,
    chainId,
    depth: request.depth,
    history: [],
    results: [],
    builtins: { chain_id: chainId, chain_name: name, started_at: startedAt },
    nextTools: plan.nextTools,
    budget: { used: 0, max: plan.maxStepExecutions },
    runSequence,
    journal,
    keys: request.idempotencyKey === undefined ? undefined : { prefix: request.idempotencyKey, visits: new Map() },
    onStep: request.onStep,
    keepsOutputs: compiled.readsSteps,
  };
  core.context.trackChain(chainId, name, compiled.tools, 'running');
  const { tracing } = core;
  const span =
    tracing === undefined || request.trace === UNRECORDED
      ? undefined
      : startWorkflowSpan(tracing, name, chainId, journal?.runId, request.trace);
  const bounds = chainBounds(core, request);
  const chain: ChainRun = { request, compiled, run, state, startedAt, span };
  const ended = (end: SequenceEnd): AnyChainResult => {
    bounds.release();
    return endChain(core, chain, end);
  };
  const failed = (error: unknown): never => {
    span?.end();
    bounds.release();
    throw error;
  };
  let running: Settled<SequenceEnd>;
  try {
    const context = topContext(run, state, bounds.signal, span === undefined ? request.trace : parentOf(span));
    running =
      request.depth > MAX_NESTING
        ? { failure: tooDeep(), last: null }
        : plan.mode === 'dag'
          ? runDag(compiled, compiled.dependsOn, context)
          : runSequence(compiled, context, startedMs);
  } catch (error) {
    return failed(error);
  }
  return isPending(running) ? running.then(ended, failed) : ended(running);
}

function tooDeep(): SequenceEnd['failure'] {
  return { step: null, tool: null, kind: 'limit', message: `composite tools are nested more than ${MAX_NESTING} deep` };
}

/** The chain's own signal (the caller's, plus its time limit), and how to let go of it; nothing made when neither can fire. */
function chainBounds(core: Core, request: ChainRequest): { signal: AbortSignal; release: () => void } {
  const { signal: parent, timeoutMs } = request;
  if (parent === NEVER && timeoutMs === undefined) return NOT_INTERRUPTIBLE;
  const { controller, release } = childController(parent);
  if (timeoutMs === undefined) return { signal: controller.signal, release };
  const timer = new AbortController();
  void core.clock.deadline(timeoutMs, timer.signal).then(() => {
    if (!timer.signal.aborted)
      controller.abort(new AbortReason('timeout', `'${request.name}' did not finish within ${timeoutMs} ms`));
  });
  return {
    signal: controller.signal,
    release: () => {
      timer.abort();
      release();
    },
  };
}

const NOT_INTERRUPTIBLE = { signal: NEVER, release: () => {} };

/** A chain's end: its span, its status in the audit context, its result. */
function endChain(core: Core, chain: ChainRun, end: SequenceEnd): AnyChainResult {
  const { request, run, span } = chain;
  const { failure, suspended: waiting } = end;
  if (span !== undefined) endWorkflowSpan(span, failure, waiting);
  const status = waiting ? 'suspended' : failure ? 'failed' : 'success';
  core.context.trackChain(run.chainId, request.name, chain.compiled.tools, status);
  return chainResult({
    chainId: run.chainId,
    chainName: request.name,
    results: run.results,
    history: run.history,
    state: chain.state,
    failure,
    startedAt: chain.startedAt,
    completedAt: isoTime(end.endedAt ?? core.clock.now()),
    outputs: request.plan.mode === 'dag' ? dagOutputs(request.plan, run.results) : undefined,
    runId: request.journal?.runId,
    waiting,
  });
}

/**
 * A new chain's id: a `randomUUID()` as one flat string. Node joins a UUID from 20 pieces, which V8
 * keeps as a tree of strings; an audit context holds the ids of its last 1,000 chains (and its
 * records theirs), and a reused executor spent a fifth of its time copying those trees at each
 * young-generation collection. Converting a string to a number flattens it (as `flatstr` does).
 */
function newChainId(): string {
  const id = randomUUID();
  Number(id);
  return id;
}

let lastMs = Number.NaN;
let lastIso = '';

/** `new Date(ms).toISOString()`, remembering the last one: a chain's timestamps mostly share a millisecond. */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
