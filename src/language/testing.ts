/**
 * The shapes of test doubles: how the YAML's `stubs` and `context` reach `createTestExecutor` in the
 * generated tests.
 */

/**
 * An API operation's response in a stub, beside its output (the body): the status (default the
 * operation's first success status, `2XX` read as 200) and the headers (default none; names in any
 * case, read in lower case), for `<< steps.<id>.status >>` and `<< steps.<id>.headers.<name> >>`.
 */
export interface StubHttpResponse {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** One response of a stubbed tool: an output (with an API operation's `response`), or an error it throws. */
export type StubResponse =
  { readonly output: unknown; readonly response?: StubHttpResponse } | { readonly error: string };

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
