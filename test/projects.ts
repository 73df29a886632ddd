/**
 * Which test files belong to which vitest project (`vitest.config.ts`), by what they do:
 *
 * - `unit`: everything under `test/` not listed below. In the test process alone: no process started
 *   (`test/setup/no-processes.ts` makes every `child_process` start throw), no `dist/`, no PostgreSQL,
 *   no browser; `npx vitest run --project unit` needs no build. `test/architecture/projects.test.ts`
 *   holds the unit files and the helpers they import to it.
 * - `slow`: the files below that keep to the same rules as `unit` but take seconds each, so that the
 *   fast loop stays fast; each with why.
 * - `e2e`: the files below: they start processes (the CLI from `dist/`, MCP servers, workers killed
 *   mid-write, Neovim, Chromium, the language server), or read `dist/`, or need PostgreSQL.
 * - `generated`: the tests toolgen wrote (`generated/`, and the adapter projects' under `test/adapters/`).
 */
export const GENERATED = ['generated/**/*.test.ts', 'test/adapters/*/generated/**/*.test.ts'];

export const SLOW = [
  // Type-checks the modules generated for other servers against the runtime's sources, in each test.
  'test/cli/check-server-types.test.ts',
  // Measures the heap after full collections, at thousands of steps; and a chain of 20,000.
  'test/compiler/check/flow.test.ts',
  // Builds the whole golden-diagnostics corpus, and again after each fix.
  'test/lsp/quick-fixes-corpus.test.ts',
  // 300 seeded random plans, each run with the executor's fast path on and forced off, and compared.
  'test/runtime/differential.test.ts',
  // 1,000 chains at once through one registry, checked against a model, twice.
  'test/runtime/soak.test.ts',
];

export const E2E = [
  'test/adapters/ai-sdk.test.ts',
  'test/adapters/exit.test.ts',
  'test/adapters/langchain.test.ts',
  'test/adapters/mastra/mastra.test.ts',
  'test/adapters/openai-agents.test.ts',
  'test/cli/init.test.ts',
  'test/cli/lazy-loading.test.ts',
  'test/cli/load-tools.test.ts',
  'test/cli/mcp-answer-bound.test.ts',
  'test/cli/mcp-diff.test.ts',
  'test/cli/mcp-pull.test.ts',
  'test/cli/readme-commands.test.ts',
  'test/cli/remote-tools.test.ts',
  'test/cli/run-graph.test.ts',
  'test/cli/runs-damaged.test.ts',
  'test/cli/secrets.test.ts',
  'test/cli/signal-race.test.ts',
  'test/cli/signal.test.ts',
  'test/cli/watch-saves.test.ts',
  'test/cli/watch.test.ts',
  'test/compiler/crash-classes.test.ts',
  'test/compiler/emit/mermaid.test.ts',
  'test/compiler/fuzz.test.ts',
  'test/compiler/hostile-strings.test.ts',
  'test/compiler/integrity.test.ts',
  'test/compiler/remote-generated.test.ts',
  'test/compiler/sampled-inputs.test.ts',
  'test/compiler/typescript-worker.test.ts',
  'test/dbos/**/*.test.ts',
  'test/e2e/**/*.test.ts',
  'test/http-apis/generated-types.test.ts',
  'test/http-apis/stub-response.test.ts',
  'test/http/durable-kill.test.ts',
  'test/lsp/branching-remote.test.ts',
  'test/lsp/document-index.test.ts',
  'test/lsp/features.test.ts',
  'test/lsp/golden-diagnostics.test.ts',
  'test/lsp/neovim.test.ts',
  'test/lsp/project-files.test.ts',
  'test/lsp/projects.test.ts',
  'test/remote/client/answer-bound.test.ts',
  'test/remote/client/calls.test.ts',
  'test/remote/client/connections.test.ts',
  'test/remote/client/durable-kill.test.ts',
  'test/remote/client/exit.test.ts',
  'test/remote/client/one-vocabulary.test.ts',
  'test/remote/client/secrets.test.ts',
  'test/remote/client/test-executor.test.ts',
  'test/remote/client/tracing.test.ts',
  'test/remote/client/two-servers.test.ts',
  'test/remote/pull-depth.test.ts',
  'test/runtime/durable/claims.test.ts',
  'test/runtime/durable/crash-points.test.ts',
  'test/runtime/durable/crash.test.ts',
  'test/runtime/durable/suspend.test.ts',
  'test/scripts/bench.test.ts',
  'test/scripts/pack.test.ts',
  'test/scripts/vsix.test.ts',
  'test/serve/serve-cli.test.ts',
  'test/serve/stdio.test.ts',
  'test/studio/actions.browser.test.ts',
  'test/studio/browser-dbos.test.ts',
  'test/studio/browser.test.ts',
];
