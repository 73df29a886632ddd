/**
 * What the runtime knows of HTTP APIs its steps call (issue 33): where an operation lives
 * (`ApiTarget`), the request the runtime asks for (`ApiRequest`), the response it reads
 * (`ApiResponse`), and the connections that carry requests (`RemoteApis`). No HTTP client here:
 * `HttpApis` (`@toolgen/runtime/http`) implements the connections, so the main entry's import graph
 * stays free of them. The operations themselves are made by `defineApiOperation` (`api-operation.ts`).
 */

/** An operation of an HTTP API: which API (the name in `apis`), its name there, and how it is called. */
export interface ApiTarget {
  readonly api: string;
  readonly operation: string;
  /** Upper-case: `GET`, `POST`. */
  readonly method: string;
  /** The request path (expanded, with its query) an input asks for: what a span's `url.full` shows. */
  readonly pathOf: (input: unknown) => string;
  /** The pinned success response keys: `200`, `201`, `2XX`. */
  readonly success: readonly string[];
}

/**
 * What an API step keeps of its response besides the body: `<< steps.<id>.status >>` and
 * `<< steps.<id>.headers.<lower-case name> >>` read it.
 */
export interface StepResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Brands an ApiOutput for every copy of the runtime in a process: `toolgen run` executes with the
 * CLI's copy while the app's generated operations return the app's, and `instanceof` would tell
 * their two classes apart.
 */
const API_OUTPUT = Symbol.for('toolgen.ApiOutput');

/** What an operation's handler returns: the body, which is the call's output, and the response's status and headers. */
export class ApiOutput {
  readonly [API_OUTPUT] = true;

  constructor(
    readonly body: unknown,
    readonly response: StepResponse,
  ) {}

  /**
   * Whether `value` is an ApiOutput made by any copy of the runtime.
   *
   * @example ApiOutput.is(new ApiOutput({ id: 1 }, { status: 200, headers: {} })) // true
   */
  static is(value: unknown): value is ApiOutput {
    return typeof value === 'object' && value !== null && (value as { [API_OUTPUT]?: unknown })[API_OUTPUT] === true;
  }
}

/** One request as the runtime asks for it. */
export interface ApiRequest {
  /** The name under `apis`. */
  readonly api: string;
  /** Upper-case: `GET`, `POST`. */
  readonly method: string;
  /** The path below the API's base URL, parameters expanded, with its query: `/pets/7?fields=name`. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /**
   * Aborts on the step's timeout or the chain's cancellation: the request is abandoned. Absent when
   * nothing can interrupt the call (no time limit, no caller's signal).
   */
  readonly signal?: AbortSignal;
}

/** A response as the runtime reads it, whatever its status. */
export interface ApiResponse {
  readonly status: number;
  /** Lower-case names; a header sent several times is its values joined by `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** JSON parsed when the response says it is JSON, else its text; null when it has none (204). */
  readonly body: unknown;
}

/**
 * The connections a registry sends API requests through (`HttpApis` in `@toolgen/runtime/http`).
 * `send` answers every response, whatever its status (the operation decides what is a success); it
 * rejects only when there is no response, with an error whose `code` says why
 * (`HTTP_CONNECTION_FAILED`, `HTTP_RESPONSE_TOO_LARGE`, …): the runtime makes it an `execution` failure.
 */
export interface RemoteApis {
  send(request: ApiRequest): Promise<ApiResponse>;
  close(): Promise<void>;
  /**
   * The OpenTelemetry attributes of a request to the API as it is configured now (`server.address`,
   * `server.port`, `url.full` with no secret in it), for an API step's span; optional.
   */
  describe?(api: string, path: string): Readonly<Record<string, string | number>>;
}
