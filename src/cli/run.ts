/**
 * `toolgen run NAME --input '{…}'`: runs one tool with the app's real handlers (see `load-tools.ts`)
 * and prints what happened, step by step. Exit 0 when the run succeeded, 1 when it failed or (with
 * `--store`) suspended at a wait step, 2 on bad usage.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  FileRunStore,
  redact,
  type ChainResult,
  type Stub,
  type ToolHandler,
  type ToolRegistry,
} from '../runtime/index.js';
import { callerContext, callerExecutor, callerRegistry, type CallerOptions } from './caller.js';
import { UsageError } from './exit.js';
import type { Output } from './output.js';
import { callTrace, exitCode, printTrace, reportedTrace, traceJson, type Trace } from './trace.js';

export interface RunOptions extends CallerOptions {
  /** JSON text, or `@file.json`. */
  readonly input: string;
  /** `tool=JSON`, JSON being a stub as the YAML writes it. */
  readonly stubs: readonly string[];
  readonly json: boolean;
  /** Journal the run in this directory (a `FileRunStore`): a wait step suspends it instead of failing. */
  readonly store: string | null;
}

/** `toolgen run NAME`: the exit code. */
export async function runCommand(name: string, options: RunOptions, output: Output): Promise<number> {
  const input = readJsonArgument(options.root, '--input', options.input);
  const stubs = options.stubs.map(parseStub);
  const loaded = await callerRegistry(options);
  try {
    return await runWith(loaded, { name, input, stubs }, options, output);
  } finally {
    // Stops the stdio MCP servers remote tools started: none outlives the command.
    await loaded.close();
  }
}

/** The run itself, once the registry is loaded: the tool, its input and the stubs, as the command line gave them. */
async function runWith(
  loaded: ToolRegistry,
  { name, input, stubs }: { name: string; input: unknown; stubs: readonly [string, Stub][] },
  options: RunOptions,
  output: Output,
): Promise<number> {
  const definition = loaded.get(name);
  if (!definition)
    throw new UsageError(`no tool named '${name}' in ${options.registry}; it has ${loaded.names().join(', ')}`);
  for (const [tool] of stubs)
    if (!loaded.has(tool)) throw new UsageError(`--stub names '${tool}', which is not a tool in ${options.registry}`);
  const registry =
    stubs.length > 0
      ? loaded.withHandlers(Object.fromEntries(stubs.map(([tool, stub]) => [tool, stubHandler(stub)])))
      : loaded;
  const context = callerContext(options, 'run');
  const store = options.store ? new FileRunStore(path.resolve(options.root, options.store)) : null;
  const executor = callerExecutor(options, { registry, context, store });
  const fields = definition.audit.redactFields;
  let trace: Trace;
  if (definition.implementation.kind === 'composite') {
    const result: ChainResult<unknown, boolean> = await executor.runComposite(definition, input);
    trace = reportedTrace(definition, result, context.trail, (value) => redact(value, fields));
  } else trace = callTrace(name, await executor.call(definition, input), context.trail);
  if (options.json) output.out(traceJson(trace));
  else for (const line of printTrace(trace)) output.out(line);
  return exitCode(trace);
}

/**
 * A JSON argument: the text itself, or `@file.json` for a file's. `flag` names it in usage errors.
 *
 * @example readJsonArgument(process.cwd(), '--payload', '@approval.json')
 */
export function readJsonArgument(root: string, flag: string, text: string): unknown {
  let source = text;
  if (text.startsWith('@')) {
    try {
      source = readFileSync(path.resolve(root, text.slice(1)), 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${flag} ${text}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  try {
    return JSON.parse(source);
  } catch (error) {
    throw new UsageError(`${flag} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `tool={"output": …}`, `tool={"error": "…"}` or `tool={"sequence": [ … ]}`, as in the YAML's `stubs`. */
function parseStub(text: string): [string, Stub] {
  const at = text.indexOf('=');
  const usage = `--stub takes TOOL=JSON, the JSON a stub as the YAML writes it: {"output": …}, {"error": "…"} or {"sequence": [ … ]}`;
  if (at <= 0) throw new UsageError(`${usage}; got '${text}'`);
  let stub: unknown;
  try {
    stub = JSON.parse(text.slice(at + 1));
  } catch {
    throw new UsageError(`${usage}; '${text.slice(at + 1)}' is not JSON`);
  }
  const valid = (value: unknown): boolean =>
    typeof value === 'object' &&
    value !== null &&
    (('output' in value && Object.keys(value).length === 1) ||
      ('error' in value && typeof value.error === 'string' && Object.keys(value).length === 1));
  const ok =
    typeof stub === 'object' &&
    stub !== null &&
    ('sequence' in stub
      ? Array.isArray(stub.sequence) && stub.sequence.length > 0 && stub.sequence.every(valid)
      : valid(stub));
  if (!ok) throw new UsageError(`${usage}; got ${text.slice(at + 1)}`);
  return [text.slice(0, at), stub as Stub];
}

function stubHandler(stub: Stub): ToolHandler<unknown, unknown> {
  const responses = 'sequence' in stub ? stub.sequence : [stub];
  let calls = 0;
  return () => {
    const response = responses[Math.min(calls, responses.length - 1)]!;
    calls += 1;
    if ('error' in response) throw new Error(response.error);
    return structuredClone(response.output);
  };
}
