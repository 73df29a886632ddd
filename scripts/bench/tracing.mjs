/** Tracing: the chain with no tracer, an api with no SDK, and an SDK exporting to memory. */
import assert from 'node:assert/strict';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AuditContext, ChainExecutor } from '../../dist/runtime/index.js';
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
import { NO_SDK_TARGET } from './targets.mjs';
import { chainFixture } from './executor.mjs';

/** Per chain: no tracer, a tracer of an api with no SDK registered, an SDK tracer exporting to memory. */
export async function tracingBench() {
  const { registry, composite } = chainFixture();
  const input = { value_0: 1, name: 'bench' };
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracers = {
    none: undefined,
    noSdk: trace.getTracer('toolgen-bench'),
    sdk: provider.getTracer('toolgen-bench'),
  };
  const run = (tracer) =>
    new ChainExecutor({
      registry,
      context: new AuditContext({ userId: 'bench_user', sessionId: 'bench_session' }),
      ...(tracer ? { tracer } : {}),
    }).runComposite(composite, input);
  // The exporter is emptied every 100 chains, so that spans kept in memory do not grow the heap (and
  // slow every side with garbage collection).
  const loop = async (tracer, count) => {
    for (let i = 0; i < count; i += 1) {
      await run(tracer);
      if (i % 100 === 99) exporter.reset();
    }
  };
  // No tracer against an api with no SDK first, interleaved, as in an app that has no SDK; the SDK side
  // last, as its recording spans still run through code the untraced path shares.
  const perChain = Object.fromEntries(Object.keys(tracers).map((name) => [name, []]));
  const measure = async (names) => {
    for (const name of names) await loop(tracers[name], CHAIN_WARMUP);
    for (let round = 0; round < CHAIN_ROUNDS; round += 1) {
      for (const name of names) {
        const { ms: elapsed } = await timed(() => loop(tracers[name], CHAINS_PER_ROUND));
        perChain[name].push((elapsed * 1000) / CHAINS_PER_ROUND);
      }
    }
  };
  await measure(['none', 'noSdk']);
  const check = await run(tracers.sdk);
  assert.equal(check.success, true, 'the traced chain succeeds');
  // The composite's call, its workflow, and one span per step.
  assert.equal(exporter.getFinishedSpans().length, CHAIN_STEPS + 2, 'the SDK side really records spans');
  await measure(['sdk']);
  return Object.fromEntries(Object.entries(perChain).map(([name, values]) => [name, median(values)]));
}

export function tracingRows(tracing) {
  row(
    `${CHAIN_STEPS}-step chain, no tracer`,
    us(tracing.none),
    `(runComposite, median of ${CHAIN_ROUNDS} × ${CHAINS_PER_ROUND.toLocaleString('en')})`,
  );
  row('  tracer, api with no SDK', us(tracing.noSdk), '(trace.getTracer(): non-recording spans)');
  ratioRow(tracing.noSdk / tracing.none, NO_SDK_TARGET, 'ratio to no tracer');
  row(
    '  tracer, SDK + memory exporter',
    us(tracing.sdk),
    `(${CHAIN_STEPS + 2} spans per chain; ratio ${(tracing.sdk / tracing.none).toFixed(2)}, no target)`,
  );
}
