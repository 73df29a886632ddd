/**
 * What parallel blocks, loops and choices return: the runtime builds these values and the compiler types
 * them, so both read the shape from here.
 */
import type { FailureKind } from './failures.js';
import type { JsonSchema } from './json.js';

/** A loop item that failed. */
export interface LoopItemFailure {
  readonly index: number;
  /** The step of the body that failed; null when the item failed before any step. */
  readonly step: string | null;
  readonly kind: FailureKind;
  readonly message: string;
}

/** A loop's output: the body's last output per item, in input order (null where an item failed), and the failed items. */
export interface LoopOutput<T = unknown> {
  readonly results: readonly (T | null)[];
  readonly failures: readonly LoopItemFailure[];
}

/** The schema of a loop's output, given the schema of one item's result and whether items may fail. */
export function loopOutputSchema(item: JsonSchema, toleratesFailures: boolean): JsonSchema {
  return {
    type: 'object',
    properties: {
      results: { type: 'array', items: toleratesFailures ? { anyOf: [item, { type: 'null' }] } : item },
      failures: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            index: { type: 'integer' },
            step: { type: ['string', 'null'] },
            kind: { type: 'string' },
            message: { type: 'string' },
          },
        },
      },
    },
    required: ['results', 'failures'],
  };
}

/** The schema of a parallel block's output, `{ [branch id]: that branch's last output }`; with `all`, every branch is there. */
export function parallelOutputSchema(
  branches: readonly { readonly id: string; readonly output: JsonSchema }[],
  every: boolean,
): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(branches.map((branch) => [branch.id, branch.output])),
    required: every ? branches.map((branch) => branch.id) : [],
  };
}

/** The schema of a choice step's output, `{ branch }`: the step it chose, or null for the end. */
export function choiceOutputSchema(): JsonSchema {
  return { type: 'object', properties: { branch: { type: ['string', 'null'] } }, required: ['branch'] };
}
