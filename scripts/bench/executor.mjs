/** The executor's overhead: a 10-step chain through `ChainExecutor` against the same calls by hand, and the floor of its contract. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import { AuditContext, ChainExecutor, ToolRegistry, defineTool } from '../../dist/runtime/index.js';
// The floor's records are made by the runtime's own builders, so that their shape is written once.
import { auditRecord, historyEntry } from '../../dist/runtime/attempt.js';
import { chainResult } from '../../dist/runtime/chain-result.js';
import {
  CHAIN_STEPS,
  CHAIN_WARMUP,
  CHAIN_ROUNDS,
  CHAINS_PER_ROUND,
  median,
  timed,
  row,
  us,
  ratioRow,
} from './common.mjs';
import { EXECUTOR_TARGET } from './targets.mjs';

// ---------------------------------------------------------------------------------------------------
// 2. Executor overhead

/** The input schema exactly as the compiler generates it for `value: integer` and `label: string`. */
export const noopParameters = () => ({
  type: 'object',
  properties: { value: { type: 'integer' }, label: { type: 'string' } },
  required: ['value', 'label'],
  additionalProperties: false,
});

export const noopHandler = (input) => ({ value: input.value + 1, label: input.label });
/** The same tool as an app's usually is: one that answers through a promise (I/O, a client call). */
export const asyncNoopHandler = async (input) => ({ value: input.value + 1, label: input.label });

export function chainFixture(handler = noopHandler) {
  const tools = Array.from({ length: CHAIN_STEPS }, (_, i) =>
    defineTool({
      name: `noop_${i}`,
      description: `No-op tool ${i}`,
      parameters: noopParameters(),
      implementation: { kind: 'function', handler },
    }),
  );
  // The plan as the compiler lowers it: explicit ids, targets and failure policies.
  const plan = {
    name: 'noop_chain',
    entry: 'step_0',
    maxStepExecutions: 1000,
    steps: tools.map((tool, i) => ({
      kind: 'call',
      id: `step_${i}`,
      tool: tool.name,
      inputs: { value: `<< state.value_${i} >>`, label: `step ${i + 1} of << state.name >>` },
      onSuccess: {
        mapOutputs: [
          { from: 'value', to: `value_${i + 1}` },
          { from: 'label', to: `label_${i + 1}` },
        ],
        next: i + 1 < CHAIN_STEPS ? `step_${i + 1}` : null,
      },
      onFailure:
        i % 3 === 2
          ? {
              action: 'retry',
              maxRetries: 2,
              backoff: { initialMs: 100, factor: 2, maxMs: 1000, jitter: false },
              afterRetries: { action: 'stop' },
            }
          : { action: 'stop' },
    })),
  };
  const composite = defineTool({
    name: 'noop_chain',
    description: 'Ten no-op steps',
    parameters: {
      type: 'object',
      properties: { value_0: { type: 'integer' }, name: { type: 'string' } },
      required: ['value_0', 'name'],
      additionalProperties: false,
    },
    implementation: { kind: 'composite', plan },
  });
  const registry = new ToolRegistry([...tools, composite]);

  // By hand: the same inputs built directly, validated against the same schemas (one ajv validator per
  // schema, compiled once, the runtime's ajv options), the same handlers, the same state.
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validators = tools.map((tool) => ajv.compile(tool.parameters));
  const handlers = tools.map((tool) => tool.implementation.handler);
  const valueIn = Array.from({ length: CHAIN_STEPS }, (_, i) => `value_${i}`);
  const valueOut = Array.from({ length: CHAIN_STEPS }, (_, i) => `value_${i + 1}`);
  const labelOut = Array.from({ length: CHAIN_STEPS }, (_, i) => `label_${i + 1}`);
  const byHand = async (input, context) => {
    // Object.assign, not `{ ...input }`: V8 (node 20) adds properties to an object made by spread on a
    // slow path, ~0.45 µs each; with the 20 added here that would make this baseline ~11 µs, not ~2 µs.
    // (The executor makes its state with `newState`, src/runtime/engine/state.ts.)
    const state = Object.assign({}, input);
    for (let i = 0; i < CHAIN_STEPS; i += 1) {
      const toolInput = { value: state[valueIn[i]], label: `step ${i + 1} of ${state.name}` };
      if (!validators[i](toolInput)) throw new Error(`step ${i}: ${ajv.errorsText(validators[i].errors)}`);
      const output = await handlers[i](toolInput, context);
      state[valueOut[i]] = output.value;
      state[labelOut[i]] = output.label;
    }
    return state;
  };
  // The floor of the executor's contract: the same calls by hand, plus what its result and audit
  // trail hold, made as cheaply as plain code makes them: the composite's input validated, a chain
  // id, the chain's start and end (ISO, one formatting a millisecond, as the executor does), per
  // step its start and end, a step result, a history entry and an audit record, a record for the
  // composite, and the chain listed in its context. No executor can do less and keep the contract.
  // The entries, records and result are made by the runtime's own builders (attempt.ts, chain-result.ts)
  // into a real AuditContext: what the floor leaves out is the plan's interpretation, not their shape.
  const validateInput = ajv.compile(composite.parameters);
  const stepIds = plan.steps.map((step) => step.id);
  const toolNames = tools.map((tool) => tool.name);
  let lastMs = Number.NaN;
  let lastIso = '';
  const iso = (ms) => {
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = new Date(ms).toISOString();
    }
    return lastIso;
  };
  // An attempt as the runtime describes one; its history entry and audit record are the runtime's.
  const attempt = ({ tool, stepId, chainId, startedAt, endedAt }, input, output) => ({
    tool,
    chainId,
    stepId,
    attempt: 1,
    startedAt,
    endedAt,
    waitedMs: 0,
    input,
    outcome: { ok: true, output },
    via: undefined,
  });
  const toolsByName = new Map([...tools, composite].map((tool) => [tool.name, tool]));
  const toolList = toolNames.map((name) => ({ name }));
  const withRecords = async (input, context) => {
    if (!validateInput(input)) throw new Error(ajv.errorsText(validateInput.errors));
    const chainId = randomUUID();
    Number(chainId); // flattened, as the executor keeps its ids
    const started = Date.now();
    context.trackChain(chainId, plan.name, toolList, 'running');
    const state = Object.assign({}, input);
    const results = [];
    const history = [];
    let at = started;
    for (let i = 0; i < CHAIN_STEPS; i += 1) {
      const toolInput = { value: state[valueIn[i]], label: `step ${i + 1} of ${state.name}` };
      if (!validators[i](toolInput)) throw new Error(`step ${i}: ${ajv.errorsText(validators[i].errors)}`);
      const handlerContext = { audit: context, chainId, stepId: stepIds[i], attempt: 1 };
      const output = await handlers[i](toolInput, handlerContext);
      const ended = Date.now();
      state[valueOut[i]] = output.value;
      state[labelOut[i]] = output.label;
      const step = { tool: toolNames[i], stepId: stepIds[i], chainId, startedAt: at, endedAt: ended };
      const made = attempt(step, toolInput, output);
      results.push({ step: stepIds[i], tool: toolNames[i], status: 'success', attempts: 1, output });
      history.push(historyEntry(made));
      context.record(auditRecord(made, toolsByName.get(toolNames[i]), context));
      at = ended;
    }
    const result = chainResult({
      chainId,
      chainName: plan.name,
      results,
      history,
      state,
      failure: null,
      startedAt: iso(started),
      completedAt: iso(at),
    });
    context.trackChain(chainId, plan.name, toolList, 'success');
    const call = { tool: plan.name, stepId: null, chainId: null, startedAt: started, endedAt: at };
    context.record(auditRecord(attempt(call, input, result), composite, context));
    return result;
  };
  return { registry, composite, plan, byHand, withRecords };
}

/** What `withRecords` keeps its records in: the runtime's own AuditContext, one per chain, as the executor per chain has. */
export const recordsContext = () => new AuditContext({ userId: 'bench_user', sessionId: 'bench_session' });

export async function executorBench() {
  const { registry, composite, plan, byHand, withRecords } = chainFixture();
  const input = { value_0: 1, name: 'bench' };
  // One AuditContext and executor per chain, as an app makes one per request.
  const newExecutor = () =>
    new ChainExecutor({ registry, context: new AuditContext({ userId: 'bench_user', sessionId: 'bench_session' }) });
  const handContext = { audit: null, chainId: null, stepId: null, attempt: 1 };

  // Both sides must do the same work: same final state, and the executor really ran every step.
  const executor = newExecutor();
  const result = await executor.runComposite(composite, input);
  assert.equal(result.success, true, `the chain succeeds${result.failure ? `: ${result.failure.message}` : ''}`);
  assert.equal(result.steps_executed, CHAIN_STEPS);
  assert.equal(executor.context.trail.length, CHAIN_STEPS + 1, 'one audit record per step and one for the composite');
  assert.deepEqual(result.final_state, await byHand(input, handContext));
  assert.equal(result.final_state[`value_${CHAIN_STEPS}`], 1 + CHAIN_STEPS);
  const floorContext = recordsContext();
  const floor = await withRecords(input, floorContext);
  assert.equal(floorContext.trail.length, CHAIN_STEPS + 1, 'the floor makes the records the executor makes');
  assert.deepEqual(
    floorContext.trail.map(({ tool, stepId, status, input }) => ({ tool, stepId, status, input })),
    executor.context.trail.map(({ tool, stepId, status, input }) => ({ tool, stepId, status, input })),
  );
  assert.deepEqual(floor.final_state, result.final_state);
  assert.deepEqual(
    floor.execution_history.map(({ step, tool, status }) => ({ step, tool, status })),
    result.execution_history.map(({ step, tool, status }) => ({ step, tool, status })),
  );

  const app = chainFixture(asyncNoopHandler);
  const newAppExecutor = () =>
    new ChainExecutor({
      registry: app.registry,
      context: new AuditContext({ userId: 'bench_user', sessionId: 'bench_session' }),
    });
  const appResult = await newAppExecutor().runComposite(app.composite, input);
  assert.equal(appResult.success, true, 'the chain of async tools succeeds');
  assert.deepEqual(appResult.final_state, result.final_state);
  assert.deepEqual(await app.byHand(input, handContext), result.final_state);
  assert.deepEqual((await app.withRecords(input, recordsContext())).final_state, result.final_state);

  // One executor for every chain, as an app that keeps one: an executor's audit context is its own,
  // so that app ships each record elsewhere (`onRecord`) and keeps no trail, which would grow with
  // every attempt. (This once emptied `trail` every 1,000 chains instead, through its read-only type:
  // no app can, and keeping up to 11,000 records measured the heap, not the executor.)
  let shipped = 0;
  const shared = new ChainExecutor({
    registry,
    context: new AuditContext({
      userId: 'bench_user',
      sessionId: 'bench_session',
      keepTrail: false,
      onRecord: () => {
        shipped += 1;
      },
    }),
  });
  await shared.runComposite(composite, input);
  assert.equal(shipped, CHAIN_STEPS + 1, 'the reused executor ships one record per step and one for the composite');
  assert.equal(shared.context.trail.length, 0);
  const variants = {
    runComposite: () => newExecutor().runComposite(composite, input),
    reused: () => shared.runComposite(composite, input),
    executeChain: () => newExecutor().executeChain(plan, input),
    byHand: () => byHand(input, handContext),
    withRecords: () => withRecords(input, recordsContext()),
    // As an app runs a chain: its tools answer through promises, a new executor and context per request.
    app: () => newAppExecutor().runComposite(app.composite, input),
    appByHand: () => app.byHand(input, handContext),
    appFloor: () => app.withRecords(input, recordsContext()),
  };
  const loop = async (fn, count) => {
    for (let i = 0; i < count; i += 1) await fn();
  };
  for (const fn of Object.values(variants)) await loop(fn, CHAIN_WARMUP);
  const perChain = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  for (let round = 0; round < CHAIN_ROUNDS; round += 1) {
    for (const [name, fn] of Object.entries(variants)) {
      const { ms: elapsed } = await timed(() => loop(fn, CHAINS_PER_ROUND));
      perChain[name].push((elapsed * 1000) / CHAINS_PER_ROUND);
    }
  }
  return Object.fromEntries(Object.entries(perChain).map(([name, values]) => [name, median(values)]));
}

/** The executor benchmark again in a fresh node process: no heap, JIT state or loaded modules of anything else. */
export function executorInCleanProcess() {
  const child = spawnSync(process.execPath, [new URL('../bench.mjs', import.meta.url).pathname], {
    env: { ...process.env, BENCH_CHILD: 'executor' },
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0)
    throw new Error(`the executor benchmark's child process exited ${child.status}: ${child.stderr}`);
  return JSON.parse(child.stdout);
}

export function executorRows(chain, clean) {
  row(
    `${CHAIN_STEPS}-step chain via ChainExecutor`,
    us(chain.runComposite),
    `(runComposite, an executor per chain, median of ${CHAIN_ROUNDS} × ${CHAINS_PER_ROUND.toLocaleString('en')})`,
  );
  row('same calls by hand + validation', us(chain.byHand));
  row(
    '  + result and audit records',
    us(chain.withRecords),
    `(ratio ${(chain.withRecords / chain.byHand).toFixed(2)}: the floor of the contract, what the executor must make; see docs/contributing.md)`,
  );
  ratioRow(chain.runComposite / chain.byHand, EXECUTOR_TARGET, 'ratio, executor per chain');
  row('  one executor reused', us(chain.reused));
  ratioRow(chain.reused / chain.byHand, EXECUTOR_TARGET, 'ratio, executor reused');
  row(
    '  executeChain (plan only)',
    us(chain.executeChain),
    `(ratio ${(chain.executeChain / chain.byHand).toFixed(2)})`,
  );
  row(
    '  in a clean process',
    us(clean.runComposite),
    `(by hand ${us(clean.byHand)}; a child process that runs only this benchmark)`,
  );
  ratioRow(clean.runComposite / clean.byHand, EXECUTOR_TARGET, 'ratio, clean process');
  ratioRow(clean.reused / clean.byHand, EXECUTOR_TARGET, 'ratio, clean, reused');
  row(
    `${CHAIN_STEPS} async tools, as an app`,
    us(chain.app),
    '(runComposite, a new executor and AuditContext per chain, each tool answering through a promise)',
  );
  row('  the same by hand + validation', us(chain.appByHand), '(the same ajv validation, each promise awaited)');
  row(
    '  + result and audit records',
    us(chain.appFloor),
    `(ratio ${(chain.appFloor / chain.appByHand).toFixed(2)}: the floor, as above)`,
  );
  ratioRow(chain.app / chain.appByHand, EXECUTOR_TARGET, 'ratio, as an app');
  ratioRow(clean.app / clean.appByHand, EXECUTOR_TARGET, 'ratio, as an app, clean');
  row(
    '  as an app, over the floor',
    (chain.app / chain.appFloor).toFixed(2),
    `(clean ${(clean.app / clean.appFloor).toFixed(2)}; beside ${(chain.runComposite / chain.withRecords).toFixed(2)} with tools that answer at once: what the executor's asynchronous path costs per step)`,
  );
  row(
    '  executor over the floor',
    `${(chain.runComposite / chain.withRecords).toFixed(2)}`,
    `(per chain; reused ${(chain.reused / chain.withRecords).toFixed(2)}, clean ${(clean.runComposite / clean.withRecords).toFixed(2)}, clean reused ${(clean.reused / clean.withRecords).toFixed(2)}: what interpreting the plan adds)`,
  );
}
