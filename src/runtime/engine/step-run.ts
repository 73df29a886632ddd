/** What running a step came to: the value every step runner returns. */
import type { ToolFailure } from '../errors.js';
import type { ChainWaiting, StepResult } from '../result.js';
import type { StepResponse } from '../remote-api.js';

/** What the step's result says beyond its status, when a fallback, the cache or `nextTool` hops were involved. */
export type StepExtras = Pick<StepResult, 'served_by' | 'cached' | 'hops' | 'branch'>;

/** What running a step came to. */
export type StepRun =
  | {
      readonly status: 'success';
      readonly output: unknown;
      readonly attempts: number;
      readonly extras: StepExtras | null;
      /** An API step's response status and headers, for `steps.<id>.status` and `.headers`. */
      readonly response?: StepResponse;
      /** Set by a choice step: where the chain goes instead of `onSuccess.next` (null: the end). */
      readonly next?: string | null;
    }
  | {
      readonly status: 'failed';
      readonly error: ToolFailure;
      readonly attempts: number;
      readonly extras: StepExtras | null;
    }
  | { readonly status: 'skipped' }
  /** A wait step in a durable run that has no signal yet: the run stops here until one comes. */
  | { readonly status: 'suspended'; readonly waiting: ChainWaiting };

export type StepFailed = Extract<StepRun, { status: 'failed' }>;
