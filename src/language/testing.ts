/**
 * The shapes of test doubles: how the YAML's `stubs` and `context` reach `createTestExecutor` in the
 * generated tests.
 */

/** One response of a stubbed tool: an output, or an error it throws. */
export type StubResponse = { readonly output: unknown } | { readonly error: string };

/** A fixed response, or responses for successive calls (the last one repeats). */
export type Stub = StubResponse | { readonly sequence: readonly StubResponse[] };

/** Who calls in a test; whatever is left out takes the test defaults. */
export interface TestContext {
  readonly userId?: string;
  readonly sessionId?: string;
  readonly casefileId?: string | null;
  readonly permissions?: readonly string[];
}

/** What the test executor's jitter draws: full jitter then waits half the ceiling, so tests can state waits as numbers. */
export const TEST_RANDOM = 0.5;
