/**
 * A run's outcome as an MCP tool result: the output as `structuredContent` (and as JSON text, for
 * clients that read only `content`), or a tool error (`isError`) that names the failure kind. A
 * failure is never a protocol error: the model reads it and may try again.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CallOutcome, ChainResult } from '../runtime/index.js';

/** Where a failed call's details are, in the result's `_meta`. */
export const FAILURE_META_KEY = 'toolgen/failure';

/**
 * The MCP result of a call or a composite run.
 *
 * @example toolResult({ ok: true, output: { data: 'hi' } }).structuredContent // { data: 'hi' }
 */
export function toolResult(outcome: CallOutcome | ChainResult): CallToolResult {
  if ('chain_id' in outcome) {
    if (outcome.success) return success(outcome.final_state);
    const { failure } = outcome;
    return error({
      kind: failure.kind,
      message: failure.message,
      step: failure.step,
      tool: failure.tool,
      status: outcome.status,
      chain_id: outcome.chain_id,
    });
  }
  if (outcome.ok) return success(outcome.output);
  return error({
    kind: outcome.error.kind,
    message: outcome.error.message,
    ...(outcome.error.code ? { code: outcome.error.code } : {}),
  });
}

function success(output: unknown): CallToolResult {
  // structuredContent must be an object; a tool whose returns is not one is listed without an outputSchema.
  const structured = isRecord(output) ? output : { result: output === undefined ? null : output };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

function error(failure: {
  readonly kind: string;
  readonly message: string;
  readonly step?: string | null;
  [key: string]: unknown;
}): CallToolResult {
  const where = failure.step ? ` (step '${failure.step}')` : '';
  return {
    content: [{ type: 'text', text: `${failure.kind}${where}: ${failure.message}` }],
    isError: true,
    _meta: { [FAILURE_META_KEY]: failure },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
