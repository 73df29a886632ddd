/**
 * A run's outcome as an MCP tool result: the output as `structuredContent` (and as JSON text, for
 * clients that read only `content`), or a tool error (`isError`) that names the failure kind. A
 * failure is never a protocol error: the model reads it and may try again. A durable run that
 * suspended is not the tool's output either: it is `isError` too, with what it waits for in `_meta`.
 * A failure of another MCP server a tool calls reaches the caller as its kind, code and a generic
 * message (`downstreamMessage`): what that server said (its stderr, its address) stays local.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { isPlainObject } from '../language/json.js';
import {
  callerView,
  suspendedText,
  type CallOutcome,
  type ChainResult,
  type ChainWaiting,
  type ToolDefinition,
} from '../runtime/index.js';

/** Where a failed call's details are, in the result's `_meta`. */
export const FAILURE_META_KEY = 'toolgen/failure';
/** Where a suspended run's id and what it waits for are, in the result's `_meta`. */
export const SUSPENDED_META_KEY = 'toolgen/suspended';

/**
 * The MCP result of a call or a composite run. Given the tool, a composite whose wait step could not
 * wait (no store) is a failure, even when its `on_failure` let the chain end "successfully".
 *
 * @example toolResult({ ok: true, output: { data: 'hi' } }).structuredContent // { data: 'hi' }
 */
export function toolResult(
  outcome: CallOutcome | ChainResult<unknown, boolean>,
  tool?: ToolDefinition,
): CallToolResult {
  if ('chain_id' in outcome) {
    const view = callerView(tool, outcome);
    if (view.status === 'suspended') return suspended(outcome.chain_id, view.runId, view.waiting);
    if ('output' in view) return success(view.output);
    const { failure } = view;
    return error({
      kind: failure.kind,
      // What another server said stays local; a wait that could not wait is toolgen's own words.
      message: (view.unwaited ? null : downstreamMessage(failure.code, failure.tool)) ?? failure.message,
      ...(failure.code ? { code: failure.code } : {}),
      step: failure.step,
      tool: failure.tool,
      status: outcome.status,
      chain_id: outcome.chain_id,
    });
  }
  if (outcome.ok) return success(outcome.output);
  return error({
    kind: outcome.error.kind,
    message: downstreamMessage(outcome.error.code, null) ?? outcome.error.message,
    ...(outcome.error.code ? { code: outcome.error.code } : {}),
  });
}

/**
 * What a remote caller is told of a failure talking to another MCP server (a code `MCP_…`): not the
 * message, which holds that server's stderr, how it is started or reached, and what it answered. The
 * tool error a server returned (`MCP_TOOL_ERROR`) is its answer, and goes on. Null for any other failure.
 */
function downstreamMessage(code: string | undefined, tool: string | null): string | null {
  if (code === undefined || !code.startsWith('MCP_') || code === 'MCP_TOOL_ERROR') return null;
  const server = tool?.includes('/') ? `the MCP server of '${tool}'` : 'an MCP server this tool calls';
  return `${server} failed (${code}); the details are in the serving app's audit trail and traces`;
}

function success(output: unknown): CallToolResult {
  // structuredContent must be an object; a tool whose returns is not one is listed without an outputSchema.
  const structured = isPlainObject(output) ? output : { result: output === undefined ? null : output };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** A call refused before it ran: a tool error that names the failure kind (and its code). */
export function failureResult(failure: {
  readonly kind: string;
  readonly code: string;
  readonly message: string;
}): CallToolResult {
  return error(failure);
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

function suspended(chainId: string, runId: string, waiting: ChainWaiting): CallToolResult {
  const { step, signal, schema, deadline } = waiting;
  return {
    content: [{ type: 'text', text: suspendedText(runId, waiting, 'model') }],
    isError: true,
    _meta: { [SUSPENDED_META_KEY]: { run_id: runId, chain_id: chainId, step, signal, schema, deadline } },
  };
}
