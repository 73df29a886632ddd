/**
 * What the framework tests share: the project whose generated adapters they run
 * (`test/adapters/project`; Mastra's is `test/adapters/mastra`, the same tools), a request's executor, the model's two calls of the composite (valid
 * arguments, then invalid ones), and what the audit trail must say afterwards.
 */
import { expect } from 'vitest';
import { AuditContext, ChainExecutor, type ToolRegistry } from '../../src/runtime/index.js';
import {
  createToolRegistry,
  type ShoutTwiceChainParams,
  type ShoutTwiceChainState,
} from './project/generated/index.js';

/** The composite the scripted models call, by the name the model calls it. */
export const COMPOSITE = 'shout_twice_chain';
export const VALID: ShoutTwiceChainParams = { greeting: 'hi' };
/** `greeting` must be a string. */
export const INVALID = { greeting: 42 };
export const FINAL_STATE: ShoutTwiceChainState = {
  greeting: 'hi',
  first_loud: 'HI',
  final_loud: 'HI, AGAIN HI, AGAIN',
  final_length: 19,
};

/** A request of `userId`: its audit context, and an executor over a registry (the project's by default). */
export function request(
  userId: string,
  registry: ToolRegistry = createToolRegistry(),
): { context: AuditContext; executor: ChainExecutor } {
  const context = new AuditContext({ userId, sessionId: `${userId}-session`, permissions: [] });
  return { context, executor: new ChainExecutor({ registry, context }) };
}

/**
 * The trail of a request after the model's two calls: the composite's run and its two steps, as
 * `userId`; and, when the call got as far as toolgen (the framework did not refuse it first), the
 * invalid call refused with `validation`.
 */
export function expectTrail(context: AuditContext, userId: string, refusedByToolgen: boolean): void {
  const composite = context.trail.filter((record) => record.tool === COMPOSITE);
  expect(composite.map((record) => [record.status, record.userId, record.error?.kind ?? null])).toEqual([
    ['success', userId, null],
    ...(refusedByToolgen ? [['failed', userId, 'validation']] : []),
  ]);
  const steps = context.trail.filter((record) => record.tool === 'shout_tool');
  expect(steps.map((record) => [record.stepId, record.status, record.userId, record.sessionId])).toEqual([
    ['first', 'success', userId, `${userId}-session`],
    ['second', 'success', userId, `${userId}-session`],
  ]);
}
