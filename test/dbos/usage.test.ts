/**
 * Misuse of `DbosRunStore` is refused before anything touches the database: no PostgreSQL needed.
 */
import { describe, expect, it } from 'vitest';
import { DbosRunStore } from '../../src/dbos/index.js';
import {
  AuditContext,
  ChainExecutor,
  DurableRunError,
  RuntimeUsageError,
  ToolRegistry,
} from '../../src/runtime/index.js';

// Nothing listens there: a test that reached the database would fail to connect, not pass.
const unreachable = { systemDatabaseUrl: 'postgres://nobody@127.0.0.1:1/none', executorId: 'usage' };
const executorWith = (store: DbosRunStore) =>
  new ChainExecutor({
    registry: new ToolRegistry([]),
    context: new AuditContext({ userId: 'u', sessionId: 's' }),
    store,
  });

describe('DbosRunStore refuses misuse', () => {
  it('launch() before an executor uses the store', async () => {
    await expect(new DbosRunStore(unreachable).launch()).rejects.toThrow(
      new RuntimeUsageError('create the ChainExecutor with this store before launch(): the workflows run through it'),
    );
  });

  it('a second executor on the same store', () => {
    const store = new DbosRunStore(unreachable);
    executorWith(store);
    expect(() => executorWith(store)).toThrow(RuntimeUsageError);
  });

  it('a durable run before launch()', async () => {
    const store = new DbosRunStore(unreachable);
    await expect(store.dispatch('run-1', 'start', {})).rejects.toThrow(
      new RuntimeUsageError('call launch() on the DbosRunStore before running durable runs'),
    );
  });

  it('a run id that the file store would refuse, or that could clash with a stretch id', async () => {
    const store = new DbosRunStore(unreachable);
    const start = {
      type: 'start' as const,
      runId: 'a:wait-1',
      tool: 't',
      planHash: 'h',
      chainId: 'c',
      startedAt: new Date(0).toISOString(),
      input: {},
      userId: 'u',
    };
    await expect(store.create('a:wait-1', start)).rejects.toMatchObject({
      name: 'DurableRunError',
      code: 'bad_run_id',
    });
    await expect(store.create('a:wait-1', start)).rejects.toBeInstanceOf(DurableRunError);
  });
});
