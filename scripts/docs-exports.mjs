/**
 * What docs/exports.md says of each public entry's exports: a row per group of names, in the order
 * the page shows them. `node scripts/docs-tables.mjs` writes the page's tables from this and holds
 * it to the entries themselves: every name an entry exports (its index's `export { … } from` lines)
 * is in exactly one row of that entry, and no row names anything else.
 */
export const ENTRIES = [
  {
    entry: 'toolgen',
    source: 'src/index.ts',
    aside: '(the compiler API)',
    intro: 'For build scripts and editors; apps import `@toolgen/runtime` instead.',
    rows: [
      {
        names: [
          'Compiler',
          'CompilerOptions',
          'defaultOptions',
          'BuildResult',
          'HeldBuild',
          'StreamedBuild',
          'OutputFile',
        ],
        text: "`new Compiler(defaultOptions(root, { configDir?, outDir?, templatesDir?, include?, exclude?, configFile?, mcpServers? }))` (`configDir` and `outDir` relative to `root`, default `config/tools` and `generated`; `toolgen.config.yaml` is not read: with `configFile`, its absolute path, each build reads `toolgen.mcp-lock.json` beside it and checks against the servers `mcpServers` lists, as the CLI reads them from that file). `await compiler.build(names?)` reads every tool and returns a `HeldBuild`: `diagnostics`, `built` (the tools built: selected, without errors), `files` (`OutputFile`s: absolute `path` and `content`, what `generated/` should hold), `sources` (text by file, for code frames) and `plans`; it writes nothing. `build(names, { sink })` hands each tool's files to `sink.accept(file)` as they are emitted (only when the build has no errors) instead of holding them, and returns a `StreamedBuild`: no `files` or `plans`, only the `index` (null after errors), and the next build starts afresh; this is how the CLI builds a large project in little memory. `BuildResult` is either (`streamed` tells which). `update(changedFiles)` builds again after edits, reading only those files.",
      },
      {
        names: ['Diagnostic', 'Location', 'DiagnosticId', 'Severity', 'CATALOGUE'],
        text: 'A diagnostic: `id`, `code`, `severity` (`error` or `warning`), `message`, `args`, `location` (`file`, `line`, `column`, `length`; null for a name on the command line), `hint?`, `suggestion?`. `CATALOGUE` is the table of every diagnostic by id: `code`, `severity`, `message` and `hint` templates.',
      },
      {
        names: ['renderDiagnostic', 'main'],
        text: "`renderDiagnostic(diagnostic, { color, sources })` is the CLI's text for one diagnostic, code frame and hint included. `main(args, { cwd? })` runs the CLI on `args` (as after `toolgen`) and returns the exit code.",
      },
    ],
  },
  {
    entry: '@toolgen/runtime',
    source: 'src/runtime/index.ts',
    rows: [
      {
        names: ['ToolRegistry', 'ToolRegistryOptions', 'defineTool'],
        text: '`new ToolRegistry(tools?, { cacheSize?, servers?, apis? })` (`ToolRegistryOptions`): `register`, `get`, `has`, `names()` (sorted), `withHandlers` (the copy shares the servers and APIs), `servers` (the `RemoteServers` given, or null), `apis` (the `RemoteApis` given, or null) and `close()` (closes them; safe twice). `defineTool({ name, description, parameters, implementation, returns?, policies?, audit? })` makes a `ToolDefinition`, filling in the default policies (no casefile, no permissions, no timeout) and audit events (`<name>.succeeded` / `<name>.failed`, nothing redacted).',
      },
      {
        names: [
          'ToolDefinition',
          'ToolImplementation',
          'ToolHandler',
          'ToolCallContext',
          'ToolPolicies',
          'AuditPolicy',
          'ToolSource',
        ],
        text: "A tool as the runtime knows it: `name`, `description`, `parameters` and `returns` (JSON Schemas), `policies` (`requiresCasefile`, `requiredPermissions`, `timeoutSeconds`), `audit` (`successEvent`, `failureEvent`, `redactFields`), and `implementation`: `{ kind: 'function', handler }` or `{ kind: 'composite', plan }`; a remote tool also has `remote` (`server`, `tool`), and may have `title` and `annotations`; a generated composite has `source` (a `ToolSource`: `file`, its YAML relative to the project root, and `steps`, each step's line by step id, nested steps included), kept beside the plan so that `planHash` does not change when only a line moves. A handler is `(input, context) => output` (or a promise of it); its context has `audit` (the `AuditContext`), `chainId`, `stepId`, `attempt`, `idempotencyKey` (durable runs only, else null), `signal` and `executor` (to call other tools as the same caller).",
      },
      {
        names: ['AuditContext', 'AuditContextOptions', 'ChainRecord', 'ChainStatus', 'PlannedToolCall'],
        text: 'The caller and the trail (see [The runtime](runtime.md)). `ChainRecord` is an entry of `chains` and `activeChains`: `chainId`, `chainName`, `status` (`ChainStatus`: `planned`, `running`, `suspended`, `success`, `failed`), `tools` (`PlannedToolCall`s: `name`, `parameters?`), `reasoning`.',
      },
      {
        names: ['AuditRecord', 'redact', 'REDACTED'],
        text: "`AuditRecord` is one attempt in the trail (see [The runtime](runtime.md)). `redact(value, fields)` returns a copy of `value` in which every property named in `fields`, at any depth (inside arrays too), is replaced by `REDACTED` (the text `[REDACTED]`); a cycle becomes `[Circular]`, and an object or array that cannot be read (a getter that throws) `[unreadable]`; with no fields, or a value that is not an object, it returns `value` itself. The runtime applies it with a tool's `audit.redactFields` to every audit record's input and output; use it for your own logs: `redact({ user: { password: 'x' } }, ['password'])` → `{ user: { password: '[REDACTED]' } }`.",
      },
      {
        names: [
          'ChainExecutor',
          'ChainExecutorOptions',
          'RunOptions',
          'CompositeRunOptions',
          'ResumeOptions',
          'ExpressionBudget',
        ],
        text: "The executor and its options (`registry`, `context`, `clock?`, `random?`, `store?`, `tracer?`, `traceContent?`, `expressionBudget?`: a `Partial<ExpressionBudget>`, `{ timeMs, depth }`, what one evaluation of an expression may spend, see Conditions and transforms). `RunOptions` go with any call or run: `signal` (aborting it cancels), `onStep` (a `StepListener`), `idempotencyKey` (what the handler sees as `context.idempotencyKey` outside a durable run; a composite's steps see `<key>/<step>#<visit>`). `CompositeRunOptions` add `runId` and `allowPlanChange`; `ResumeOptions` (for `resume`, `resumeAll`, `signal`) are `RunOptions` and `allowPlanChange`.",
      },
      {
        names: ['StepListener', 'StepEvent'],
        text: "`onStep` is called with a `StepEvent` (`chainId`, `index` in `results`, `result`) as each step execution of the chain the call runs is recorded, blocks and branches included, nested composites' steps not.",
      },
      {
        names: [
          'ChainResult',
          'ChainSuccess',
          'ChainFailure',
          'ChainSuspended',
          'ChainWaiting',
          'ChainFailureReason',
          'StepResult',
          'StepOutcome',
          'AttemptRecord',
          'CallOutcome',
        ],
        text: "What runs return (see above). `ChainResult<S, Suspends>` is `ChainSuccess` (`status` `success` or `partial`), `ChainFailure` (`failed` or `cancelled`, with `failure`: a `ChainFailureReason`), or, for a composite with a wait step, `ChainSuspended` (with `waiting`: a `ChainWaiting`, `step`, `signal`, `schema`, `deadline`). `StepResult` is an entry of `results`, `AttemptRecord` of `execution_history`, `StepOutcome` of a DAG's `outputs` (`success`, `output`, `error` or `skipped`). `CallOutcome` is what `call` returns: `{ ok: true, output }` (an API operation's with `response`: its `status` and `headers`) or `{ ok: false, error }`.",
      },
      {
        names: ['ToolFailure', 'FailureKind', 'ToolCallError', 'RuntimeUsageError'],
        text: "`ToolFailure` is a failure as results carry it: `kind` (a `FailureKind`, listed above), `message`, `code?`, `details?`, `retryable?` (false: retried only when `retry_on` names its code, or `unmet` for an `unmet` failure, which has none) and `retryAfterMs?` (the wait it asks for, at most the backoff's maximum), the last two from the thrown error's own `retryable` and `retryAfterMs` (as an API operation's failures set them, docs/http-apis.md). `invoke` (and an adapter's tool) throws `ToolCallError` (`tool`, `kind`, `details`); `RuntimeUsageError` is thrown for programmer errors only (a plan never validated, a tool registered twice).",
      },
      {
        names: [
          'defineApiOperation',
          'ApiOperationSpec',
          'ApiParameter',
          'ApiTarget',
          'RemoteApis',
          'ApiRequest',
          'ApiResponse',
        ],
        text: "`defineApiOperation<P, R>({ api, operation, method, path, description, parameters, body, success, input, output, policies?, audit? })` (an `ApiOperationSpec`; each parameter an `ApiParameter`: `name`, `key`, `in`, `required`, `style?`, `explode?`): an operation of an HTTP API, named `<api>/<operation>`, called through the registry's `apis` (see docs/http-apis.md); what the generated `apis/<api>.ts` files hold. `ApiTarget` is its `api`: `{ api, operation, method, pathOf(input), success }`. `RemoteApis` is what a registry sends requests through: `send(request)`, `close()`, and optionally `describe(api, path)` (a request's span attributes); `HttpApis` is one. An `ApiRequest` is `api`, `method`, `path` (with its query), `headers`, `body?`, `signal?` (absent when nothing can interrupt the call); an `ApiResponse` is `status`, `headers` (lower-case names) and `body` (JSON parsed, text, or null).",
      },
      {
        names: [
          'adapterRunner',
          'AdapterRun',
          'AdapterCaller',
          'GeneratedFunction',
          'AdapterOutput',
          'SuspendedRunOutput',
          'meetsStrictMode',
          'toolErrorText',
          'AdapterOptions',
          'selectTools',
          'needsApproval',
        ],
        text: "What the generated adapters (`generated/adapters/<framework>.ts`, see Use toolgen in your app, step 9) run on, whichever the framework. `adapterRunner(caller)` takes what a request has (an `AdapterCaller`: a `ChainExecutor`, or the `ChainExecutorOptions` of a new one) and returns an `AdapterRun`, `(definition, fn, input, signal?)`: it calls the tool's generated function (a `GeneratedFunction`, `(executor, params, options?)`) with the model's input, unchecked (the executor checks it), and resolves to an `AdapterOutput<X>` (`X` what the function returns): an atomic tool's output, a composite's final state, or, when its durable run suspends, a `SuspendedRunOutput` (`status: 'suspended'`, `run_id`, `waiting`, `message`). A failure, and a wait step that could not wait (no store), throws a `ToolCallError` whose message names the tool, the step and the kind. `meetsStrictMode(schema)`: whether a JSON Schema meets OpenAI's strict mode as it is (an object; every object's properties all required, `additionalProperties: false`; only the keywords strict mode takes). `toolErrorText(error)`: a failed call as the model reads it, `ToolCallError (<kind>): <tool>: <message>` (the OpenAI Agents adapter's error function). `AdapterOptions<N>`: `{ tools?: N[] }`, the tools a module hands the model. `selectTools(all, nameOf, names?)`: those of `all` named, in that order, each once (all without names; an unknown name throws). `needsApproval(definition, registry)`: whether a person approves a call first: a remote tool pinned `destructiveHint` (true unless it is `readOnlyHint` or says false), or a composite that calls one at any depth.",
      },
      {
        names: ['defineRemoteTool', 'RemoteToolSpec', 'RemoteTarget'],
        text: "`defineRemoteTool<P, R>({ server, tool, description, parameters, returns, title?, annotations?, policies?, audit? })` (a `RemoteToolSpec`): a tool of another MCP server, named `<server>/<tool>`, with its pinned schemas, called through the registry's `servers` (see Tools on other MCP servers); what the generated `servers/<server>.ts` files hold. `RemoteTarget` is its `remote`: `{ server, tool }`.",
      },
      {
        names: ['RemoteServers', 'RemoteCall', 'RemoteToolResult', 'RemoteCallError', 'IDEMPOTENCY_KEY_META'],
        text: "What a registry calls remote tools through: `callTool(call)` and `close()`, and optionally `describe(server)` (the connection's span attributes); `McpServers` is one. A `RemoteCall` is `server`, `tool`, `arguments`, `meta?` (the request's `_meta`), `signal`; a `RemoteToolResult` the part of MCP's `CallToolResult` read: `content`, `structuredContent`, `isError`. `RemoteCallError` (`code`, `message`) is what a failed call rejects with. `IDEMPOTENCY_KEY_META` is `io.toolgen/idempotency-key`, the `_meta` key a durable run's idempotency key travels under.",
      },
      {
        names: ['Attempt'],
        text: 'One attempt as the runtime makes it and a durable journal keeps it: `tool`, `chainId`, `stepId`, `attempt`, `startedAt` and `endedAt` (epoch ms), `waitedMs`, `input`, `outcome` (a `CallOutcome`), `via` (`cache`, `fallback`, `next_tool` or undefined). History entries and audit records are derived from it.',
      },
      {
        names: ['createTestClock', 'systemClock', 'Clock', 'TestClock'],
        text: 'A `Clock` has `now()`, `sleep(ms, signal?)` (a backoff) and `deadline(ms, signal?)` (a bound); both end early when the signal aborts. `systemClock` uses real timers. `createTestClock(start?)` is virtual time, starting at 2026-01-01T00:00:00Z by default: a sleep returns at once and moves time on (`sleeps` lists them), `advance(ms)` lets pending work run and fires the deadlines it passes.',
      },
      {
        names: [
          'createTestExecutor',
          'TestExecutor',
          'TestExecutorOptions',
          'Stub',
          'StubResponse',
          'StubHttpResponse',
          'TestContext',
        ],
        text: "`createTestExecutor(registry, { context?, stubs?, callServers? })` returns a `TestExecutor`: `executor`, `clock` (a `TestClock`), `context`, `calls` (how often each stubbed tool was called). A `Stub` is a `StubResponse` (`{ output }`, with an API operation's `response?`, a `StubHttpResponse`: `{ status?, headers? }`; or `{ error }`) or `{ sequence: [...] }` (the last one repeats); a `TestContext` is `userId?`, `sessionId?`, `casefileId?`, `permissions?`.",
      },
      {
        names: ['unwaitedStep'],
        text: '`unwaitedStep(tool, result)`: the wait step of a composite that failed in `result` for want of a store (not past its deadline), or null; a run with one did not wait, whatever its `status` says (see Waiting for a person).',
      },
      {
        names: ['callerView', 'CallerView', 'suspendedText', 'failedText', 'kindText', 'waitText'],
        text: "A composite run as whoever called it is told of it, as the MCP server, the adapters and `toolgen run` tell it: `callerView(tool, result)` is a `CallerView`, `{ status: 'success' \\| 'partial', output }`, `{ status: 'suspended', runId, waiting }` or `{ status: 'failed' \\| 'cancelled', failure, unwaited }` (a wait step that could not wait is failed at that step, `unwaited: true`). Their words: `suspendedText(runId, waiting, reader?)`, `suspended at step '…': run '…' waits for signal '…' until …` (`with no time limit` without a deadline; `reader` `'model'` adds that the run goes on when the signal comes, so do not call the tool again); `failedText(failure)`, `failed (KIND at step '…'): …`, KIND being `kindText(failure)`, the kind and the error's code when it had one (`execution HTTP_409`); `waitText(waiting)`, `waits for signal '…' until …`.",
      },
      {
        names: ['ResumeAllResult', 'RefusedRun'],
        text: 'What `resumeAll()` returns: `{ resumed, refused }`; a `RefusedRun` is `{ runId, code, message, details, error }`, `code` a `DurableRunErrorCode` or `unexpected` (see Durability, API).',
      },
      {
        names: ['FileRunStore', 'FileRunStoreOptions', 'RunStore', 'RunMark', 'RunClaim', 'SuspendedRun'],
        text: "Durable runs' stores (see Durability). `FileRunStoreOptions` is `{ fsync? }` (default true); `fileRunStore.listing(options?)` is a `FileRunListing` of its folder. `RunMark` is where `mark` moves a run: `{ status: 'running' }`, `{ status: 'suspended', waiting }` or `{ status: 'finished' }`; `suspended()` lists `SuspendedRun`s (`runId`, `waiting`). `RunClaim` is what a store's optional `claim(runId)` returns: `{ claimed: true, release }`, or `{ claimed: false, holder }`, naming the live process that holds the run.",
      },
      {
        names: ['RunListing', 'ListedRunStore', 'RunFacets'],
        text: "What the studio reads of a store, whichever it is: a `ListedRunStore` is a `RunStore` with `listing(options?)` (`FileRunStore`'s returns a `FileRunListing`, `DbosRunStore`'s a `DbosRunListing`); a `RunListing` has `list(query)`, `summary(runId)`, `facets()` (a `RunFacets`: `tools`, `callers`, sorted), `version()`, `records(runId)`, each answering at once or with a promise, `invalidate()`, and optionally `watch(onChange)` (calls it soon after the store is written, where the store can tell: the file store's folder notifications; returns how to stop).",
      },
      {
        names: [
          'FileRunListing',
          'FileRunListingOptions',
          'RunQuery',
          'RunPage',
          'RunSummary',
          'RunStatus',
          'RUN_STATUSES',
        ],
        text: 'Every run of a file store, finished ones included (see The studio). `new FileRunListing(dir, { rescanMs?, now? })`: `list(query)` (a `RunQuery`: `status?`, `tool?`, `caller?`, `from?` and `to?` as ISO times, `limit?` (default 50, at most 500), `cursor?`) returns a `RunPage` (`runs`, newest first, `next`, `total`); `summary(runId)`, `records(runId)` (read without repairing), `facets()` (`tools`, `callers`), `version()` (changes when the runs do), `invalidate()`, `watch(onChange)`, `pruneFinished(before)` (removes the journals, and the claims, of runs that ended before that ISO time; returns their ids). A `RunSummary` is `runId`, `tool`, `status` (a `RunStatus`, one of `RUN_STATUSES`: `running`, `waiting`, `succeeded`, `failed`, `cancelled`, `unfinished`), `startedAt`, `endedAt`, `caller`, `waiting`, `failure`. It rescans the folder at most once per `rescanMs` (default 1000).',
      },
      {
        names: ['RunDispatcher', 'ContinueHere', 'DispatchedResult'],
        text: "What a store that decides where runs execute carries as its `dispatcher` (`@toolgen/runtime/dbos` has one; the file store none): `attach(continueHere)` is given, by each executor that uses the store, the `ContinueHere` function (`(runId, { allowPlanChange? })` → a `DispatchedResult`, the run's `ChainResult`) that continues a journaled run in this process; `dispatch(runId, segment, options)` runs a stretch of a run (`start`, or `wait-N` once its Nth wait ended) where the store chooses, once however often it is asked, and returns its result; `recover()` is what `resumeAll()` does on that store, and returns a `ResumeAllResult` (a run it cannot continue is in `refused`, not thrown).",
      },
      {
        names: [
          'JournalRecord',
          'StartRecord',
          'AttemptsRecord',
          'StepRecord',
          'DecisionRecord',
          'SuspendRecord',
          'SignalRecord',
          'EndRecord',
        ],
        text: "A journal's records, by `type`: `start`, `attempts`, `step`, `decided`, `suspend`, `signal`, `end` (see The file store).",
      },
      {
        names: ['DurableRunError', 'DurableRunErrorCode', 'planHash'],
        text: "`DurableRunError` has a `code` (`no_store`, `unknown_run`, `unknown_tool`, `plan_changed`, `policy` (on the file store, continuing a run as a caller its tool's policy refuses: `resume`, `signal`, `resumeAll`, the run left as it was), `run_mismatch`, `not_suspended`, `running` (a `resume` or a start of a run id another live process is continuing), `wrong_signal`, `invalid_payload`, `expired`, `corrupt_journal`, `bad_run_id`) and `details`. `planHash(plan)` is the hash a run is stored with: `sha256:` and the hex SHA-256 of the plan's JSON with its keys sorted.",
      },
      {
        names: ['planOutline', 'planChanges', 'PlanOutline', 'PlanChanges'],
        text: "`planOutline(plan)` is the plan in brief that a durable run's start record keeps beside its hash (`planOutline` in the journal): `settings`, a hash of the plan without its steps, and `steps`, a 12-character hash of each step by id (its own fields, the steps inside a block by id only), about 30 bytes a step. `planChanges(outline, plan)` says what `plan` changed since: `added`, `removed` and `changed` step ids, and `settings` (true when the entry, mode or limits differ). Journals written before it have no outline.",
      },
      {
        names: [
          'ChainPlan',
          'PlanStep',
          'CallStep',
          'ParallelStep',
          'LoopStep',
          'ChoiceStep',
          'WaitStep',
          'StepSequence',
          'SuccessTransition',
          'OutputMapping',
          'FailurePolicy',
          'Backoff',
          'NextToolPolicy',
        ],
        text: 'The plan a composite runs (what the compiler lowers YAML to, and `executeChain` takes): every step with its id, every target explicit (`null` ends), every policy with its numbers. `PlanStep` is one of the five step kinds, by `kind`: `call`, `parallel`, `loop`, `choice`, `wait`.',
      },
      {
        names: ['LoopOutput', 'LoopItemFailure'],
        text: "A loop's output: `results` (the body's last output per item, null where it failed) and `failures` (`index`, `step`, `kind`, `message`).",
      },
      {
        names: ['JsonValue', 'JsonSchema'],
        text: 'JSON values, and a JSON Schema as an object of keywords.',
      },
      {
        names: ['Tracer', 'TraceSpan', 'TraceContext', 'TraceAttributes', 'TraceAttributeValue'],
        text: 'The few methods of an OpenTelemetry `Tracer`, `Span` and `Context` the runtime calls, declared by the runtime itself so that no `@opentelemetry/api` is imported; a tracer from any api 1.x fits (see Tracing). `TraceAttributes` is a record of `TraceAttributeValue`s (a string, number or boolean).',
      },
    ],
  },
  {
    entry: '@toolgen/runtime/agents',
    source: 'src/runtime/agents/index.ts',
    rows: [
      {
        names: ['ToolPlanner', 'PlanRun', 'PlanStatus'],
        text: 'Runs plans written at run time (see Plans written at run time): `execute(executor, plan, { requestId?, signal? })` → `PlanRun` (`request_id`, `plan_id`, `status`: `running`, `success`, `failed` or `rejected`, `errors` when rejected, `outputs`); `status(planId)`; `definition()`, the meta-tool. `new ToolPlanner({ maxRemembered?, now? })`.',
      },
      {
        names: ['toChainPlan', 'StepPlan', 'ToolListPlan', 'PLAN_TOOL'],
        text: "`toChainPlan(plan, registry, name?)` validates a plan in either format (`StepPlan`: `{ steps, output_steps? }`; `ToolListPlan`: `{ tools }`) and returns `{ plan }` (a DAG `ChainPlan`) or `{ errors }`, without running it. `PLAN_TOOL` is the meta-tool's name, `execute_tool_plan`.",
      },
      {
        names: ['callMany', 'CallManyOptions', 'ToolCall', 'ToolResult'],
        text: '`callMany(executor, calls, { concurrency? })` runs `ToolCall`s (`id?`, `name`, `arguments` as an object or JSON text) in parallel, at most `concurrency` at a time (default: all), and returns one `ToolResult` per call, in order: `id`, `name`, `success`, `result` or `error` and `errorKind`, `executionTime` (ms).',
      },
      {
        names: ['validateToolCalls', 'validateToolDefinitions', 'toProviderTools', 'Provider', 'ValidationReport'],
        text: "Provider rules (the table in [Resilience](resilience.md)), for a `Provider`: `openai`, `anthropic` or `ollama`. `validateToolCalls(calls, provider, known?)` and `validateToolDefinitions(definitions, provider)` return a `ValidationReport` (`valid`, `errors`: one sentence per problem); `toProviderTools(definitions, provider)` writes the definitions in the provider's tool format.",
      },
    ],
  },
  {
    entry: '@toolgen/runtime/mcp',
    source: 'src/serve/index.ts',
    rows: [
      {
        names: ['toolServerFactory', 'ToolServerOptions', 'McpCaller'],
        text: "A factory of MCP servers (one per connection or request), for the SDK's own serving (`createMcpHandler`). `ToolServerOptions`: `registry`, `name?` and `version?` (what `initialize` reports), `context?` (an `McpCaller`, `sessionId` and `authInfo`, to the caller's `AuditContextOptions`), `defaults?` (`userId`, `casefileId`, `permissions` when there is no token), `onAudit?`, `store?` (a `RunStore`: composites with a wait step suspend), `expressionBudget?` (every call's executor's), `clock?` (the executor's, and `serveHttp`'s for idle sessions), `tracer?` and `traceContent?` (as the executor's, see Tracing).",
      },
      {
        names: ['serveStdio', 'StdioServerHandle'],
        text: 'Serves the tools on stdin/stdout; the handle has `close()`.',
      },
      {
        names: ['serveHttp', 'HttpServerOptions', 'HttpServerHandle'],
        text: "Serves them over Streamable HTTP: `ToolServerOptions` plus `port` (0 picks a free one), `host?` (default `127.0.0.1`; any other address throws unless `auth` or `allowUnauthenticated: true` is given), `path?` (default `/mcp`), `auth?` (`HttpAuthOptions`), `allowedHosts?`, `allowedOrigins?`, `maxSessions?` (default 100), `sessionIdleTimeoutMs?` (default 30 minutes), `maxConnections?` (default 256), `headersTimeoutMs?` (default 10 s, at most `requestTimeoutMs`), `requestTimeoutMs?` (default 30 s, at least `headersTimeoutMs`; one given alone moves the other's default along), `maxRequestBodySize?` (default 4 MiB), as the CLI's flags in [Serving over MCP](serving.md) (a body nested deeper than 1,000 levels is answered 400; timeouts that cannot hold, or a `maxConnections` that is not a whole number of at least 1, throw); the handle has `url`, `server` (the Node HTTP server) and `close()`.",
      },
      {
        names: ['HttpAuthOptions', 'staticTokens', 'StaticToken', 'sha256'],
        text: "`HttpAuthOptions`: `verifier` (the SDK's `OAuthTokenVerifier`: `verifyAccessToken(token)` → `AuthInfo`, whose `clientId` is the user and `scopes` the permissions, with an `expiresAt`), `resourceUrl?` (as `--public-url`: its host name is allowed, its path is where the metadata is also served), `authorizationServers?` and `scopesSupported?` (published in the metadata), `requiredScopes?` (403 `insufficient_scope` without them). `staticTokens([{ token or sha256, user, scopes, expiresAt? }])` is the verifier `--tokens` uses; `sha256(text)` the hex digest it compares.",
      },
      {
        names: ['toolResult'],
        text: 'A `CallOutcome` or `ChainResult` as an MCP `CallToolResult`, as the server answers (see the table in [Serving over MCP](serving.md)); `toolResult(result, tool)` also reports a wait that could not happen.',
      },
    ],
  },
  {
    entry: '@toolgen/runtime/mcp-client',
    source: 'src/remote/client/index.ts',
    rows: [
      {
        names: ['McpServers', 'McpServerSpec', 'McpServersOptions'],
        text: "`new McpServers(specs, options?)`: the connections to the servers remote tools live on (a `RemoteServers`: `callTool`, `close`, `describe`, and `names()`, and `client(server)`, the official SDK `Client` of the server's session, connecting if needed, for what toolgen does not call: resources, prompts), what the generated `createToolRegistry()` gives the registry. An `McpServerSpec` is `{ command, args?, env?, cwd? }` (stdio) or `{ url, headers? }` (Streamable HTTP), `${NAME}` read when connecting; `McpServersOptions` are `mcpServers?` (overrides by name), `root?` and `env?` (see Tools on other MCP servers). Needs `@modelcontextprotocol/client` in the app's dependencies.",
      },
    ],
  },
  {
    entry: '@toolgen/runtime/http',
    source: 'src/remote/http/index.ts',
    rows: [
      {
        names: ['HttpApis', 'HttpApisOptions', 'ApiSpec', 'DEFAULT_MAX_RESPONSE_BYTES'],
        text: '`new HttpApis(apis, options?)`: the connections to the HTTP APIs operations belong to (a `RemoteApis`, with `names()`); each `ApiSpec` is `{ baseUrl, headers? }`, `${NAME}` read at each call. `HttpApisOptions`: `env?`, `overrides?` (by API name, laid over the declared ones), `maxResponseBytes?` (default `DEFAULT_MAX_RESPONSE_BYTES`, 8 MiB), `fetch?`. See docs/http-apis.md.',
      },
    ],
  },
  {
    entry: '@toolgen/runtime/dbos',
    source: 'src/dbos/index.ts',
    rows: [
      {
        names: ['DbosRunStore', 'DbosRunStoreOptions', 'DbosQueueOptions'],
        text: "The durable run store on DBOS Transact (see Across machines: DBOS on PostgreSQL). `new DbosRunStore(options)` (the options table there; `queue` is a `DbosQueueOptions`: `name?`, `workerConcurrency?`, `globalConcurrency?`, `pollingIntervalMs?`): `launch()`, `shutdown()`, `recoverDeadExecutors()` (the run ids it moved), `superviseEvery(ms)` (returns a function that stops it), `executorId`, `queueName`, `listing()` (a `DbosRunListing`), `hasJournal()` (whether the database holds toolgen's tables; rejects when it cannot be reached), and the `RunStore` and `RunDispatcher` methods the executor calls.",
      },
      {
        names: ['DbosRunListing'],
        text: "Every run of a `DbosRunStore`, finished ones included, from `store.listing()` (before `launch()` too, once a worker has made the tables): the `RunListing` methods, each returning a promise. `list(query)` is two statements (the page, by an index in the listing's order: newest start first, run ids by code unit, one index per filter of tool, caller and outcome; and the count), `summary(runId)`, `records(runId)`, `facets()` (read again only when the version moved), `version()` (the sum of two sequences every journal write and every mark moves), `invalidate()` (nothing to forget). Statuses as in The studio.",
      },
    ],
  },
  {
    entry: '@toolgen/runtime/studio',
    source: 'src/studio/index.ts',
    rows: [
      {
        names: ['createStudioHandler', 'StudioOptions', 'StudioHandler', 'StudioAnswer', 'StudioAction'],
        text: "The studio's pages (see In your own server): `createStudioHandler(options)` returns a `StudioHandler`, `(request: Request) => Promise<Response>`.",
      },
      {
        names: ['toNodeListener', 'NodeListener'],
        text: '`toNodeListener(handler)`: the handler as a `node:http` listener, `(request, response) => void`.',
      },
      {
        names: ['hostAllowed'],
        text: "`hostAllowed(host, allowed)`: whether a `Host` header names localhost, 127.0.0.1, [::1] or one of `allowed` (or `allowed` is `'any'`); what the handler checks.",
      },
    ],
  },
];
