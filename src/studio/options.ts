/**
 * What the studio is given (`StudioOptions`), and what it tells the app of what people did in it
 * (`StudioAnswer`, `StudioAction`): who, which run, when, and how it came out, never a payload.
 */
import type { AuditContext, ExpressionBudget, ListedRunStore, ToolRegistry } from '../runtime/index.js';

export interface StudioOptions {
  /**
   * The store whose runs the studio shows and answers: a `FileRunStore`, or a `DbosRunStore` of
   * `@toolgen/runtime/dbos` (create the handler before the store's `launch()`: its executor is the store's).
   */
  readonly store: ListedRunStore;
  /** The app's tools (the generated index's `createToolRegistry()`): graphs, types, and the handlers a signalled run goes on with. */
  readonly registry: ToolRegistry;
  /** Who answers: a signalled run goes on as this caller, and its policies are checked against it. */
  readonly context: AuditContext;
  /** Show, never act: no answer, start, resume or cancel is taken. */
  readonly readOnly?: boolean;
  /** Where the handler is mounted (`/studio`); links start with it, and requests may carry it or not. */
  readonly basePath?: string;
  /** Host names requests may be addressed to besides localhost, 127.0.0.1 and [::1]; `'any'` to accept every one. */
  readonly allowedHosts?: readonly string[] | 'any';
  /**
   * A one-time token: the first request that carries it (`?token=`) gets a session cookie, and every
   * request needs one. Without it the app in front authenticates.
   */
  readonly loginToken?: string;
  /** The login token signs in every browser that presents it, not only the first (a token the user gave). */
  readonly loginTokenReusable?: boolean;
  /** What one evaluation of an expression may spend in a run the studio continues (the runtime's defaults otherwise). */
  readonly expressionBudget?: Partial<ExpressionBudget>;
  /** Called once per answer the studio took or refused: who, which run and signal, when (never the payload, which the journal keeps). */
  readonly onAnswer?: (answer: StudioAnswer) => void;
  /** Called once per other action (start, resume, cancel), taken or refused: who, which run, when, how it came out (never its input). */
  readonly onAction?: (action: StudioAction) => void;
  /** How long a session lasts from sign-in, in ms (default 8 hours); then the browser must sign in again. */
  readonly sessionLifetimeMs?: number;
  /** How often live pages look for changes, in ms (default 1000, and never more often). */
  readonly pollMs?: number;
}

/** An answer to a waiting run, as `onAnswer` hears it. */
export interface StudioAnswer {
  readonly runId: string;
  readonly signal: string;
  /** The studio's caller (`context.userId`): who answered. */
  readonly userId: string;
  /** ISO time. */
  readonly at: string;
  /** `delivered`, or the refusal's code (`invalid_payload`, `policy`, `not_suspended`, …). */
  readonly outcome: string;
}

/** A start, resume or cancel, as `onAction` hears it. */
export interface StudioAction {
  readonly action: 'start' | 'resume' | 'cancel';
  /** The run it started or acted on. */
  readonly runId: string;
  readonly tool: string;
  /** The studio's caller (`context.userId`): who acted. */
  readonly userId: string;
  /** ISO time of the request. */
  readonly at: string;
  /**
   * A start or resume: what the run came to once it stopped (`success`, `partial`, `failed`,
   * `cancelled`, `suspended`); a cancel: `cancelled`. Refused: the refusal's code (`policy`,
   * `invalid_input`, `not_suspended`, `running`, `plan_changed`, …).
   */
  readonly outcome: string;
}
