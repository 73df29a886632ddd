/**
 * Stage 5: a checked composite becomes a ChainPlan, with every default made explicit: ids, targets,
 * retry numbers. The runtime interprets this and nothing else.
 */
import {
  DEFAULTS,
  failureAction,
  type ChainPlan,
  type FailurePolicy,
  type PlanStep,
  type StepSequence,
} from '../../language/plan.js';
import type { CompositeAnalysis } from '../check/composite.js';
import { isCall, isChoice, isWait } from '../model.js';
import { waitPayloadSchema } from '../check/state-types.js';
import type { StepNode } from '../check/steps.js';
import type { CatalogueEntry } from '../resolve/catalogue.js';

export function lowerComposite(entry: CatalogueEntry, analysis: CompositeAnalysis): ChainPlan {
  const implementation = entry.document.implementation;
  const composite = implementation.type === 'composite' ? implementation.composite : null;
  const maxStepExecutions = composite?.max_step_executions ?? DEFAULTS.maxStepExecutions;
  const nextTools = composite?.allow_next_tools
    ? {
        nextTools: {
          allow: composite.allow_next_tools,
          maxDepth: composite.max_next_tool_depth ?? DEFAULTS.maxNextToolDepth,
        },
      }
    : {};
  const sequence = lowerSequence(analysis.nodes);
  if (!analysis.dag) return { name: entry.name, ...sequence, maxStepExecutions, ...nextTools };
  const { dependsOn, outputSteps } = analysis.dag;
  return {
    name: entry.name,
    mode: 'dag',
    entry: sequence.entry,
    // Dependencies decide the order; a failure skips its dependents, so there is nowhere to continue to.
    steps: sequence.steps.map((step): PlanStep => {
      const { kind, id, ...rest } = step;
      return {
        kind,
        id,
        dependsOn: dependsOn.get(id) ?? [],
        ...rest,
        onSuccess: { ...step.onSuccess, next: null },
        onFailure:
          step.onFailure.action === 'retry'
            ? { ...step.onFailure, afterRetries: { action: 'stop' as const } }
            : { action: 'stop' as const },
      } as PlanStep;
    }),
    ...(outputSteps ? { outputSteps } : {}),
    maxStepExecutions,
    ...nextTools,
  };
}

function lowerSequence(nodes: readonly StepNode[]): StepSequence {
  const idAt = (index: number | null) => (index === null ? null : nodes[index]!.id);
  return { entry: nodes[0]?.id ?? null, steps: nodes.map((node) => lowerStep(node, idAt)) };
}

function lowerStep(node: StepNode, idAt: (index: number | null) => string | null): PlanStep {
  const { doc } = node;
  const transform = Object.entries(doc.on_success?.transform ?? {}).map(([to, expression]) => ({ to, expression }));
  // Only what the YAML sets, so plans without these read as they always did.
  const when = doc.when === undefined ? {} : { when: doc.when };
  const transitions = {
    onSuccess: {
      mapOutputs: Object.entries(doc.on_success?.map_outputs ?? {}).map(([from, to]) => ({ from, to })),
      ...(transform.length > 0 ? { transform } : {}),
      next: idAt(node.onSuccess),
    },
    onFailure: failurePolicy(node, idAt),
  };
  if (node.choices && isChoice(doc)) {
    // The default is onSuccess.next: where the chain goes when no choice holds.
    const choices = doc.choose.map((choice, index) => ({ when: choice.when, next: idAt(node.choices![index]!) }));
    return {
      kind: 'choice',
      id: node.id,
      choices,
      onSuccess: { mapOutputs: [], next: idAt(node.onSuccess) },
      onFailure: { action: 'stop' },
    };
  }
  if (node.branches && 'parallel' in doc) {
    return {
      kind: 'parallel',
      id: node.id,
      ...when,
      waitFor: doc.wait_for ?? DEFAULTS.waitFor,
      concurrency: doc.concurrency ?? null,
      branches: node.branches.map((branch) => ({ id: branch.id, ...lowerSequence(branch.nodes) })),
      ...transitions,
    };
  }
  if (node.body && 'loop' in doc) {
    const { loop } = doc;
    return {
      kind: 'loop',
      id: node.id,
      ...when,
      over: loop.over.trim(),
      as: loop.as,
      concurrency: loop.concurrency ?? DEFAULTS.loopConcurrency,
      maxFailures: loop.max_failures ?? DEFAULTS.loopMaxFailures,
      body: lowerSequence(node.body),
      ...transitions,
    };
  }
  if (isWait(doc)) {
    const { wait } = doc;
    return {
      kind: 'wait',
      id: node.id,
      ...when,
      signal: wait.signal,
      payload: waitPayloadSchema(doc),
      timeoutMs: wait.timeout_seconds === undefined ? null : wait.timeout_seconds * 1000,
      ...transitions,
    };
  }
  // The checks built the graph from these documents: a step with neither branches nor body is a call.
  if (!isCall(doc)) throw new Error(`step '${node.id}' is a block without its steps`);
  const call = doc;
  return {
    kind: 'call',
    id: node.id,
    tool: call.tool,
    inputs: call.inputs ?? {},
    ...when,
    // One condition or a list in the YAML; always a list in the plan.
    ...(call.success_when === undefined
      ? {}
      : { successWhen: typeof call.success_when === 'string' ? [call.success_when] : [...call.success_when] }),
    ...transitions,
    ...(call.timeout_ms === undefined ? {} : { timeoutMs: call.timeout_ms }),
    ...(call.fallbacks ? { fallbacks: call.fallbacks } : {}),
    ...(call.cache
      ? { cache: { ttlMs: call.cache.ttl_seconds * 1000, shared: call.cache.shared ?? DEFAULTS.cacheShared } }
      : {}),
  };
}

function failurePolicy(node: StepNode, idAt: (index: number | null) => string | null): FailurePolicy {
  const doc = node.doc.on_failure;
  const next = node.onFailure === 'stop' ? null : idAt(node.onFailure);
  const action = failureAction(doc);
  if (action === 'stop') return { action: 'stop' };
  if (action === 'continue') return { action: 'continue', next };
  return {
    action: 'retry',
    maxRetries: doc?.max_retries ?? DEFAULTS.maxRetries,
    backoff: {
      initialMs: doc?.initial_delay_ms ?? DEFAULTS.backoff.initialMs,
      factor: doc?.backoff_factor ?? DEFAULTS.backoff.factor,
      maxMs: doc?.max_delay_ms ?? DEFAULTS.backoff.maxMs,
      jitter: doc?.jitter ?? DEFAULTS.backoff.jitter,
    },
    ...(doc?.retry_on ? { retryOn: doc.retry_on } : {}),
    ...(doc?.no_retry_on ? { noRetryOn: doc.no_retry_on } : {}),
    afterRetries: doc?.continue_on_max_retries ? { action: 'continue', next } : { action: 'stop' },
  };
}
