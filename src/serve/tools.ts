/**
 * The tools of a registry as an MCP server: each tool listed with its generated JSON Schema as
 * `inputSchema` and its `returns` (for a composite, its final state) as `outputSchema`, byte for byte;
 * each call run by a `ChainExecutor` on behalf of the MCP caller, audited, cancellable, and, for a
 * composite, reporting progress per step (the run's `onStep`: only the chain the caller started
 * reports, not the composites nested in it). An idempotency key the client sends in the request's
 * `_meta` (`IDEMPOTENCY_KEY_META`, as a toolgen composite's remote step does in a durable run) is
 * handed on (`RunOptions.idempotencyKey`), so that a retried call deduplicates end to end.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  fromJsonSchema,
  McpServer,
  type AuthInfo,
  type CallToolResult,
  type jsonSchemaValidator,
  type McpServerFactory,
  type ServerContext,
  type ToolAnnotations,
} from '@modelcontextprotocol/server';
import { packageVersion } from '../language/package-version.js';
import {
  AuditContext,
  ChainExecutor,
  DurableRunError,
  IDEMPOTENCY_KEY_META,
  type AuditContextOptions,
  type AuditRecord,
  type ChainResult,
  type Clock,
  type ExpressionBudget,
  type JsonSchema,
  type RunStore,
  type StepListener,
  type ToolDefinition,
  type ToolRegistry,
  type Tracer,
} from '../runtime/index.js';
import { failureResult, toolResult } from './results.js';

/** Who is calling, as the MCP connection tells it. */
export interface McpCaller {
  /** The MCP session; for a connection without one (stdio, stateless HTTP), an id made for the connection or request. */
  readonly sessionId: string;
  /** The validated token's information, when the HTTP server runs behind authentication. */
  readonly authInfo: AuthInfo | undefined;
}

export interface ToolServerOptions {
  readonly registry: ToolRegistry;
  /** The server's name and version, as `initialize` reports them. Default `toolgen`, the package version. */
  readonly name?: string;
  readonly version?: string;
  /**
   * The audit context's caller for one call. Default: the token's `clientId` as the user and its
   * `scopes` as permissions when there is a token; otherwise `defaults` (user `mcp`, no permissions).
   */
  readonly context?: (caller: McpCaller) => Omit<AuditContextOptions, 'onRecord'>;
  /** Used by the default `context` when the call carries no token. */
  readonly defaults?: {
    readonly userId?: string;
    readonly casefileId?: string | null;
    readonly permissions?: readonly string[];
  };
  /** Receives every audit record of every call. */
  readonly onAudit?: (record: AuditRecord) => void;
  /**
   * Where durable runs are journaled: a composite with a wait step then suspends (reported as such)
   * instead of failing its wait.
   */
  readonly store?: RunStore;
  /** What one evaluation of a `when`, `transform` or choice condition may spend (the executor's option). */
  readonly expressionBudget?: Partial<ExpressionBudget>;
  /** For tests: the executor's clock (and the HTTP server's, for idle sessions). */
  readonly clock?: Clock;
  /** The app's OpenTelemetry tracer, handed to every call's executor (see docs/tracing.md). */
  readonly tracer?: Tracer;
  /** With `tracer`: put tool arguments and results on spans, redacted. */
  readonly traceContent?: boolean;
}

/**
 * Validation is the runtime's: it fills defaults and fails the call with kind `validation`, audited,
 * like any other call. The SDK is given schemas that accept everything, so that it lists them as they
 * are and never answers for the runtime.
 */
const RUNTIME_VALIDATES: jsonSchemaValidator = {
  getValidator: () => (input: unknown) => ({ valid: true as const, data: input as never, errorMessage: undefined }),
};

/**
 * The tools a server of `registry` serves: the app's own. A tool of another MCP server is that
 * server's to serve, and an operation of an HTTP API that API's (both names hold a '/'); the
 * composites that call them are served.
 *
 * @example output.err(`serving ${servedTools(registry).length} tools`);
 */
export function servedTools(registry: ToolRegistry): ToolDefinition[] {
  return registry
    .names()
    .map((name) => registry.get(name)!)
    .filter((definition) => definition.remote === undefined && definition.api === undefined);
}

/**
 * A factory of MCP servers for the registry's tools, for `serveStdio` or `createMcpHandler` (one
 * server per connection or per request).
 *
 * @example serveStdio(toolServerFactory({ registry: createToolRegistry() }));
 */
export function toolServerFactory(options: ToolServerOptions): McpServerFactory {
  const definitions = servedTools(options.registry);
  return (request) => {
    const server = new McpServer({ name: options.name ?? 'toolgen', version: options.version ?? packageVersion() });
    // stdio: one factory call per connection, so one session id per connection.
    const connection = `mcp-${randomUUID()}`;
    for (const definition of definitions) {
      const returns = objectSchema(definition.returns);
      server.registerTool(
        definition.name,
        {
          ...(definition.title !== undefined ? { title: definition.title } : {}),
          description: definition.description,
          ...(definition.annotations !== undefined ? { annotations: definition.annotations as ToolAnnotations } : {}),
          inputSchema: fromJsonSchema(definition.parameters as never, RUNTIME_VALIDATES),
          ...(returns ? { outputSchema: fromJsonSchema(returns as never, RUNTIME_VALIDATES) } : {}),
        },
        (input: unknown, ctx: ServerContext) =>
          callTool(
            definition,
            input,
            ctx,
            { sessionId: ctx.sessionId ?? connection, authInfo: ctx.http?.authInfo ?? request.authInfo },
            options,
          ),
      );
    }
    return server;
  };
}

async function callTool(
  definition: ToolDefinition,
  input: unknown,
  ctx: ServerContext,
  caller: McpCaller,
  options: ToolServerOptions,
) {
  const who = options.context ? options.context(caller) : defaultContext(caller, options);
  const context = new AuditContext({ ...who, ...(options.onAudit ? { onRecord: options.onAudit } : {}) });
  const executor = new ChainExecutor({
    registry: options.registry,
    context,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.expressionBudget ? { expressionBudget: options.expressionBudget } : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(options.tracer ? { tracer: options.tracer, traceContent: options.traceContent ?? false } : {}),
  });
  const signal = ctx.mcpReq.signal;
  const key = ctx.mcpReq._meta?.[IDEMPOTENCY_KEY_META];
  const keyed = typeof key === 'string' && key !== '' ? { idempotencyKey: key } : {};
  if (definition.implementation.kind === 'function')
    return toolResult(await executor.call(definition, input, { signal, ...keyed }));
  const reporter = progress(ctx);
  // With a store, a keyed call is a durable run named by its key: sent again, it is the same run.
  const once =
    options.store && typeof key === 'string' && key !== '' ? { runId: keyedRunId(who.userId, definition, key) } : keyed;
  let result: ChainResult<unknown, boolean>;
  try {
    result = await executor.runComposite(definition, input, {
      signal,
      ...once,
      ...(reporter ? { onStep: reporter.onStep } : {}),
    });
  } catch (error) {
    if (error instanceof DurableRunError) return refusedRun(error);
    throw error;
  }
  // The result ends the request: notifications still on their way would arrive after it, and be dropped.
  await reporter?.sent();
  return toolResult(result, definition);
}

/** The run id of a keyed call: the same for the same caller, tool and key, and a valid run id on every store. */
function keyedRunId(userId: string, tool: ToolDefinition, key: string): string {
  const hash = createHash('sha256').update(JSON.stringify([userId, tool.name, key]));
  return `mcp-${hash.digest('hex').slice(0, 40)}`;
}

/** A keyed call the run under its key refuses: sent before with other input, or its run cannot go on. */
function refusedRun(error: DurableRunError): CallToolResult {
  if (error.code === 'run_mismatch')
    return failureResult({
      kind: 'validation',
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: `this ${IDEMPOTENCY_KEY_META} was sent before with other input: a key names one call; send a new key for a new call`,
    });
  return failureResult({ kind: 'execution', code: error.code.toUpperCase(), message: error.message });
}

function defaultContext(caller: McpCaller, options: ToolServerOptions): Omit<AuditContextOptions, 'onRecord'> {
  const { authInfo } = caller;
  if (authInfo) return { userId: authInfo.clientId, sessionId: caller.sessionId, permissions: authInfo.scopes };
  const defaults = options.defaults ?? {};
  return {
    userId: defaults.userId ?? 'mcp',
    sessionId: caller.sessionId,
    casefileId: defaults.casefileId ?? null,
    permissions: [...(defaults.permissions ?? [])],
  };
}

/** A progress notification per recorded step, when the client asked for progress (sent a token); null when it did not. */
function progress(ctx: ServerContext): { onStep: StepListener; sent: () => Promise<unknown> } | null {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return null;
  const sending: Promise<void>[] = [];
  return {
    onStep: ({ index, result }) => {
      const message = `step '${result.step}' ${result.status}${result.error ? `: ${result.error.message}` : ''}`;
      // A notification that cannot be sent (the client went away) must not fail the run.
      sending.push(
        ctx.mcpReq
          .notify({ method: 'notifications/progress', params: { progressToken: token, progress: index + 1, message } })
          .catch(() => {}),
      );
    },
    sent: () => Promise.all(sending),
  };
}

/** MCP wants an object schema for structured output; other `returns` are listed without one. */
function objectSchema(schema: JsonSchema | null): JsonSchema | null {
  return schema && schema['type'] === 'object' ? schema : null;
}
