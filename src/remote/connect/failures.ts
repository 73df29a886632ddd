/**
 * What went wrong talking to another server, as data: the one vocabulary of failures that the app's
 * connections (`remote/client/errors.ts`, a `RemoteCallError` with a code `retry_on` can match) and
 * `toolgen mcp pull` (`remote/pull/report.ts`, lines for a person) each put into words. Every text
 * in it that came from the server or the system has each value a `${NAME}` was read as redacted
 * (`redactFailure`), here where it is made: a server that prints its environment or echoes a header
 * must not put a secret into messages, results, audits and spans. Pure data and words: what an
 * error of the MCP client is, `classify.ts` decides, so that wording a failure loads no SDK.
 */
import { redact, type ReadVariable } from '../../language/variables.js';
import type { ProcessEnd } from './server-process.js';

/** Why a server could not be connected to, or a request to it failed. */
export type ServerFailure =
  /** Its args, env, url or headers name a variable that is not set (`field`: `env.TOKEN`). */
  | { readonly kind: 'variable'; readonly field: string; readonly variable: string }
  /** Its url, with the variables read, is not a URL. */
  | { readonly kind: 'bad-url' }
  /** Its `cwd` (absolute) is not a folder. */
  | { readonly kind: 'no-cwd'; readonly cwd: string }
  /** Its command could not be started (`code`: `ENOENT`, …). */
  | { readonly kind: 'not-started'; readonly code: string; readonly message: string }
  /** Its process ended before it answered. */
  | { readonly kind: 'ended'; readonly end: ProcessEnd; readonly stderr: readonly string[] }
  /** No answer within the bound on the request. */
  | { readonly kind: 'timeout'; readonly stderr: readonly string[] }
  /** An answer past `maxAnswerBytes`: the connection was closed. */
  | { readonly kind: 'too-large'; readonly maxBytes: number }
  /** It answered with a JSON-RPC error. */
  | {
      readonly kind: 'answered-error';
      readonly code: number;
      readonly message: string;
      readonly stderr: readonly string[];
    }
  | { readonly kind: 'http'; readonly status: number; readonly statusText: string }
  /** fetch could not reach it (`ECONNREFUSED`, …). */
  | { readonly kind: 'unreachable'; readonly reason: string }
  /** The connection closed before the answer; `end`: how its process had ended, if it had. */
  | {
      readonly kind: 'closed';
      readonly end: ProcessEnd | null;
      readonly message: string;
      readonly stderr: readonly string[];
    }
  /** Its answer nests deeper than the MCP client can read (its reader recurses). */
  | { readonly kind: 'too-deep'; readonly stderr: readonly string[] }
  /** Anything else; `sdkCode`: the MCP SDK's code for its own errors. */
  | {
      readonly kind: 'protocol';
      readonly sdkCode: string | null;
      readonly message: string;
      readonly stderr: readonly string[];
    };

/** The failure with every value `${NAME}` was read as replaced by `[redacted ${NAME}]` in what the server or the system said. */
export function redactFailure(failure: ServerFailure, secrets: readonly ReadVariable[]): ServerFailure {
  if (secrets.length === 0) return failure;
  const hide = (text: string) => redact(text, secrets);
  const hidden: Record<string, unknown> = { ...failure };
  for (const key of ['message', 'statusText', 'reason'])
    if (typeof hidden[key] === 'string') hidden[key] = hide(hidden[key]);
  if ('stderr' in failure) hidden['stderr'] = failure.stderr.map(hide);
  if ('end' in failure && failure.end?.kind === 'spawn-error')
    hidden['end'] = { ...failure.end, message: hide(failure.end.message) };
  return hidden as ServerFailure;
}

/**
 * How a process ended, in words.
 *
 * @example endText({ kind: 'signal', signal: 'SIGKILL' }) // 'was killed by SIGKILL'
 */
export function endText(end: ProcessEnd): string {
  return end.kind === 'exited'
    ? `exited with code ${end.code}`
    : end.kind === 'signal'
      ? `was killed by ${end.signal}`
      : `did not start (${end.message})`;
}
