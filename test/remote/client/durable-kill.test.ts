/**
 * A durable run whose steps are tools on another MCP server, its process killed with SIGKILL while a
 * remote call is in flight and started again: the steps journaled as finished are not called again,
 * the one in flight is called once more with the same idempotency key in `_meta` (at least once, and
 * the far side can tell), and the run ends as if nothing had happened.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEY_META } from '../../../src/runtime/index.js';
import { tempDir, type FixtureEvent } from './helpers.js';

const WORKER = path.join(import.meta.dirname, 'fixtures/durable-worker.mjs');
const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };

describe('a durable run of remote steps, killed and resumed', () => {
  it('calls no finished remote step again, and the one in flight once more with the same key', async () => {
    const dir = tempDir('toolgen-mcp-durable-');
    const toolsFile = path.join(dir, 'tools.json');
    const callsLog = path.join(dir, 'calls.jsonl');
    const resultFile = path.join(dir, 'result.json');
    const args = [WORKER, path.join(dir, 'store'), toolsFile, callsLog, 'relay-1', resultFile];
    const tools = (secondDelayMs: number) =>
      writeFileSync(
        toolsFile,
        JSON.stringify({
          tools: ['first', 'second', 'third'].map((name) => ({
            name,
            inputSchema: text,
            outputSchema: text,
            ...(name === 'second' ? { delayMs: secondDelayMs } : {}),
          })),
        }),
      );
    const events = (): FixtureEvent[] =>
      existsSync(callsLog)
        ? readFileSync(callsLog, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as FixtureEvent)
        : [];

    // First life: 'second' never answers in time; the worker is killed once its call has arrived.
    tools(600_000);
    const first = spawn(process.execPath, args, { stdio: 'ignore' });
    const exited = new Promise((resolve) => first.once('exit', (code, signal) => resolve(signal ?? code)));
    for (let waited = 0; !events().some((e) => e.event === 'call' && e.tool === 'second'); waited += 20) {
      if (waited > 30_000) throw new Error('the worker never called the second step');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    first.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(existsSync(resultFile)).toBe(false);

    // Second life: the server answers at once; the same run id resumes the journaled run.
    tools(0);
    const second = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    second.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => second.once('exit', resolve));
    expect(code, stderr).toBe(0);

    const result = JSON.parse(readFileSync(resultFile, 'utf8')) as { success: boolean; final_state: unknown };
    expect(result.success).toBe(true);
    expect(result.final_state).toEqual({
      start: 'go',
      first: 'go+first',
      second: 'go+first+second',
      third: 'go+first+second+third',
    });
    const calls = events().filter((event) => event.event === 'call');
    expect(calls.map((call) => call.tool)).toEqual(['first', 'second', 'second', 'third']);
    const keys = calls.map((call) => call.meta?.[IDEMPOTENCY_KEY_META]);
    expect(keys).toEqual(['relay-1/first#1', 'relay-1/second#1', 'relay-1/second#1', 'relay-1/third#1']);
    // Two server processes: one per life of the worker.
    expect(new Set(calls.map((call) => call.pid)).size).toBe(2);
  });
});
