/**
 * Helpers for tests of generated tools: an executor whose clock never sleeps and whose tools can be
 * replaced by stubs written the way the tool YAML writes them.
 */
import { createTestClock, type TestClock } from './clock.js';
import { AuditContext } from './context.js';
import { ChainExecutor } from './executor.js';
import { RuntimeUsageError } from './errors.js';
import type { ToolRegistry } from './registry.js';
import { ApiOutput, type ApiTarget, type StepResponse } from './remote-api.js';
import type { ToolHandler } from './tool.js';
import { firstSuccessStatus, isSuccessStatus } from '../language/http-status.js';
import { closestName, withSuggestion } from '../language/suggest.js';
import {
  TEST_RANDOM,
  type Stub,
  type StubHttpResponse,
  type StubResponse,
  type TestContext,
} from '../language/testing.js';

export interface TestExecutor {
  readonly executor: ChainExecutor;
  readonly clock: TestClock;
  readonly context: AuditContext;
  /** How many times each stubbed tool was called. */
  readonly calls: ReadonlyMap<string, number>;
}

export interface TestExecutorOptions {
  readonly context?: TestContext;
  /** Tool name to a stub, as the YAML writes one. */
  readonly stubs?: Readonly<Record<string, Stub>>;
  /**
   * Let the tools of other MCP servers and the API operations that no stub replaces call their
   * servers and APIs. Off by default: a test that reaches one fails there, and nothing is called.
   */
  readonly callServers?: boolean;
}

/**
 * @example
 * const { executor, clock } = createTestExecutor(createToolRegistry(), {
 *   stubs: { drive_upload_file: { error: 'quota exceeded' } },
 * });
 */
export function createTestExecutor(registry: ToolRegistry, options: TestExecutorOptions = {}): TestExecutor {
  const calls = new Map<string, number>();
  const handlers: Record<string, ToolHandler<unknown, unknown>> = {};
  if (options.callServers !== true) for (const name of registry.names()) unstubbedRemote(registry, name, handlers);
  for (const [name, stub] of Object.entries(options.stubs ?? {})) {
    const responses = 'sequence' in stub ? stub.sequence : [stub];
    const api = registry.get(name)?.api;
    for (const response of responses) checkStubbedResponse(name, api, response);
    handlers[name] = () => {
      const count = calls.get(name) ?? 0;
      calls.set(name, count + 1);
      const response = responses[Math.min(count, responses.length - 1)]!;
      if ('error' in response) throw new Error(response.error);
      const output = structuredClone(response.output);
      return api === undefined ? output : new ApiOutput(output, stubbedResponse(api, response.response));
    };
  }
  const spec = options.context ?? {};
  checkContextKeys(spec);
  const context = new AuditContext({
    userId: spec.userId ?? 'test_user',
    sessionId: spec.sessionId ?? 'test_session',
    casefileId: spec.casefileId ?? null,
    permissions: spec.permissions ?? [],
  });
  const clock = createTestClock();
  const executor = new ChainExecutor({
    registry: registry.withHandlers(handlers),
    context,
    clock,
    random: () => TEST_RANDOM,
  });
  return { executor, clock, context, calls };
}

/**
 * What a stubbed API operation answers beside its body: the stub's status, or the operation's first
 * success status (`2XX` as 200); the stub's headers, names in lower case, or none.
 */
function stubbedResponse(api: ApiTarget, given: StubHttpResponse | undefined): StepResponse {
  const status = given?.status ?? firstSuccessStatus(api.success);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given?.headers ?? {})) headers[name.toLowerCase()] = value;
  return { status, headers };
}

/** A stub's `response` belongs to an API operation's output, with one of its success statuses. */
function checkStubbedResponse(name: string, api: ApiTarget | undefined, response: StubResponse): void {
  if (!('response' in response) || response.response === undefined) return;
  if (api === undefined || 'error' in response)
    throw new RuntimeUsageError(
      `createTestExecutor: the stub of '${name}' gives a response (status, headers), which only the output of an API operation's stub has`,
    );
  const { status } = response.response;
  if (status !== undefined && !isSuccessStatus(status, api.success))
    throw new RuntimeUsageError(
      `createTestExecutor: the stub of '${name}' answers status ${status}, which is not one of its success statuses (${api.success.join(', ')}): stub a failure with { error }`,
    );
}

/** A tool of another MCP server or an API operation, when it is one: a handler that fails the call, naming the stub it needs. */
function unstubbedRemote(
  registry: ToolRegistry,
  name: string,
  handlers: Record<string, ToolHandler<unknown, unknown>>,
) {
  const tool = registry.get(name);
  const where =
    tool?.remote !== undefined
      ? `a tool of the MCP server '${tool.remote.server}'`
      : tool?.api !== undefined
        ? `an operation of the API '${tool.api.api}'`
        : null;
  if (where === null) return;
  handlers[name] = () => {
    throw new Error(
      `'${name}' is ${where}, which a test executor does not call: ` +
        `stub it (stubs: { '${name}': { output: … } }), or pass callServers: true`,
    );
  };
}

const CONTEXT_KEYS: readonly string[] = ['userId', 'sessionId', 'casefileId', 'permissions'];

/** A key the test context does not know (the YAML's `user_id`, a typo) would be ignored: refuse it, naming the one meant. */
function checkContextKeys(spec: TestContext): void {
  for (const key of Object.keys(spec)) {
    if (CONTEXT_KEYS.includes(key)) continue;
    const meant = closestName(
      key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()),
      CONTEXT_KEYS,
    );
    throw new RuntimeUsageError(
      `${withSuggestion(`createTestExecutor: the context has no key '${key}'`, meant)} (it takes ${CONTEXT_KEYS.join(', ')})`,
    );
  }
}
