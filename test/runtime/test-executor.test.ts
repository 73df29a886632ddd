/** createTestExecutor, as generated tests and an app's own tests use it. */
import { describe, expect, it } from 'vitest';
import { createTestExecutor, defineTool, RuntimeUsageError, ToolRegistry } from '../../src/runtime/index.js';

const whoami = defineTool<Record<string, never>, { user: string; session: string }>({
  name: 'whoami',
  description: 'Says who calls',
  parameters: { type: 'object' },
  implementation: {
    kind: 'function',
    handler: (_input, context) => ({ user: context.audit.userId, session: context.audit.sessionId }),
  },
});

describe('createTestExecutor', () => {
  it('runs as the caller its context names', async () => {
    const { executor } = createTestExecutor(new ToolRegistry([whoami]), {
      context: { userId: 'ana', sessionId: 's1' },
    });
    expect(await executor.invoke(whoami, {})).toEqual({ user: 'ana', session: 's1' });
  });

  it.each([
    ['user_id', "createTestExecutor: the context has no key 'user_id'; did you mean 'userId'?"],
    ['permisions', "createTestExecutor: the context has no key 'permisions'; did you mean 'permissions'?"],
    [
      'tenant',
      "createTestExecutor: the context has no key 'tenant' (it takes userId, sessionId, casefileId, permissions)",
    ],
  ])('refuses a context key it does not know (%s) instead of ignoring it', (key, message) => {
    const make = () => createTestExecutor(new ToolRegistry([whoami]), { context: { [key]: 'x' } as never });
    expect(make).toThrow(RuntimeUsageError);
    expect(make).toThrow(message);
  });
});
