/**
 * The life of stdio connections: opened once for concurrent first calls, reopened after the process
 * was killed between two steps, bounded and cancelled calls (the server hears notifications/cancelled
 * and the connection stays usable), closed with no process left behind; how a spec is read
 * (overrides, `${NAME}`, a relative cwd) and what a server that does not start says.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { McpServers } from '../../../src/remote/client/index.js';
import { defineRemoteTool, defineTool, type ToolDefinition } from '../../../src/runtime/index.js';
import { chain, step } from '../../helpers/runtime.js';
import {
  childPids,
  EVERYTHING,
  FIXTURE_SERVER,
  fixtureServer,
  gone,
  remoteExecutor,
  tempDir,
  type FixtureEvent,
} from './helpers.js';
import { everythingEcho, everythingTriggerLongRunningOperation } from './pinned.js';

const echoSchema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
const remote = (server: string, tool: string, extra: Partial<Parameters<typeof defineRemoteTool>[0]> = {}) =>
  defineRemoteTool<Record<string, unknown>, Record<string, unknown>>({
    server,
    tool,
    description: tool,
    parameters: { type: 'object' },
    returns: null,
    ...extra,
  });

function composite(name: string, steps: Parameters<typeof chain>[1]): ToolDefinition {
  return defineTool({
    name,
    description: name,
    parameters: { type: 'object' },
    implementation: { kind: 'composite', plan: chain(name, steps) },
  });
}

/** Waits (hang guard: 10 s) until the fixture's log has an event the predicate accepts. */
async function logged(events: () => FixtureEvent[], accept: (event: FixtureEvent) => boolean): Promise<FixtureEvent> {
  for (let waited = 0; waited < 10_000; waited += 20) {
    const found = events().find(accept);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the fixture server never logged the event');
}

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

describe('one connection per server', () => {
  it('is opened once for concurrent first calls, and reused', async () => {
    const fixture = fixtureServer(tempDir(), [{ name: 'echo', inputSchema: echoSchema, outputSchema: echoSchema }]);
    const echo = remote('fixture', 'echo', { parameters: echoSchema, returns: echoSchema });
    const { executor, registry } = remoteExecutor([echo], { fixture: fixture.spec });
    closers.push(() => registry.close());
    const before = childPids();
    const outcomes = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((text) => executor.call(echo, { text })));
    expect(outcomes.map((outcome) => outcome.ok && outcome.output)).toEqual(
      ['a', 'b', 'c', 'd', 'e'].map((text) => ({ text })),
    );
    await executor.call(echo, { text: 'f' });
    const events = fixture.events();
    expect(events.filter((event) => event.event === 'start')).toHaveLength(1);
    expect(events.filter((event) => event.event === 'call')).toHaveLength(6);
    expect(childPids().filter((pid) => !before.includes(pid))).toEqual([events[0]!.pid]);
  });

  it('is opened anew when its process was killed between two steps of a chain, and the next step succeeds', async () => {
    const fixture = fixtureServer(tempDir(), [{ name: 'echo', inputSchema: echoSchema, outputSchema: echoSchema }]);
    const echo = remote('fixture', 'echo', { parameters: echoSchema, returns: echoSchema });
    const kill = defineTool({
      name: 'kill_server',
      description: 'SIGKILLs the fixture server',
      parameters: { type: 'object' },
      implementation: {
        kind: 'function',
        handler: async () => {
          const { pid } = fixture.events().find((event) => event.event === 'start')!;
          process.kill(pid, 'SIGKILL');
          await gone(pid);
          return { killed: pid };
        },
      },
    });
    const flow = composite('flow', [
      step('before', 'fixture/echo', { inputs: { text: 'one' }, next: 'kill' }),
      step('kill', 'kill_server', { next: 'after' }),
      step('after', 'fixture/echo', { inputs: { text: 'two' }, map: { text: 'after' } }),
    ]);
    const { executor, registry } = remoteExecutor([echo, kill, flow], { fixture: fixture.spec });
    closers.push(() => registry.close());
    const result = await executor.runComposite(flow, {});
    expect(result).toMatchObject({ status: 'success', final_state: { after: 'two' } });
    // Sent once: the killed process never saw the second call.
    const events = fixture.events();
    const starts = events.filter((event) => event.event === 'start');
    expect(starts).toHaveLength(2);
    expect(events.filter((event) => event.event === 'call').map((event) => [event.pid, event.arguments])).toEqual([
      [starts[0]!.pid, { text: 'one' }],
      [starts[1]!.pid, { text: 'two' }],
    ]);
  });

  it('fails a call whose process dies under it (MCP_CONNECTION_CLOSED, saying how), and the next call reconnects', async () => {
    const fixture = fixtureServer(tempDir(), [
      { name: 'slow', delayMs: 60_000 },
      { name: 'echo', inputSchema: echoSchema },
    ]);
    const slow = remote('fixture', 'slow');
    const echo = remote('fixture', 'echo', { parameters: echoSchema });
    const { executor, registry } = remoteExecutor([slow, echo], { fixture: fixture.spec });
    closers.push(() => registry.close());
    const call = executor.call(slow, {});
    const { pid } = await logged(fixture.events, (event) => event.event === 'call');
    process.kill(pid, 'SIGKILL');
    const outcome = await call;
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'execution', code: 'MCP_CONNECTION_CLOSED' } });
    expect(!outcome.ok && outcome.error.message).toMatch(
      /^the connection to MCP server 'fixture' closed: the server was killed by SIGKILL before it answered tools\/call of 'slow'/,
    );
    expect(await executor.call(echo, { text: 'again' })).toEqual({ ok: true, output: { text: 'again' } });
  });

  it("hands out the session's SDK client, on the same connection the calls use", async () => {
    const fixture = fixtureServer(tempDir(), [{ name: 'echo', inputSchema: echoSchema, outputSchema: echoSchema }]);
    const echo = remote('fixture', 'echo', { parameters: echoSchema, returns: echoSchema });
    const { executor, registry } = remoteExecutor([echo], { fixture: fixture.spec });
    closers.push(() => registry.close());
    const servers = registry.servers as McpServers;
    const client = await servers.client('fixture');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
    expect(await executor.call(echo, { text: 'hi' })).toMatchObject({ ok: true, output: { text: 'hi' } });
    expect(await servers.client('fixture')).toBe(client);
    expect(fixture.events().filter((event) => event.event === 'start')).toHaveLength(1);
    await expect(servers.client('fixtrue')).rejects.toThrow("no MCP server named 'fixtrue' (did you mean 'fixture'?");
  });

  it('is closed by close(): no process is left, later calls fail, and closing twice is fine', async () => {
    const before = childPids();
    const fixture = fixtureServer(tempDir(), [{ name: 'echo' }]);
    const { executor, registry } = remoteExecutor([remote('fixture', 'echo'), everythingEcho], {
      fixture: fixture.spec,
      everything: EVERYTHING,
    });
    await executor.call('fixture/echo', {});
    await executor.call('everything/echo', { message: 'hi' });
    expect(childPids().filter((pid) => !before.includes(pid))).toHaveLength(2);
    await registry.close();
    expect(childPids().filter((pid) => !before.includes(pid))).toEqual([]);
    await registry.close();
    expect(await executor.call('fixture/echo', {})).toMatchObject({
      ok: false,
      error: { kind: 'execution', code: 'MCP_CLOSED' },
    });
    expect(childPids().filter((pid) => !before.includes(pid))).toEqual([]);
  });
});

describe('bounds and cancellation', () => {
  it("ends a call at its step's timeout_ms; the server hears notifications/cancelled and the connection stays usable", async () => {
    const fixture = fixtureServer(tempDir(), [{ name: 'slow', delayMs: 60_000 }, { name: 'echo' }]);
    const flow = composite('flow', [{ ...step('wait', 'fixture/slow'), timeoutMs: 200 }]);
    const { executor, registry } = remoteExecutor([remote('fixture', 'slow'), remote('fixture', 'echo'), flow], {
      fixture: fixture.spec,
    });
    closers.push(() => registry.close());
    // Connected first: a bound that ends while the connection opens sends nothing to cancel.
    await executor.call('fixture/echo', {});
    const result = await executor.runComposite(flow, {});
    expect(result).toMatchObject({ status: 'failed', failure: { step: 'wait', kind: 'timeout' } });
    const cancelled = await logged(fixture.events, (event) => event.event === 'cancelled');
    expect(cancelled).toMatchObject({ tool: 'slow', reason: expect.stringContaining('did not finish within 200 ms') });
    expect(await executor.call('fixture/echo', { again: true })).toEqual({ ok: true, output: { again: true } });
    expect(fixture.events().filter((event) => event.event === 'start')).toHaveLength(1);
  });

  it('ends a call whose connection is still opening at its bound, and the connection opens for the next call', async () => {
    const fixture = fixtureServer(tempDir(), [{ name: 'echo' }]);
    const { executor, registry } = remoteExecutor([remote('fixture', 'echo')], { fixture: fixture.spec });
    closers.push(() => registry.close());
    const controller = new AbortController();
    const first = executor.call('fixture/echo', { first: true }, { signal: controller.signal });
    controller.abort();
    expect(await first).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    expect(await executor.call('fixture/echo', { second: true })).toEqual({ ok: true, output: { second: true } });
    expect(fixture.events().filter((event) => event.event !== 'start')).toMatchObject([
      { arguments: { second: true } },
    ]);
  });

  it("ends a call at the tool's timeout_seconds", async () => {
    const fixture = fixtureServer(tempDir(), [{ name: 'slow', delayMs: 60_000 }, { name: 'echo' }]);
    const bounded = remote('fixture', 'slow', { policies: { timeoutSeconds: 0.2 } });
    const { executor, registry } = remoteExecutor([bounded, remote('fixture', 'echo')], { fixture: fixture.spec });
    closers.push(() => registry.close());
    await executor.call('fixture/echo', {});
    expect(await executor.call(bounded, {})).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    await logged(fixture.events, (event) => event.event === 'cancelled');
  });

  it('ends a call when the chain is cancelled; the server hears it', async () => {
    const fixture = fixtureServer(tempDir(), [{ name: 'slow', delayMs: 60_000 }]);
    const flow = composite('flow', [step('wait', 'fixture/slow')]);
    const { executor, registry } = remoteExecutor([remote('fixture', 'slow'), flow], { fixture: fixture.spec });
    closers.push(() => registry.close());
    const controller = new AbortController();
    const running = executor.runComposite(flow, {}, { signal: controller.signal });
    await logged(fixture.events, (event) => event.event === 'call');
    controller.abort();
    expect(await running).toMatchObject({ status: 'cancelled', failure: { kind: 'cancelled' } });
    await logged(fixture.events, (event) => event.event === 'cancelled');
  });

  it("cuts server-everything's long-running operation short at timeout_ms, and calls it again at once", async () => {
    const flow = composite('flow', [
      { ...step('long', 'everything/trigger-long-running-operation', { inputs: { duration: 60 } }), timeoutMs: 300 },
    ]);
    const { executor, registry } = remoteExecutor([everythingTriggerLongRunningOperation, everythingEcho, flow], {
      everything: EVERYTHING,
    });
    closers.push(() => registry.close());
    const before = childPids();
    expect(await executor.runComposite(flow, {})).toMatchObject({
      status: 'failed',
      failure: { step: 'long', kind: 'timeout' },
    });
    expect(await executor.call('everything/echo', { message: 'still there' })).toEqual({
      ok: true,
      output: 'Echo: still there',
    });
    // The same process: nothing reconnected.
    expect(childPids().filter((pid) => !before.includes(pid))).toHaveLength(1);
  }, 20_000);
});

describe('how a server is declared', () => {
  it('takes an override by name instead of the declared spec', async () => {
    const fixture = fixtureServer(tempDir(), [{ name: 'echo' }]);
    const { executor, registry } = remoteExecutor(
      [remote('fixture', 'echo')],
      { fixture: { command: 'a-command-that-does-not-exist' } },
      { mcpServers: { fixture: fixture.spec } },
    );
    closers.push(() => registry.close());
    expect(await executor.call('fixture/echo', { via: 'override' })).toEqual({ ok: true, output: { via: 'override' } });
  });

  it('reads ${NAME} in args and env from the given environment, and a relative cwd against the root', async () => {
    const dir = tempDir();
    fixtureServer(dir, [{ name: 'echo' }]);
    const { executor, registry } = remoteExecutor(
      [remote('fixture', 'echo'), remote('everything', 'get-env')],
      {
        fixture: { command: process.execPath, args: [FIXTURE_SERVER, '${TOOLS_FILE}'], cwd: path.basename(dir) },
        everything: { ...EVERYTHING, env: { TOOLGEN_GREETING: 'hello ${WHO}' } },
      },
      { root: path.dirname(dir), env: { TOOLS_FILE: 'tools.json', WHO: 'world' } },
    );
    closers.push(() => registry.close());
    expect(await executor.call('fixture/echo', { ok: 1 })).toEqual({ ok: true, output: { ok: 1 } });
    const env = await executor.call('everything/get-env', {});
    expect(env).toMatchObject({ ok: true, output: { TOOLGEN_GREETING: 'hello world' } });
    // The server gets the variables it is given (and the SDK's few defaults), not the app's whole environment.
    expect(env.ok && Object.keys(env.output as object)).not.toContain('TOOLS_FILE');
  });

  it.each([
    [
      'a variable that is not set',
      { command: process.execPath, args: ['${NOT_SET}'] },
      'MCP_MISSING_VARIABLE',
      "cannot connect to MCP server 'bad': its args[0] names ${NOT_SET}, which is not set",
    ],
    [
      'a command that does not exist',
      { command: 'toolgen-no-such-command' },
      'MCP_NOT_STARTED',
      "cannot start MCP server 'bad' (toolgen-no-such-command): spawn toolgen-no-such-command ENOENT",
    ],
    [
      'a folder that does not exist',
      { command: process.execPath, cwd: 'no/such/folder' },
      'MCP_NO_CWD',
      `cannot start MCP server 'bad': its folder ${path.resolve('/tmp/no/such/folder')} does not exist`,
    ],
  ])('fails clearly for %s', async (_, spec, code, message) => {
    const servers = new McpServers({ bad: spec }, { root: '/tmp', env: {} });
    await expect(
      servers.callTool({ server: 'bad', tool: 'echo', arguments: {}, signal: new AbortController().signal }),
    ).rejects.toMatchObject({ code, message });
    await servers.close();
  });

  it('says how a server that exits at once ended, with the last lines of its stderr', async () => {
    const dir = tempDir();
    const script = path.join(dir, 'crash.mjs');
    writeFileSync(script, "console.error('loading config');\nconsole.error('fatal: no API key');\nprocess.exit(3);\n");
    const servers = new McpServers({ crash: { command: process.execPath, args: [script] } });
    const call = servers.callTool({ server: 'crash', tool: 'x', arguments: {}, signal: new AbortController().signal });
    await expect(call).rejects.toMatchObject({ code: 'MCP_SERVER_EXITED' });
    await expect(call).rejects.toThrow(
      `MCP server 'crash' (${process.execPath} ${script}) exited with code 3 before it answered initialize; the last lines of its stderr:\n  loading config\n  fatal: no API key`,
    );
    await servers.close();
  });
});
