/**
 * What a handler type check is asked and answers: plain data, the same whether TypeScript runs in the
 * compiler's thread or in a worker (`typescript.ts`), and what the build cache stores.
 */

/** One handler to check: where it is, its text, and the types the YAML gives it (declarations of `inputName` and `outputName`). */
export interface HandlerSignature {
  readonly file: string;
  readonly text: string;
  readonly exportName: string;
  readonly inputName: string;
  readonly outputName: string;
  readonly declarations: string;
}

/** A mismatch, with the deepest line of TypeScript's explanation and where in the handler it is. */
export interface HandlerTypeProblem {
  readonly part: 'input' | 'output';
  readonly detail: string;
  /** 1-based, in `file`. */
  readonly line: number;
  readonly column: number;
  readonly length: number;
}

/** What a check found, and the files (other than the handler) it read: a change to one makes the result stale. */
export interface HandlerCheck {
  readonly problems: readonly HandlerTypeProblem[];
  /** Paths relative to the handler's folder. */
  readonly dependencies: readonly { readonly file: string; readonly hash: string }[];
}

/** A handler check to make, by its cache key (`handlerCheckKey`). */
export interface PendingCheck {
  readonly key: string;
  readonly signature: HandlerSignature;
}
