/** Exit codes, and the error that means "bad usage": small on purpose, so `--version` and `--help` load nothing else. */

/** 0 fine, 1 problems in the input (or stale output for `check`), 2 usage or internal error. */
export const EXIT = { ok: 0, problems: 1, usage: 2 } as const;

/** A user error the CLI reports in one line before any work starts (exit 2). */
export class UsageError extends Error {}
