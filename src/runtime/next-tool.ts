/**
 * `_meta.nextTool`: a tool's result naming the tool to call next (the MCP tool-chaining pattern).
 * Both spellings seen in the wild are accepted: `{ tool, arguments }` and `{ name, arguments }`.
 */
import { isPlainObject } from '../language/json.js';

export interface NextToolRequest {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** The next tool a result asks for; null when it asks for none; a message when the request is malformed. */
export function nextToolOf(output: unknown): NextToolRequest | null | { readonly malformed: string } {
  if (!isPlainObject(output) || !isPlainObject(output['_meta'])) return null;
  const request = output['_meta']['nextTool'];
  if (request === undefined || request === null) return null;
  if (!isPlainObject(request))
    return { malformed: '_meta.nextTool must be an object with tool (or name) and arguments' };
  const tool = request['tool'] ?? request['name'];
  if (typeof tool !== 'string' || tool === '')
    return { malformed: '_meta.nextTool names no tool: give it tool (or name)' };
  const args = request['arguments'] ?? {};
  if (!isPlainObject(args)) return { malformed: `_meta.nextTool.arguments for '${tool}' must be an object` };
  return { tool, arguments: args };
}
