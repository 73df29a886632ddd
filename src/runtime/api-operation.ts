/**
 * `defineApiOperation`: an operation of an HTTP API (pinned from its OpenAPI document) as an ordinary
 * function tool. The executor treats it as any other (input checked against the pinned schema,
 * policies, timeouts, retries, cache, audit, spans); its handler builds the request from the input
 * (`api-request.ts`), sends it through the registry's `apis`, and reads the response: a status the
 * operation lists as a success gives the body as the output (its status and headers travel beside it,
 * `ApiOutput`, for `steps.<id>.status` and `.headers`), any other fails the call with the code
 * `HTTP_<status>`. The generated `apis/<api>.ts` files call it.
 */
import { isSuccessStatus } from '../language/http-status.js';
import type { JsonSchema } from '../language/json.js';
import { withLazyField } from '../language/lazy-field.js';
import { requestBuilder, type ApiParameter, type RequestBuilder } from './api-request.js';
import { cannotAbort } from './signals.js';
import { RemoteCallError } from './remote.js';
import { ApiOutput, type ApiResponse, type ApiTarget } from './remote-api.js';
import { defineTool, type AuditPolicy, type ToolCallContext, type ToolDefinition, type ToolPolicies } from './tool.js';

export type { ApiParameter } from './api-request.js';

/** An operation as `toolgen api pull` pinned it. */
export interface ApiOperationSpec {
  /** The name under `apis`. */
  readonly api: string;
  /** The operationId, or the name derived from the method and path. */
  readonly operation: string;
  readonly method: 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
  /** As in the document: `/pets/{petId}`. */
  readonly path: string;
  readonly description: string;
  readonly parameters: readonly ApiParameter[];
  readonly body: { readonly contentType: string; readonly required: boolean } | null;
  /** The pinned success response keys: `200`, `201`, `2XX`. */
  readonly success: readonly string[];
  /** The step's input object: each parameter by its key, and `body`. */
  readonly input: JsonSchema;
  /** The success body's schema; null when unknown. */
  readonly output: JsonSchema | null;
  readonly policies?: Partial<ToolPolicies>;
  readonly audit?: Partial<AuditPolicy>;
}

/** Methods whose request may change something on the server: retried only with an idempotency key. */
const UNSAFE: ReadonlySet<string> = new Set(['POST', 'PATCH', 'DELETE']);

/** Whether a request by this method (upper-case) is sent again only with an idempotency key. */
export function isUnsafe(method: string): boolean {
  return UNSAFE.has(method);
}
/** How much of a failed response's body its failure's message quotes. */
export const BODY_EXCERPT_CHARS = 200;

/**
 * An operation's definition, named `<api>/<operation>`; its definition carries `api` (like a remote
 * tool's `remote`).
 *
 * @example
 * const getPet = defineApiOperation<{ petId: number }, Pet>({
 *   api: 'pets', operation: 'getPet', method: 'get', path: '/pets/{petId}', description: 'One pet',
 *   parameters: [{ name: 'petId', key: 'petId', in: 'path', required: true }], body: null,
 *   success: ['200'], input: { type: 'object', properties: { petId: { type: 'integer' } } }, output: null,
 * });
 */
export function defineApiOperation<P, R>(spec: ApiOperationSpec): ToolDefinition<P, R> {
  const method = spec.method.toUpperCase();
  const build = requestBuilder(spec);
  const target: ApiTarget = {
    api: spec.api,
    operation: spec.operation,
    method,
    pathOf: (input) => pathOf(spec, build, input),
    success: spec.success,
  };
  const definition = defineTool<P, R>({
    name: `${spec.api}/${spec.operation}`,
    description: spec.description,
    parameters: spec.input,
    returns: spec.output,
    ...(spec.policies ? { policies: spec.policies } : {}),
    ...(spec.audit ? { audit: spec.audit } : {}),
    implementation: {
      kind: 'function',
      handler: (input, context) => callApi(spec, method, build, input, context) as Promise<R>,
    },
  });
  return { ...definition, api: target };
}

async function callApi(
  spec: ApiOperationSpec,
  method: string,
  build: RequestBuilder,
  input: unknown,
  context: ToolCallContext,
): Promise<unknown> {
  const apis = context.executor.registry.apis;
  if (!apis)
    throw new RemoteCallError(
      'HTTP_NO_APIS',
      `'${spec.api}/${spec.operation}' is an operation of the API '${spec.api}', and the registry has no connections to APIs: build it with createToolRegistry() from the generated index (or pass \`apis\` to new ToolRegistry)`,
    );
  const built = build(input);
  const unsafe = UNSAFE.has(method);
  const key = unsafe ? context.idempotencyKey : null;
  if (key !== null) built.headers['idempotency-key'] = key;
  const onceOnly = unsafe && key === null;
  let response: ApiResponse;
  try {
    response = await apis.send({
      api: spec.api,
      method,
      path: built.path,
      headers: built.headers,
      body: built.body,
      // A call nothing can interrupt sends no signal: the request then needs no abort wiring at all.
      signal: cannotAbort(context.signal) ? undefined : context.signal,
    });
  } catch (error) {
    // A connection lost mid-request may have left the effect done: an unsafe call without a key is not sent again.
    if (onceOnly && error instanceof RemoteCallError && error.retryable !== false)
      throw new RemoteCallError(error.code, error.message, { retryable: false });
    throw error;
  }
  if (isSuccessStatus(response.status, spec.success))
    // The headers read only when something reads them (`HttpApis` makes them on first reading too).
    return new ApiOutput(
      response.body,
      withLazyField({ status: response.status }, 'headers', () => response.headers),
    );
  throw statusFailure(spec, method, response, onceOnly);
}

/** The path an input asks for, or the document's path when the input cannot make one. */
function pathOf(spec: ApiOperationSpec, build: RequestBuilder, input: unknown): string {
  try {
    return build(input).path;
  } catch {
    return spec.path;
  }
}

/**
 * The failure of a response outside the success statuses: `HTTP_<status>`, retryable for 408, 429
 * and 5xx (after the wait `Retry-After` asks for), not for the others, nor for an unsafe call that
 * carries no idempotency key.
 */
function statusFailure(
  spec: ApiOperationSpec,
  method: string,
  response: ApiResponse,
  unsafeWithoutKey: boolean,
): RemoteCallError {
  const { status } = response;
  const retryable = !unsafeWithoutKey && (status === 408 || status === 429 || status >= 500);
  // Kept whatever the call: a retry_on that names the code retries it all the same, and waits as asked.
  const after = retryAfterMs(response.headers['retry-after']);
  const excerpt = bodyExcerpt(response.body);
  return new RemoteCallError(
    `HTTP_${status}`,
    `'${spec.api}/${spec.operation}' (${method} ${spec.path}) answered HTTP ${status}${excerpt === '' ? '' : `: ${excerpt}`}`,
    { retryable, ...(after === undefined ? {} : { retryAfterMs: after }) },
  );
}

/** The wait a `Retry-After` header asks for, in ms: seconds, or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The start of a body, on one line, for a failure's message. */
function bodyExcerpt(body: unknown): string {
  if (body === null || body === undefined) return '';
  const text = (typeof body === 'string' ? body : (JSON.stringify(body) ?? '')).replace(/\s+/g, ' ').trim();
  return text.length > BODY_EXCERPT_CHARS ? `${text.slice(0, BODY_EXCERPT_CHARS)}…` : text;
}
