/**
 * End to end: toolgen as a user gets it, following the README's "Use toolgen in your app" step by step
 * in a fresh app outside the repository. `scripts/pack.mjs` packs the two packages (`toolgen`, the CLI,
 * and `@toolgen/runtime`); the app installs the runtime as a production dependency and the CLI as a
 * development one (`npm install --prefer-offline`: the npm cache `npm ci` filled serves nearly all of
 * it), generates its tools, type-checks and compiles them with tsc, runs its tests with vitest and
 * itself with tsx and with node. Then it is installed for production (`npm ci --omit=dev`), which
 * must hold the runtime and nothing of the compiler, and run again; that install's size is printed.
 *
 * Set TOOLGEN_E2E_KEEP=1 to keep the temporary app for inspection.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNTIME_MODULE } from '../../src/compiler/emit/runtime-module.js';
import { STATEMENTS, between } from '../helpers/docs.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const SETUP_TIMEOUT = 240_000;
const STEP_TIMEOUT = 120_000;

// ---------------------------------------------------------------------------------------------
// The sample app
// ---------------------------------------------------------------------------------------------

const FUNCTION_YAML = 'config/tools/text/shout_tool.yaml';
const COMPOSITE_YAML = 'config/tools/text/shout_twice_chain.yaml';
const TICKET_YAML = 'config/tools/text/shout_ticket.yaml';

/** The README's tsconfig.json for an app, as the guide shows it. */
const APP_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023'],
    types: ['node'],
    strict: true,
    skipLibCheck: true,
    rootDir: '.',
    outDir: 'dist',
  },
  include: ['config', 'generated', 'src', 'test'],
};

const APP_FILES: Readonly<Record<string, string>> = {
  'tsconfig.json': `${JSON.stringify(APP_TSCONFIG, null, 2)}\n`,

  'vitest.config.ts': `import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['generated/**/*.test.ts', 'test/**/*.test.ts'] },
});
`,

  'config/tools/text/shout.ts': `import { existsSync, readFileSync } from 'node:fs';
import type { ToolCallContext } from '${RUNTIME_MODULE}';

/** The handler of \`shout_tool\`. */
export interface ShoutInput {
  text: string;
  times?: number;
}

export interface ShoutOutput {
  loud: string;
  length: number;
}

/** A file an operator may drop beside the app to end every shout (Node's own modules: the README's tsconfig types them). */
const SUFFIX_FILE = process.env['SHOUT_SUFFIX_FILE'] ?? 'shout-suffix.txt';

export function shout(input: ShoutInput, context: ToolCallContext): ShoutOutput {
  context.signal.throwIfAborted();
  const suffix = existsSync(SUFFIX_FILE) ? readFileSync(SUFFIX_FILE, 'utf8').trim() : '';
  const loud = Array.from({ length: input.times ?? 1 }, () => input.text.toUpperCase()).join(' ') + suffix;
  return { loud, length: loud.length };
}
`,

  // A composite with a constrained parameter and no examples: its generated failure-path test must
  // pass as it is, with an input the compiler made to meet the pattern.
  [TICKET_YAML]: `name: shout_ticket
description: Shouts a ticket reference
parameters:
  - { name: ticket, type: string, required: true, pattern: '^[A-Z]{2,4}-[0-9]{3}$' }
implementation:
  type: composite
  composite:
    steps:
      - id: shout
        tool: shout_tool
        inputs: { text: << state.ticket >> }
        on_success: { map_outputs: { loud: loud_ticket } }
`,

  // The app itself: what \`node dist/src/main.js\` runs in production.
  'src/main.ts': `import { AuditContext, ChainExecutor } from '${RUNTIME_MODULE}';
import { createToolRegistry, shoutTwiceChain } from '../generated/index.js';

const executor = new ChainExecutor({
  registry: createToolRegistry(),
  context: new AuditContext({ userId: 'user_123', sessionId: 'session_456' }),
});
const result = await shoutTwiceChain(executor, { greeting: process.argv[2] ?? 'hello' });
if (result.success) console.log(JSON.stringify(result.final_state));
else {
  console.error(result.failure.step, result.failure.message);
  process.exitCode = 1;
}
`,

  [FUNCTION_YAML]: `name: shout_tool
display_name: Shout Tool
description: Upper-cases a text, optionally repeating it.
category: text
version: 1.0.0

parameters:
  - name: text
    type: string
    required: true
    min_length: 1
    description: The text to shout.
  - name: times
    type: integer
    min_value: 1
    max_value: 5
    description: How many times to repeat it.

returns:
  type: object
  required: [loud, length]
  properties:
    loud: { type: string, description: The shouted text. }
    length: { type: integer }

implementation:
  type: function
  module: ./shout.ts
  export: shout

examples:
  - description: shouts once
    input: { text: hello }
    expected_output: { loud: HELLO, length: 5 }
  - description: shouts twice
    input: { text: hey, times: 2 }
    expected_output: { loud: HEY HEY }

error_scenarios:
  - description: rejects an empty text
    input: { text: '' }
    expected_error: { kind: validation, message_contains: text }
`,

  [COMPOSITE_YAML]: `name: shout_twice_chain
display_name: Shout Twice Chain
description: Shouts a greeting, then shouts the result again, twice, with a suffix.
category: text
version: 1.0.0

parameters:
  - name: greeting
    type: string
    required: true

implementation:
  type: composite
  composite:
    steps:
      - id: first
        tool: shout_tool
        inputs:
          text: << state.greeting >>
        on_success:
          map_outputs:
            loud: first_loud
      - id: second
        tool: shout_tool
        inputs:
          text: "<< state.first_loud >>, again"
          times: 2
        on_success:
          map_outputs:
            loud: final_loud
            length: final_length

examples:
  - description: shouts twice in a row
    input: { greeting: hi }
    expected_output:
      first_loud: HI
      final_loud: HI, AGAIN HI, AGAIN
      final_length: 19

error_scenarios:
  - description: stops when the second shout fails
    input: { greeting: hi }
    stubs:
      shout_tool:
        sequence:
          - output: { loud: HI, length: 2 }
          - error: throat is sore
    expected_error: { step: second, kind: execution, message_contains: throat is sore }
`,

  // The app's own test: generated code used the way an app uses it, with the real executor.
  'test/app.test.ts': `import { describe, expect, it } from 'vitest';
import { AuditContext, ChainExecutor, ToolCallError } from '${RUNTIME_MODULE}';
import { createToolRegistry, generatedTools, shoutTool, shoutTwiceChain, type ShoutToolResult, type ShoutTwiceChainState } from '../generated/index.js';

function executor(): { executor: ChainExecutor; context: AuditContext } {
  const context = new AuditContext({ userId: 'u1', sessionId: 's1' });
  return { executor: new ChainExecutor({ registry: createToolRegistry(), context }), context };
}

describe('the app', () => {
  it('registers every generated tool', () => {
    expect(generatedTools.map((tool) => tool.name).sort()).toEqual(['shout_ticket', 'shout_tool', 'shout_twice_chain']);
  });

  it('calls the function tool through its typed function', async () => {
    const output: ShoutToolResult = await shoutTool(executor().executor, { text: 'a', times: 3 });
    expect(output).toEqual({ loud: 'A A A', length: 5 });
    await expect(shoutTool(executor().executor, { text: '' })).rejects.toBeInstanceOf(ToolCallError);
  });

  it('runs the composite with the real executor and records an audit trail', async () => {
    const { executor: run, context } = executor();
    const result = await shoutTwiceChain(run, { greeting: 'hello' });
    if (!result.success) throw new Error(\`the chain failed: \${result.failure.message}\`);
    const state: ShoutTwiceChainState = result.final_state;
    expect(state).toMatchObject({ first_loud: 'HELLO', final_loud: 'HELLO, AGAIN HELLO, AGAIN', final_length: 25 });
    const steps = context.trail.filter((record) => record.tool === 'shout_tool');
    expect(steps.map((record) => [record.stepId, record.status, record.event])).toEqual([
      ['first', 'success', 'shout_tool.succeeded'],
      ['second', 'success', 'shout_tool.succeeded'],
    ]);
    expect(steps[0]?.chainId).toBe(result.chain_id);
    expect(steps[0]?.input).toEqual({ text: 'hello' });
  });

  it('has typed parameters and state', () => {
    const { executor: run } = executor();
    // @ts-expect-error \`times\` is a number
    const badCall = () => shoutTool(run, { text: 'x', times: 'two' });
    const badState = (state: ShoutTwiceChainState) => {
      // @ts-expect-error \`final_length\` is a number
      const length: string = state.final_length;
      return length;
    };
    expect([typeof badCall, typeof badState]).toEqual(['function', 'function']);
  });
});
`,
};

/** What the app's generated tests and its own test are called; all of them must pass. */
const EXPECTED_TESTS: Readonly<Record<string, readonly string[]>> = {
  'generated/tests/shout_tool.test.ts': ['shouts once', 'shouts twice', 'rejects an empty text'],
  'generated/tests/shout_twice_chain.test.ts': ['shouts twice in a row', 'stops when the second shout fails'],
  'generated/tests/shout_ticket.test.ts': ["when step 'shout' fails, on_failure stop stops the chain"],
  'test/app.test.ts': [
    'registers every generated tool',
    'calls the function tool through its typed function',
    'runs the composite with the real executor and records an audit trail',
    'has typed parameters and state',
  ],
};

const GENERATED_FILES = [
  'generated/graphs/shout_ticket.md',
  'generated/graphs/shout_twice_chain.md',
  'generated/index.ts',
  'generated/tools/shout_ticket.ts',
  'generated/tools/shout_tool.ts',
  'generated/tools/shout_twice_chain.ts',
  'generated/tests/shout_ticket.test.ts',
  'generated/tests/shout_tool.test.ts',
  'generated/tests/shout_twice_chain.test.ts',
];

// ---------------------------------------------------------------------------------------------
// The agents app: step 9 of the guide, each framework's agent loop over the same tools
// ---------------------------------------------------------------------------------------------

/** The frameworks step 9 installs, at this repository's versions (what `npm ci` and its `prepare` cached). */
const FRAMEWORKS = ['ai', '@langchain/core', 'langchain', '@openai/agents', '@mastra/core'] as const;

/**
 * What step 9 of "Use toolgen in your app" shows, as it is: each code block that starts with a file's
 * name (its toolgen.config.yaml and its four modules), by that name.
 */
function stepNineFiles(): Record<string, string> {
  const section = between(STATEMENTS.stepNine, STATEMENTS.afterStepNine);
  const blocks = [...section.matchAll(/```(?:ts|yaml)\n((?:\/\/|#) (\S+)\n[\s\S]*?)```/g)];
  return Object.fromEntries(blocks.map((block) => [block[2]!, block[1]!]));
}

/** The agents app's own test: each of step 9's modules, with its framework's mock or scripted model. */
const AGENTS_TEST = `import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { setTracingDisabled, Usage, type AgentOutputItem, type Model, type ModelRequest, type ModelResponse, type StreamEvent } from '@openai/agents';
import type { LanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { AuditContext, ChainExecutor } from '${RUNTIME_MODULE}';
import { createToolRegistry, type ShoutTwiceChainState } from '../generated/index.js';
import { askAiSdk } from '../src/agents/ai-sdk.js';
import { askLangChain } from '../src/agents/langchain.js';
import { askMastra } from '../src/agents/mastra.js';
import { askOpenAIAgents } from '../src/agents/openai-agents.js';

const TOOL = 'shout_twice_chain';
const VALID = { greeting: 'hi' };
const INVALID = { greeting: 42 };
const STATE: ShoutTwiceChainState = { greeting: 'hi', first_loud: 'HI', final_loud: 'HI, AGAIN HI, AGAIN', final_length: 19 };

function request(userId: string): { context: AuditContext; executor: ChainExecutor } {
  const context = new AuditContext({ userId, sessionId: 's1' });
  return { context, executor: new ChainExecutor({ registry: createToolRegistry(), context }) };
}

/** The composite's runs in the trail: who ran it, and how it ended. */
const runs = (context: AuditContext) =>
  context.trail.filter((record) => record.tool === TOOL).map((record) => [record.userId, record.status, record.error?.kind ?? null]);

setTracingDisabled(true);

describe("step 9's agents", () => {
  it('AI SDK: generateText runs the composite through toolgen, and refuses the invalid call as a tool error', async () => {
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    };
    const call = (toolCallId: string, input: unknown) => ({
      content: [{ type: 'tool-call' as const, toolCallId, toolName: TOOL, input: JSON.stringify(input) }],
      finishReason: { unified: 'tool-calls' as const, raw: undefined },
      usage,
      warnings: [],
    });
    const done = { content: [{ type: 'text' as const, text: 'done' }], finishReason: { unified: 'stop' as const, raw: undefined }, usage, warnings: [] };
    const model = new MockLanguageModelV3({ doGenerate: [call('1', VALID), call('2', INVALID), done] });
    const { context, executor } = request('ai-sdk');
    expect(await askAiSdk(model as LanguageModel, executor, 'Shout hi.')).toBe('done');
    const sent = (turn: number) => model.doGenerateCalls[turn]!.prompt.flatMap((message) => (message.role === 'tool' ? message.content : [])).at(-1);
    expect(sent(1)).toMatchObject({ type: 'tool-result', output: { type: 'json', value: STATE } });
    expect(sent(2)).toMatchObject({ type: 'tool-result', output: { type: 'error-text' } });
    expect(runs(context)).toEqual([['ai-sdk', 'success', null], ['ai-sdk', 'failed', 'validation']]);
  });

  it('LangChain: createAgent runs the composite through toolgen, and answers the invalid call with an error ToolMessage', async () => {
    const model = fakeModel()
      .respondWithTools([{ name: TOOL, args: VALID, id: '1' }])
      .respondWithTools([{ name: TOOL, args: INVALID, id: '2' }])
      .respond(new AIMessage('done'));
    const context = new AuditContext({ userId: 'langchain', sessionId: 's1' });
    expect(await askLangChain(model, context, 'Shout hi.')).toBe('done');
    const sent = (turn: number) => model.calls[turn]!.messages.filter(ToolMessage.isInstance).at(-1)!;
    expect(JSON.parse(sent(1).content as string)).toEqual(STATE);
    expect(sent(2).status).toBe('error');
    expect(runs(context)).toEqual([['langchain', 'success', null]]);
  });

  it('OpenAI Agents: run() runs the composite through toolgen, and words the invalid call with its errorFunction', async () => {
    const script: AgentOutputItem[][] = [
      [{ type: 'function_call', callId: '1', name: TOOL, arguments: JSON.stringify(VALID), status: 'completed' }],
      [{ type: 'function_call', callId: '2', name: TOOL, arguments: JSON.stringify(INVALID), status: 'completed' }],
      [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }],
    ];
    const requests: ModelRequest[] = [];
    const model: Model = {
      async getResponse(request: ModelRequest): Promise<ModelResponse> {
        requests.push(request);
        return { usage: new Usage(), output: script.shift()! };
      },
      getStreamedResponse(): AsyncIterable<StreamEvent> {
        throw new Error('not streamed');
      },
    };
    const { context, executor } = request('openai-agents');
    expect(await askOpenAIAgents(model, executor, 'Shout hi.')).toBe('done');
    const sent = (turn: number) => {
      const input = requests[turn]!.input;
      const last = (typeof input === 'string' ? [] : input).filter((item) => item.type === 'function_call_result').at(-1);
      return last?.type === 'function_call_result' ? (last.output as { text: string }).text : '';
    };
    expect(JSON.parse(sent(1))).toEqual(STATE);
    expect(sent(2)).toContain("input to 'shout_twice_chain' is invalid");
    expect(runs(context)).toEqual([['openai-agents', 'success', null], ['openai-agents', 'failed', 'validation']]);
  });

  it('Mastra: Agent.generate runs the composite through toolgen, and returns the invalid call as the error it made of it', async () => {
    const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
    const call = (toolCallId: string, input: unknown) => ({
      content: [{ type: 'tool-call', toolCallId, toolName: TOOL, input: JSON.stringify(input) }],
      finishReason: 'tool-calls',
    });
    const script = [call('1', VALID), call('2', INVALID), { content: [{ type: 'text', text: 'done' }], finishReason: 'stop' }];
    const prompts: unknown[][] = [];
    const model = {
      specificationVersion: 'v2' as const,
      provider: 'openai.chat',
      modelId: 'gpt-4o',
      supportedUrls: {},
      async doGenerate(options: { prompt: unknown[] }) {
        prompts.push(options.prompt);
        return { ...script.shift()!, usage, warnings: [] };
      },
      async doStream(): Promise<never> {
        throw new Error('not streamed');
      },
    };
    const { context, executor } = request('mastra');
    expect(await askMastra(model as never, executor, 'Shout hi.')).toBe('done');
    const sent = (turn: number) => JSON.parse(JSON.stringify(prompts[turn]!.at(-1)));
    expect(sent(1)).toMatchObject({ role: 'tool', content: [{ output: { type: 'json', value: STATE } }] });
    expect(JSON.stringify(sent(2))).toContain("input to 'shout_twice_chain' is invalid");
    expect(runs(context)).toEqual([['mastra', 'success', null], ['mastra', 'failed', 'validation']]);
  });
});
`;

/** What the agents app's test is called; all of it must pass, with the generated tests. */
const AGENTS_TESTS: readonly string[] = [
  'AI SDK: generateText runs the composite through toolgen, and refuses the invalid call as a tool error',
  'LangChain: createAgent runs the composite through toolgen, and answers the invalid call with an error ToolMessage',
  'OpenAI Agents: run() runs the composite through toolgen, and words the invalid call with its errorFunction',
  'Mastra: Agent.generate runs the composite through toolgen, and returns the invalid call as the error it made of it',
];

// ---------------------------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------------------------

interface Run {
  readonly command: string;
  readonly cwd: string;
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment of every child: no colour, not CI, never the network, nothing of this vitest run. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: '1',
    CI: '',
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
  };
  for (const key of Object.keys(env)) {
    if (/^(VITEST|npm_lifecycle_|npm_package_)/.test(key) || key === 'FORCE_COLOR' || key === 'npm_config_local_prefix')
      delete env[key];
  }
  return env;
}

function run(command: string, args: readonly string[], cwd: string, timeout = STEP_TIMEOUT): Run {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: childEnv(),
    timeout,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error)
    throw new Error(`could not run \`${command} ${args.join(' ')}\` in ${cwd}: ${result.error.message}`);
  return {
    command: `${command} ${args.join(' ')}`,
    cwd,
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
  };
}

/** A run, for assertion messages. */
function show(result: Run): string {
  return `\`${result.command}\` in ${result.cwd} exited ${result.status}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
}

function expectSuccess(result: Run): Run {
  expect(result.status, show(result)).toBe(0);
  return result;
}

/** toolgen's own diagnostics in some output (npm's warnings about its config are not ours). */
function diagnosticsIn(text: string): string[] {
  return text.split('\n').filter((line) => /\b(error|warning) TG\d{4}\b/.test(line));
}

// ---------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------

function write(root: string, file: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((file) => statSync(path.join(dir, file)).isFile())
    .map((file) => file.split(path.sep).join('/'))
    .sort();
}

/** Every file under `dir` with its content, by relative path. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(listFiles(dir).map((file) => [file, readFileSync(path.join(dir, file), 'utf8')]));
}

/** Source files of the package whose compiled output in dist/ is missing or older. */
function staleDist(): string[] {
  const src = path.join(REPO, 'src');
  const stale: string[] = [];
  const configs = ['package.json', 'tsconfig.json', 'tsconfig.build.json'].map(
    (file) => statSync(path.join(REPO, file)).mtimeMs,
  );
  for (const file of listFiles(src)) {
    if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
    const out = path.join(REPO, 'dist', file.replace(/\.ts$/, '.js'));
    const built = existsSync(out) ? statSync(out).mtimeMs : -1;
    if (built < statSync(path.join(src, file)).mtimeMs || configs.some((mtime) => built < mtime)) stale.push(file);
  }
  return stale;
}

// ---------------------------------------------------------------------------------------------
// Packages and installs
// ---------------------------------------------------------------------------------------------

interface PackageJson {
  name: string;
  version: string;
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  scripts?: Record<string, string>;
}

/** One package as `scripts/pack.mjs --json` reports it. */
interface Packed {
  name: string;
  version: string;
  tarball: string;
  files: string[];
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

/** The version of a package installed in this repository: what `npm ci` put in the npm cache. */
function installedVersion(name: string): string {
  // Mastra has an install of its own, beside its tests (see test/adapters/mastra/package.json).
  const root = name.startsWith('@mastra/') ? path.join(REPO, 'test/adapters/mastra') : REPO;
  const file = path.join(root, 'node_modules', name, 'package.json');
  if (!existsSync(file)) throw new Error(`${name} is not installed in ${root}; run \`npm ci\` in ${REPO} first`);
  return readJson<PackageJson>(file).version;
}

/** npm 11's lines about dependencies whose install scripts it did not run (or would have). */
function installScriptWarnings(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => /install-scripts|prepare|postinstall|preinstall/.test(line) && /\S+@\d/.test(line));
}

/** Bytes of the files under `dir`, as `du -sb` counts them (apparent sizes, directories included). */
function diskUsage(dir: string): number {
  const result = spawnSync('du', ['-sb', dir], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`du -sb ${dir} failed: ${result.stderr}`);
  return Number(result.stdout.split('\t')[0]);
}

// ---------------------------------------------------------------------------------------------
// The test
// ---------------------------------------------------------------------------------------------

/** Where both apps live, and the packed packages they install: made once for the file. */
let tmp = '';
let cli: Packed;
let runtime: Packed;
let repoVersion = '';

beforeAll(() => {
  // dist/ must be what src/ compiles to; `npm test` has just built it, a lone run may need to.
  const stale = staleDist();
  if (stale.length > 0) expectSuccess(run('npm', ['run', 'build'], REPO, SETUP_TIMEOUT));
  expect(staleDist(), 'dist/ is older than src/ even after `npm run build`').toEqual([]);

  tmp = mkdtempSync(path.join(os.tmpdir(), 'toolgen-e2e-'));

  // 1. Pack both packages (`npm run pack` without its build: dist/ is current, and rebuilding it
  //    would rewrite it while other test files may be reading it).
  const packed = expectSuccess(
    run(
      process.execPath,
      [path.join(REPO, 'scripts/pack.mjs'), '--out', path.join(tmp, 'pack'), '--json'],
      REPO,
      SETUP_TIMEOUT,
    ),
  );
  const report = JSON.parse(packed.stdout) as Packed[];
  cli = report.find((entry) => entry.name === 'toolgen')!;
  runtime = report.find((entry) => entry.name === RUNTIME_MODULE)!;
  expect(
    [cli, runtime].every((entry) => entry && existsSync(entry.tarball)),
    show(packed),
  ).toBe(true);
  repoVersion = readJson<PackageJson>(path.join(REPO, 'package.json')).version;
}, SETUP_TIMEOUT);

// Removing an app's node_modules took 14 s on a busy disk: past the default 10 s hook timeout.
afterAll(() => {
  if (!tmp) return;
  if (process.env['TOOLGEN_E2E_KEEP']) console.log(`toolgen e2e: kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}, SETUP_TIMEOUT);

describe('the packed packages, installed into a fresh app as the README says', () => {
  let app = '';
  /** The three `npm install`s of the guide: the runtime, the CLI and its companions, tsx. */
  const installs: Run[] = [];

  const toolgen = (...args: string[]) => run('npx', ['--no-install', 'toolgen', ...args], app);
  const appFile = (file: string) => path.join(app, file);
  const npmInstall = (...args: string[]) =>
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...args], app, SETUP_TIMEOUT);

  /** The app as written, freshly generated, with `toolgen check` passing. */
  function resetApp(): void {
    for (const [file, text] of Object.entries(APP_FILES)) write(app, file, text);
    for (const file of listFiles(appFile('config/tools'))) {
      if (/\.ya?ml$/.test(file) && !(`config/tools/${file}` in APP_FILES)) rmSync(appFile(`config/tools/${file}`));
    }
    expectSuccess(toolgen());
    expectSuccess(toolgen('check'));
  }

  beforeAll(() => {
    app = path.join(tmp, 'app');
    mkdirSync(app);

    // 2. The guide, with the tarballs for the package names: an ES module package, the runtime as a
    //    production dependency, the CLI (and TypeScript, vitest, Node's types) as development ones,
    //    tsx to run TypeScript directly. The same versions as this repository's, which `npm ci` cached.
    expectSuccess(run('npm', ['init', '-y'], app));
    expectSuccess(run('npm', ['pkg', 'set', 'type=module'], app));
    installs.push(expectSuccess(npmInstall(runtime.tarball)));
    installs.push(
      expectSuccess(
        npmInstall(
          '--save-dev',
          cli.tarball,
          `typescript@${installedVersion('@typescript/native')}`,
          `vitest@${installedVersion('vitest')}`,
          `vite@${installedVersion('vite')}`,
          `@types/node@${installedVersion('@types/node')}`,
        ),
      ),
    );
    installs.push(expectSuccess(npmInstall('--save-dev', `tsx@${installedVersion('tsx')}`)));
    for (const [file, text] of Object.entries(APP_FILES)) write(app, file, text);
  }, SETUP_TIMEOUT);

  it('packs the CLI with dist/, the templates, the schema and the reference, and none of the repository itself', () => {
    const required = [
      'package.json',
      'README.md',
      ...readdirSync(path.join(REPO, 'docs'))
        .filter((file) => file.endsWith('.md'))
        .map((file) => `docs/${file}`),
      'config/tool.schema.json',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/bin.js',
      'dist/runtime/index.js',
      'dist/runtime/index.d.ts',
      ...listFiles(path.join(REPO, 'templates')).map((file) => `templates/${file}`),
      ...listFiles(path.join(REPO, 'src'))
        .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
        .flatMap((file) => [`dist/${file.replace(/\.ts$/, '.js')}`, `dist/${file.replace(/\.ts$/, '.d.ts')}`]),
    ];
    expect(
      required.filter((file) => !cli.files.includes(file)),
      'files missing from the tarball',
    ).toEqual([]);
    const allowed =
      /^(package\.json|README\.md|docs\/[^/]+\.md|LICENSE(\.\w+)?|config\/tool\.schema\.json|dist\/.+|templates\/.+)$/;
    expect(
      cli.files.filter((file) => !allowed.test(file)),
      'files that should not be in the tarball',
    ).toEqual([]);
  });

  it('packs the runtime with what generated code runs on, and nothing of the compiler or the CLI', () => {
    const runtimeSources = listFiles(path.join(REPO, 'src'))
      .filter(
        (file) =>
          /^((runtime|language|serve|remote\/client|remote\/connect|remote\/http|dbos|studio)\/|remote\/declare\/spec\.ts$)/.test(
            file,
          ) &&
          file.endsWith('.ts') &&
          !file.endsWith('.d.ts') &&
          // The printer of types: the compiler's, migrate's and the language server's; the runtime prints none.
          file !== 'language/print.ts',
      )
      .flatMap((file) => [`dist/${file.replace(/\.ts$/, '.js')}`, `dist/${file.replace(/\.ts$/, '.d.ts')}`]);
    expect(
      runtimeSources.filter((file) => !runtime.files.includes(file)),
      'files missing from the runtime tarball',
    ).toEqual([]);
    expect(
      runtime.files.filter(
        (file) =>
          !/^(package\.json|README\.md|dist\/((runtime|language|serve|remote\/client|remote\/connect|remote\/http|dbos|studio)\/.+|remote\/declare\/spec)\.(js|d\.ts))$/.test(
            file,
          ),
      ),
    ).toEqual([]);
    const manifest = readJson<PackageJson>(appFile(`node_modules/${RUNTIME_MODULE}/package.json`));
    expect(Object.keys(manifest.exports ?? {})).toEqual([
      '.',
      './agents',
      './mcp',
      './mcp-client',
      './http',
      './dbos',
      './studio',
      './package.json',
    ]);
    expect(manifest.dependencies).toEqual({
      ajv: expect.any(String),
      jsonata: expect.any(String),
      re2js: expect.any(String),
    });
    // DBOS and its driver are for apps that choose @toolgen/runtime/dbos: optional peers, never installed with the runtime.
    expect(manifest.peerDependencies).toMatchObject({
      '@dbos-inc/dbos-sdk': expect.any(String),
      pg: expect.any(String),
    });
    expect(manifest.peerDependenciesMeta).toMatchObject({
      '@dbos-inc/dbos-sdk': { optional: true },
      pg: { optional: true },
    });
  });

  it('installs both packages with no install script and no warning about one, each where the guide puts it', () => {
    for (const install of installs.slice(0, 2))
      expect(installScriptWarnings(`${install.stdout}\n${install.stderr}`), show(install)).toEqual([]);
    // tsx brings esbuild, whose postinstall npm 11 lists (the README says it is not needed); nothing else.
    const tsx = installs[2]!;
    expect(
      installScriptWarnings(`${tsx.stdout}\n${tsx.stderr}`).filter((line) => !/\besbuild@/.test(line)),
      show(tsx),
    ).toEqual([]);
    for (const name of ['toolgen', RUNTIME_MODULE]) {
      const manifest = readJson<PackageJson>(appFile(`node_modules/${name}/package.json`));
      expect(manifest.scripts, `${name} ships scripts`).toBeUndefined();
      expect(manifest.devDependencies, `${name} ships devDependencies`).toBeUndefined();
    }
    const manifest = readJson<PackageJson>(appFile('package.json'));
    expect(Object.keys(manifest.dependencies ?? {})).toEqual([RUNTIME_MODULE]);
    expect(Object.keys(manifest.devDependencies ?? {}).sort()).toEqual([
      '@types/node',
      'toolgen',
      'tsx',
      'typescript',
      'vite',
      'vitest',
    ]);
    // The CLI asks for a runtime of its own version, and never pulls one in for production.
    const cliManifest = readJson<PackageJson>(appFile('node_modules/toolgen/package.json'));
    expect(cliManifest.peerDependencies?.[RUNTIME_MODULE]).toBe(repoVersion);
    expect(cliManifest.peerDependenciesMeta?.[RUNTIME_MODULE]).toEqual({ optional: true });
  });

  it('installs a working bin, compiler API and runtime, and the CLI package exports no runtime', () => {
    const version = expectSuccess(toolgen('--version'));
    expect(version.stdout.trim()).toBe(repoVersion);
    expect(
      readFileSync(appFile('node_modules/toolgen/dist/cli/bin.js'), 'utf8').startsWith('#!/usr/bin/env node\n'),
    ).toBe(true);
    const script = [
      "const api = await import('toolgen');",
      `const runtime = await import('${RUNTIME_MODULE}');`,
      `const agents = await import('${RUNTIME_MODULE}/agents');`,
      `const mcp = await import('${RUNTIME_MODULE}/mcp');`,
      "const pkg = (await import('toolgen/package.json', { with: { type: 'json' } })).default;",
      "const old = await import('toolgen/runtime').then(() => 'exported', (error) => error.code);",
      'console.log(JSON.stringify({ api: Object.keys(api).sort(), runtime: Object.keys(runtime).sort(), agents: Object.keys(agents).sort(), mcp: Object.keys(mcp).sort(), version: pkg.version, old }));',
    ].join('\n');
    const loaded = expectSuccess(run(process.execPath, ['--input-type=module', '-e', script], app));
    const exported = JSON.parse(loaded.stdout) as {
      api: string[];
      runtime: string[];
      agents: string[];
      mcp: string[];
      version: string;
      old: string;
    };
    expect(exported.api).toEqual(expect.arrayContaining(['Compiler', 'defaultOptions', 'main']));
    expect(exported.runtime).toEqual(
      expect.arrayContaining(['AuditContext', 'ChainExecutor', 'ToolRegistry', 'createTestExecutor', 'defineTool']),
    );
    expect(exported.agents).toEqual([
      'PLAN_TOOL',
      'ToolPlanner',
      'callMany',
      'toChainPlan',
      'toProviderTools',
      'validateToolCalls',
      'validateToolDefinitions',
    ]);
    expect(exported.mcp).toEqual(expect.arrayContaining(['serveHttp', 'serveStdio', 'toolServerFactory']));
    expect(exported.version).toBe(repoVersion);
    expect(exported.old).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('`npx toolgen` generates the tools, their tests and the index', () => {
    const build = expectSuccess(toolgen());
    expect(diagnosticsIn(build.stderr), show(build)).toEqual([]);
    expect(build.stdout).toMatch(/toolgen: 3 tools built, 9 files written in generated\b/);
    expect(listFiles(appFile('generated')).map((file) => `generated/${file}`)).toEqual([...GENERATED_FILES].sort());
    for (const file of GENERATED_FILES)
      expect(readFileSync(appFile(file), 'utf8')).toMatch(/^(\/\/|<!--) Generated by toolgen/);

    const again = expectSuccess(toolgen());
    expect(again.stdout, 'a second build must write nothing').toMatch(/3 tools built, 0 files written/);
  });

  it('the generated code and the handler type-check strictly (`tsc --noEmit`)', () => {
    if (!existsSync(appFile('generated/index.ts'))) resetApp();
    const tsc = run('npx', ['--no-install', 'tsc', '--noEmit', '-p', '.'], app);
    expect(tsc.status, show(tsc)).toBe(0);
    expect(tsc.stdout.trim(), show(tsc)).toBe('');
  });

  it('the generated tests and the app test pass (`npx vitest run`)', () => {
    if (!existsSync(appFile('generated/index.ts'))) resetApp();
    const reportFile = path.join(tmp, 'vitest-report.json');
    const vitest = run(
      'npx',
      ['--no-install', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`],
      app,
    );
    expect(vitest.status, show(vitest)).toBe(0);
    const report = readJson<{
      numFailedTests: number;
      testResults: Array<{ name: string; assertionResults: Array<{ title: string; status: string }> }>;
    }>(reportFile);
    expect(report.numFailedTests).toBe(0);
    const results = Object.fromEntries(
      report.testResults.map((file) => [
        path.relative(app, file.name).split(path.sep).join('/'),
        Object.fromEntries(file.assertionResults.map((test) => [test.title, test.status])),
      ]),
    );
    expect(Object.keys(results).sort()).toEqual(Object.keys(EXPECTED_TESTS).sort());
    for (const [file, titles] of Object.entries(EXPECTED_TESTS)) {
      for (const title of titles) expect(results[file]?.[title], `${file} › ${title}`).toBe('passed');
    }
  });

  it(`generated code imports only ${RUNTIME_MODULE}, vitest in tests, and the app itself`, () => {
    if (!existsSync(appFile('generated/index.ts'))) resetApp();
    const problems: string[] = [];
    const generated = listFiles(appFile('generated')).filter((file) => file.endsWith('.ts'));
    expect(generated.length).toBeGreaterThan(0);
    for (const file of generated) {
      const absolute = appFile(`generated/${file}`);
      const text = readFileSync(absolute, 'utf8');
      if (/\brequire\s*\(/.test(text)) problems.push(`${file}: uses require()`);
      const specifiers = [
        ...text.matchAll(
          /\bfrom\s+['"]([^'"]+)['"]|\bimport\s+['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
        ),
      ].map((match) => match[1] ?? match[2] ?? match[3] ?? '');
      expect(specifiers.length, `${file} imports nothing`).toBeGreaterThan(0);
      for (const specifier of specifiers) {
        if (specifier === RUNTIME_MODULE) continue;
        if (specifier === 'vitest' && file.endsWith('.test.ts')) continue;
        if (!specifier.startsWith('./') && !specifier.startsWith('../')) {
          problems.push(`${file}: imports '${specifier}'`);
          continue;
        }
        const target = path.resolve(path.dirname(absolute), specifier);
        const relative = path.relative(app, target);
        const inApp =
          !relative.startsWith('..') &&
          !path.isAbsolute(relative) &&
          !relative.split(path.sep).includes('node_modules');
        const exists = [target, target.replace(/\.js$/, '.ts'), target.replace(/\.mjs$/, '.mts')].some((candidate) =>
          existsSync(candidate),
        );
        if (!inApp || !exists)
          problems.push(`${file}: imports '${specifier}', which is ${inApp ? 'missing' : 'outside the app'}`);
      }
    }
    expect(problems).toEqual([]);
    expect(readFileSync(appFile('generated/tools/shout_tool.ts'), 'utf8')).toContain(
      "from '../../config/tools/text/shout.js'",
    );
  });

  it("`npx toolgen run` runs the composite with the app's TypeScript handler, through tsx", () => {
    if (!existsSync(appFile('generated/index.ts'))) resetApp();
    const run = toolgen('run', 'shout_twice_chain', '--input', '{"greeting":"hi"}', '--json');
    expect(run.status, show(run)).toBe(0);
    const trace = JSON.parse(run.stdout) as {
      success: boolean;
      output: unknown;
      steps: Array<{ step: string; status: string }>;
    };
    expect(trace.steps.map((step) => [step.step, step.status])).toEqual([
      ['first', 'success'],
      ['second', 'success'],
    ]);
    expect(trace.output).toMatchObject({ first_loud: 'HI', final_loud: 'HI, AGAIN HI, AGAIN' });
    const graph = expectSuccess(toolgen('graph', 'shout_twice_chain'));
    expect(graph.stdout).toMatch(/^flowchart TD\n/);
  });

  it("`npx toolgen serve` serves the app's tools over MCP (stdio), with the app's handlers", async () => {
    if (!existsSync(appFile('generated/index.ts'))) resetApp();
    const client = new Client({ name: 'toolgen-e2e', version: '1.0.0' });
    const npx = path.join(path.dirname(process.execPath), 'npx');
    await client.connect(
      new StdioClientTransport({
        command: existsSync(npx) ? npx : 'npx',
        args: ['--no-install', 'toolgen', 'serve'],
        cwd: app,
        env: childEnv() as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['shout_ticket', 'shout_tool', 'shout_twice_chain']);
      const result = await client.callTool({ name: 'shout_twice_chain', arguments: { greeting: 'yo' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ first_loud: 'YO', final_loud: 'YO, AGAIN YO, AGAIN' });
    } finally {
      await client.close();
    }
  });

  it('the app runs on Node 20 through tsx, and compiled with tsc', () => {
    if (!existsSync(appFile('generated/index.ts'))) resetApp();
    const expected = { greeting: 'hi', first_loud: 'HI', final_loud: 'HI, AGAIN HI, AGAIN', final_length: 19 };
    const loader = expectSuccess(run('npx', ['--no-install', 'tsx', 'src/main.ts', 'hi'], app));
    expect(JSON.parse(loader.stdout)).toEqual(expected);
    const tsc = run('npx', ['--no-install', 'tsc', '-p', '.'], app);
    expect(tsc.status, show(tsc)).toBe(0);
    const compiled = expectSuccess(run(process.execPath, ['dist/src/main.js', 'hi'], app));
    expect(JSON.parse(compiled.stdout)).toEqual(expected);
  });

  it('a production install (`npm ci --omit=dev`) holds the runtime and nothing of the compiler, and runs the compiled app', () => {
    if (!existsSync(appFile('dist/src/main.js'))) {
      resetApp();
      expectSuccess(run('npx', ['--no-install', 'tsc', '-p', '.'], app));
    }
    // What a deployment gets: the manifest, the lockfile and the compiled app, in a folder of its own.
    const prod = path.join(tmp, 'prod');
    rmSync(prod, { recursive: true, force: true });
    mkdirSync(prod);
    for (const file of ['package.json', 'package-lock.json']) cpSync(appFile(file), path.join(prod, file));
    cpSync(appFile('dist'), path.join(prod, 'dist'), { recursive: true });
    const install = expectSuccess(
      run('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], prod, SETUP_TIMEOUT),
    );
    expect(installScriptWarnings(`${install.stdout}\n${install.stderr}`), show(install)).toEqual([]);

    const installed = readdirSync(path.join(prod, 'node_modules')).flatMap((name) =>
      name.startsWith('@')
        ? readdirSync(path.join(prod, 'node_modules', name)).map((scoped) => `${name}/${scoped}`)
        : name.startsWith('.')
          ? []
          : [name],
    );
    expect(installed).toContain(RUNTIME_MODULE);
    const compilerOnly = [
      'toolgen',
      'ts-morph',
      '@ts-morph/common',
      'typescript',
      'handlebars',
      'chokidar',
      'commander',
      'yaml',
      '@modelcontextprotocol/server',
      '@modelcontextprotocol/client',
      'vitest',
      'tsx',
      'esbuild',
    ];
    expect(installed.filter((name) => compilerOnly.includes(name))).toEqual([]);
    const size = diskUsage(path.join(prod, 'node_modules'));
    console.log(
      `toolgen e2e: production install of the sample app: ${installed.length} packages, ${size} bytes (du -sb node_modules)`,
    );
    // The compiler alone (ts-morph bundles TypeScript) is tens of MB; the runtime and its two dependencies are a few.
    expect(size).toBeLessThan(8_000_000);

    // `@toolgen/runtime/mcp` needs the MCP SDK, which the runtime leaves to the app (see the README).
    const mcp = run(process.execPath, ['--input-type=module', '-e', `await import('${RUNTIME_MODULE}/mcp')`], prod);
    expect(mcp.status, show(mcp)).not.toBe(0);
    expect(mcp.stderr).toMatch(/Cannot find package '@modelcontextprotocol\/(server|node)'/);
    // So does `@toolgen/runtime/mcp-client`, which the generated index imports only when the lock pins servers.
    const client = run(
      process.execPath,
      ['--input-type=module', '-e', `await import('${RUNTIME_MODULE}/mcp-client')`],
      prod,
    );
    expect(client.status, show(client)).not.toBe(0);
    expect(client.stderr).toMatch(/Cannot find package '@modelcontextprotocol\/client'/);

    const started = expectSuccess(run(process.execPath, ['dist/src/main.js', 'hey'], prod));
    expect(JSON.parse(started.stdout)).toMatchObject({ first_loud: 'HEY', final_loud: 'HEY, AGAIN HEY, AGAIN' });
  });

  it('`npx toolgen check` passes, and names the stale file after a YAML edit', () => {
    resetApp();
    const clean = expectSuccess(toolgen('check'));
    expect(clean.stdout).toContain('up to date');

    const before = snapshot(appFile('generated'));
    const edited = APP_FILES[FUNCTION_YAML]!.replace(
      'description: Upper-cases a text, optionally repeating it.',
      'description: Upper-cases a text, and may repeat it.',
    );
    expect(edited).not.toBe(APP_FILES[FUNCTION_YAML]);
    write(app, FUNCTION_YAML, edited);

    const check = toolgen('check');
    expect(check.status, show(check)).toBe(1);
    expect(check.stdout, show(check)).toMatch(/stale:\s+generated\/tools\/shout_tool\.ts/);
    expect(check.stdout).not.toContain('shout_twice_chain');
    expect(snapshot(appFile('generated')), '`toolgen check` must not write').toEqual(before);

    expectSuccess(toolgen());
    expect(readFileSync(appFile('generated/tools/shout_tool.ts'), 'utf8')).toContain(
      'Upper-cases a text, and may repeat it.',
    );
    expectSuccess(toolgen('check'));
  });

  it('`npx toolgen init` scaffolds a project that builds, type-checks and passes its tests, and refuses to overwrite it', () => {
    const scaffold = path.join(app, 'scaffold');
    rmSync(scaffold, { recursive: true, force: true });
    mkdirSync(scaffold, { recursive: true });
    const inScaffold = (...args: string[]) => run('npx', ['--no-install', 'toolgen', ...args], scaffold);
    const init = expectSuccess(inScaffold('init'));
    expect(init.stdout).toContain('created toolgen.config.yaml');
    expect(init.stdout).toContain('npx toolgen');
    const build = expectSuccess(inScaffold());
    expect(diagnosticsIn(build.stderr), show(build)).toEqual([]);
    expect(build.stdout).toMatch(/2 tools built, 6 files written in generated\b/);
    const tsc = run('npx', ['--no-install', 'tsc', '--noEmit', '-p', '.'], scaffold);
    expect(tsc.status, show(tsc)).toBe(0);
    const vitest = run('npx', ['--no-install', 'vitest', 'run'], scaffold);
    expect(vitest.status, show(vitest)).toBe(0);
    expect(vitest.stdout).toMatch(/Tests\s+\d+ passed/);
    const again = inScaffold('init');
    expect(again.status, show(again)).toBe(2);
    expect(again.stderr).toContain('init writes nothing over existing files, and these exist: toolgen.config.yaml');
  });

  it('a new YAML file with a syntax error: exit 1, file:line:col and a TG code, generated/ untouched', () => {
    resetApp();
    const before = snapshot(appFile('generated'));
    write(
      app,
      'config/tools/text/broken_tool.yaml',
      'name: broken_tool\ndescription: [a flow sequence that never ends\nimplementation:\n  type: function\n',
    );

    const build = toolgen();
    expect(build.status, show(build)).toBe(1);
    expect(build.stderr, show(build)).toMatch(/config\/tools\/text\/broken_tool\.yaml:\d+:\d+ error TG1\d{3}\b/);
    expect(snapshot(appFile('generated'))).toEqual(before);
  });

  // Breaking a tool that has been generated before: its files, and its place in the index, must stay.
  it.each([
    {
      kind: 'a YAML syntax error (duplicate key)',
      edit: (yaml: string) => yaml.replace('category: text\n', 'category: text\ncategory: again\n'),
      at: (yaml: string) => ({ line: lineOf(yaml, 'category: again'), column: 1 }),
      code: 'TG1001',
    },
    {
      kind: 'a schema error (misspelt field)',
      edit: (yaml: string) => yaml.replace('    min_length: 1\n', '    min_lenght: 1\n'),
      at: (yaml: string) => ({ line: lineOf(yaml, '    min_lenght: 1'), column: 5 }),
      code: 'TG1102',
    },
  ])(
    'breaking the generated tool shout_tool with $kind: exit 1, file:line:col and $code, generated/ untouched',
    ({ edit, at, code }) => {
      resetApp();
      const before = snapshot(appFile('generated'));
      const broken = edit(APP_FILES[FUNCTION_YAML]!);
      expect(broken).not.toBe(APP_FILES[FUNCTION_YAML]);
      write(app, FUNCTION_YAML, broken);
      const { line, column } = at(broken);

      const build = toolgen();
      expect(build.status, show(build)).toBe(1);
      expect(build.stderr, show(build)).toContain(`${FUNCTION_YAML}:${line}:${column} error ${code} `);
      // The composite calls a tool that is broken, not missing: no "no tool named" cascade.
      expect(
        diagnosticsIn(build.stderr).filter((found) => found.includes("no tool named 'shout_tool'")),
        show(build),
      ).toEqual([]);
      const after = snapshot(appFile('generated'));
      expect(changedFiles(before, after), `generated/ changed after a failed build\n${show(build)}`).toEqual([]);
      expect(after).toEqual(before);
    },
  );
});

describe("the generated adapters in a fresh app, each in its framework's agent loop, as step 9 says", () => {
  let agents = '';
  /** The install of the runtime with the four frameworks, the app's own dependencies. */
  let frameworks: Run;
  const inAgents = (...args: string[]) => run('npx', ['--no-install', ...args], agents);

  beforeAll(() => {
    agents = path.join(tmp, 'agents');
    mkdirSync(agents);
    const npmInstall = (...args: string[]) =>
      run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...args], agents, SETUP_TIMEOUT);
    expectSuccess(run('npm', ['init', '-y'], agents));
    expectSuccess(run('npm', ['pkg', 'set', 'type=module'], agents));
    frameworks = expectSuccess(
      npmInstall(runtime.tarball, ...FRAMEWORKS.map((name) => `${name}@${installedVersion(name)}`)),
    );
    expectSuccess(
      npmInstall(
        '--save-dev',
        cli.tarball,
        `typescript@${installedVersion('@typescript/native')}`,
        `vitest@${installedVersion('vitest')}`,
        `vite@${installedVersion('vite')}`,
        `@types/node@${installedVersion('@types/node')}`,
      ),
    );
    const shared = ['tsconfig.json', 'vitest.config.ts', 'config/tools/text/shout.ts', FUNCTION_YAML, COMPOSITE_YAML];
    for (const file of shared) write(agents, file, APP_FILES[file]!);
    for (const [file, text] of Object.entries(stepNineFiles())) write(agents, file, text);
    write(agents, 'test/agents.test.ts', AGENTS_TEST);
  }, SETUP_TIMEOUT);

  it('takes the config and the four modules from the README, and the frameworks install with no script but the one it names', () => {
    expect(Object.keys(stepNineFiles()).sort()).toEqual([
      'src/agents/ai-sdk.ts',
      'src/agents/langchain.ts',
      'src/agents/mastra.ts',
      'src/agents/openai-agents.ts',
      'toolgen.config.yaml',
    ]);
    // Mastra's OpenTelemetry exporters bring protobufjs, whose postinstall the README says to deny.
    expect(
      installScriptWarnings(`${frameworks.stdout}\n${frameworks.stderr}`).filter((line) => !/\bprotobufjs@/.test(line)),
      show(frameworks),
    ).toEqual([]);
    const manifest = readJson<PackageJson>(path.join(agents, 'package.json'));
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual([...FRAMEWORKS, RUNTIME_MODULE].sort());
  });

  it('`npx toolgen` writes a module per framework beside the tools, and `toolgen check` passes', () => {
    const build = expectSuccess(inAgents('toolgen'));
    expect(diagnosticsIn(build.stderr), show(build)).toEqual([]);
    expect(build.stdout).toMatch(/toolgen: 2 tools built, 10 files written in generated\b/);
    expect(listFiles(path.join(agents, 'generated/adapters'))).toEqual([
      'ai-sdk.ts',
      'langchain.ts',
      'mastra.ts',
      'openai-agents.ts',
    ]);
    expectSuccess(inAgents('toolgen', 'check'));
  });

  it('each adapter imports only the runtime, its framework and the generated index', () => {
    const allowed: Record<string, readonly string[]> = {
      'ai-sdk.ts': ['ai'],
      'langchain.ts': ['@langchain/core/tools'],
      'openai-agents.ts': ['@openai/agents'],
      'mastra.ts': ['@mastra/core/tools'],
    };
    for (const [file, framework] of Object.entries(allowed)) {
      const text = readFileSync(path.join(agents, 'generated/adapters', file), 'utf8');
      const specifiers = [...text.matchAll(/\bfrom\s+'([^']+)'/g)].map((match) => match[1]);
      expect(specifiers.sort(), file).toEqual([...framework, RUNTIME_MODULE, '../index.js'].sort());
    }
  });

  it("the adapters and the README's modules type-check strictly with the frameworks' own types (`tsc --noEmit`)", () => {
    if (!existsSync(path.join(agents, 'generated/adapters/ai-sdk.ts'))) expectSuccess(inAgents('toolgen'));
    const tsc = inAgents('tsc', '--noEmit', '-p', '.');
    expect(tsc.status, show(tsc)).toBe(0);
    expect(tsc.stdout.trim(), show(tsc)).toBe('');
  });

  it("each README module runs its framework's loop over the composite, through toolgen, with a mock model (`npx vitest run`)", () => {
    if (!existsSync(path.join(agents, 'generated/adapters/ai-sdk.ts'))) expectSuccess(inAgents('toolgen'));
    const reportFile = path.join(tmp, 'agents-report.json');
    const vitest = inAgents(
      'vitest',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${reportFile}`,
    );
    expect(vitest.status, show(vitest)).toBe(0);
    const report = readJson<{
      numFailedTests: number;
      testResults: Array<{ name: string; assertionResults: Array<{ title: string; status: string }> }>;
    }>(reportFile);
    expect(report.numFailedTests).toBe(0);
    const ours = report.testResults.find((file) => file.name.endsWith('test/agents.test.ts'));
    expect(Object.fromEntries((ours?.assertionResults ?? []).map((test) => [test.title, test.status]))).toEqual(
      Object.fromEntries(AGENTS_TESTS.map((title) => [title, 'passed'])),
    );
  });
});

function lineOf(text: string, line: string): number {
  const index = text.split('\n').indexOf(line);
  if (index === -1) throw new Error(`no line '${line}'`);
  return index + 1;
}

function changedFiles(before: Record<string, string>, after: Record<string, string>): string[] {
  const files = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...files].filter((file) => before[file] !== after[file]).sort();
}

// ---------------------------------------------------------------------------------------------
// An app whose composite calls tools on another MCP server, deployed as the README says
// ---------------------------------------------------------------------------------------------

/** The memory server, a production dependency of the app: it runs beside it over stdio. */
const MEMORY_SERVER = '@modelcontextprotocol/server-memory';

const REMOTE_APP_FILES: Readonly<Record<string, string>> = {
  'tsconfig.json': `${JSON.stringify(APP_TSCONFIG, null, 2)}\n`,

  'toolgen.config.yaml': `mcpServers:
  memory:
    command: node
    args: [node_modules/${MEMORY_SERVER}/dist/index.js]
`,

  'config/tools/people/remember_person.yaml': `name: remember_person
description: Stores a fact about a person in the memory server, then reads the graph back.
parameters:
  - { name: person, type: string, required: true }
  - { name: fact, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
      - id: store
        tool: memory/create_entities
        inputs:
          entities:
            - { name: << state.person >>, entityType: person, observations: [<< state.fact >>] }
      - id: read
        tool: memory/read_graph
        inputs: {}
        on_success: { map_outputs: { entities: people } }
`,

  'src/main.ts': `import { AuditContext, ChainExecutor } from '${RUNTIME_MODULE}';
import { createToolRegistry, rememberPerson } from '../generated/index.js';

const registry = createToolRegistry();
const executor = new ChainExecutor({ registry, context: new AuditContext({ userId: 'ops', sessionId: 'deploy' }) });
const result = await rememberPerson(executor, { person: process.argv[2] ?? 'dana', fact: process.argv[3] ?? 'approves' });
await registry.close(); // stops the memory server: nothing outlives the app
if (result.success) console.log(JSON.stringify(result.final_state.people));
else {
  console.error(result.failure.step, result.failure.message);
  process.exitCode = 1;
}
`,
};

describe('an app whose composite calls another MCP server, built, compiled and installed for production as the README says', () => {
  let remote = '';
  const inRemote = (...args: string[]) => run('npx', ['--no-install', ...args], remote);

  beforeAll(() => {
    remote = path.join(tmp, 'remote');
    mkdirSync(remote);
    const npmInstall = (...args: string[]) =>
      run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...args], remote, SETUP_TIMEOUT);
    expectSuccess(run('npm', ['init', '-y'], remote));
    expectSuccess(run('npm', ['pkg', 'set', 'type=module'], remote));
    // Step 1: the runtime, and (the lock will pin servers) the MCP client, as production dependencies;
    // the server itself is one too, since the app starts it.
    expectSuccess(
      npmInstall(
        runtime.tarball,
        `@modelcontextprotocol/client@${installedVersion('@modelcontextprotocol/client')}`,
        `${MEMORY_SERVER}@${installedVersion(MEMORY_SERVER)}`,
      ),
    );
    expectSuccess(
      npmInstall(
        '--save-dev',
        cli.tarball,
        `typescript@${installedVersion('@typescript/native')}`,
        `vitest@${installedVersion('vitest')}`,
        `vite@${installedVersion('vite')}`,
        `@types/node@${installedVersion('@types/node')}`,
      ),
    );
    for (const [file, text] of Object.entries(REMOTE_APP_FILES)) write(remote, file, text);
  }, SETUP_TIMEOUT);

  it('pulls the server, builds without a warning, and runs compiled from a production install, calling the server', () => {
    const pull = expectSuccess(inRemote('toolgen', 'mcp', 'pull'));
    expect(pull.stderr, show(pull)).not.toContain('does not list @modelcontextprotocol/client');
    expect(existsSync(path.join(remote, 'toolgen.mcp-lock.json'))).toBe(true);
    const build = expectSuccess(inRemote('toolgen'));
    expect(diagnosticsIn(`${build.stdout}\n${build.stderr}`), show(build)).toEqual([]);
    expectSuccess(inRemote('tsc', '-p', '.'));

    // What a deployment gets: the manifest, the lockfile and the compiled app.
    const prod = path.join(tmp, 'remote-prod');
    mkdirSync(prod);
    for (const file of ['package.json', 'package-lock.json']) cpSync(path.join(remote, file), path.join(prod, file));
    cpSync(path.join(remote, 'dist'), path.join(prod, 'dist'), { recursive: true });
    expectSuccess(run('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], prod, SETUP_TIMEOUT));
    expect(existsSync(path.join(prod, 'node_modules/toolgen'))).toBe(false);
    expect(existsSync(path.join(prod, 'node_modules/@modelcontextprotocol/client'))).toBe(true);

    // The app calls the server it starts, reads the graph back, and exits on its own.
    const started = expectSuccess(run(process.execPath, ['dist/src/main.js', 'dana', 'approves transfers'], prod));
    expect(JSON.parse(started.stdout)).toEqual([
      { name: 'dana', entityType: 'person', observations: ['approves transfers'] },
    ]);
    // The server kept its graph in its own folder (memory.jsonl beside its code, its default).
    const graph = path.join(prod, 'node_modules', MEMORY_SERVER, 'dist/memory.jsonl');
    expect(readFileSync(graph, 'utf8')).toContain('approves transfers');
  });
});
