/**
 * Stage 5: a checked composite becomes a ChainPlan, with every default made explicit: ids, targets,
 * retry numbers. The runtime interprets this and nothing else.
 */
import { DEFAULT_BACKOFF, DEFAULT_MAX_NEXT_TOOL_DEPTH, DEFAULT_MAX_STEP_EXECUTIONS, type ChainPlan, type FailurePolicy, type PlanStep } from '../../runtime/index.js';
import type { CompositeAnalysis } from '../check/composite.js';
import type { StepNode } from '../check/steps.js';
import type { CatalogueEntry } from '../resolve/catalogue.js';

export const DEFAULT_MAX_RETRIES = 3;

export function lowerComposite(entry: CatalogueEntry, analysis: CompositeAnalysis): ChainPlan {
  const { nodes } = analysis;
  const idAt = (index: number | null) => (index === null ? null : nodes[index]!.id);
  const implementation = entry.document.implementation;
  const maxStepExecutions = implementation.type === 'composite' ? (implementation.composite.max_step_executions ?? DEFAULT_MAX_STEP_EXECUTIONS) : DEFAULT_MAX_STEP_EXECUTIONS;
  const steps = nodes.map((node): PlanStep => {
    const { doc } = node;
    return {
      kind: 'call',
      id: node.id,
      tool: doc.tool,
      inputs: doc.inputs ?? {},
      onSuccess: {
        mapOutputs: Object.entries(doc.on_success?.map_outputs ?? {}).map(([from, to]) => ({ from, to })),
        next: idAt(node.onSuccess),
      },
      onFailure: failurePolicy(node, idAt),
      // Only what the YAML sets, so plans without these read as they always did.
      ...(doc.timeout_ms === undefined ? {} : { timeoutMs: doc.timeout_ms }),
      ...(doc.fallbacks ? { fallbacks: doc.fallbacks } : {}),
      ...(doc.cache ? { cache: { ttlMs: doc.cache.ttl_seconds * 1000, shared: doc.cache.shared ?? false } } : {}),
    };
  });
  const composite = implementation.type === 'composite' ? implementation.composite : null;
  const nextTools = composite?.allow_next_tools
    ? { nextTools: { allow: composite.allow_next_tools, maxDepth: composite.max_next_tool_depth ?? DEFAULT_MAX_NEXT_TOOL_DEPTH } }
    : {};
  return { name: entry.name, entry: nodes[0]?.id ?? null, steps, maxStepExecutions, ...nextTools };
}

function failurePolicy(node: StepNode, idAt: (index: number | null) => string | null): FailurePolicy {
  const doc = node.doc.on_failure;
  const next = node.onFailure === 'stop' ? null : idAt(node.onFailure);
  const action = doc?.action ?? (doc?.next !== undefined ? 'continue' : 'stop');
  if (action === 'stop') return { action: 'stop' };
  if (action === 'continue') return { action: 'continue', next };
  return {
    action: 'retry',
    maxRetries: doc?.max_retries ?? DEFAULT_MAX_RETRIES,
    backoff: {
      initialMs: doc?.initial_delay_ms ?? DEFAULT_BACKOFF.initialMs,
      factor: doc?.backoff_factor ?? DEFAULT_BACKOFF.factor,
      maxMs: doc?.max_delay_ms ?? DEFAULT_BACKOFF.maxMs,
      jitter: doc?.jitter ?? DEFAULT_BACKOFF.jitter,
    },
    ...(doc?.retry_on ? { retryOn: doc.retry_on } : {}),
    ...(doc?.no_retry_on ? { noRetryOn: doc.no_retry_on } : {}),
    afterRetries: doc?.continue_on_max_retries ? { action: 'continue', next } : { action: 'stop' },
  };
}
