/**
 * Which `ServerFailure` (`failures.ts`) an error of the MCP client, or of the transport under it, is:
 * the one place that reads the SDK's errors, for the pull and the app's connections alike.
 */
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { tooLarge } from './answer-bound.js';
import type { ServerFailure } from './failures.js';
import { ProcessNotRunning, ServerProcess } from './server-process.js';

/** Lines of a failed server's stderr a failure keeps. */
export const STDERR_LINES = 10;

/**
 * The failure an error of the MCP client (or of the transport under it) is. `endedFirst`: a process
 * that has ended explains any error (while a connection opens, or a pull lists).
 *
 * @example failureOf(error, transport, { endedFirst: true }) // { kind: 'ended', end: { kind: 'exited', code: 3 }, stderr: ['fatal: no API key'] }
 */
export function failureOf(error: unknown, transport: object, options: { endedFirst: boolean }): ServerFailure {
  const large = tooLarge(transport, error);
  if (large) return { kind: 'too-large', maxBytes: large.maxBytes };
  const process = transport instanceof ServerProcess ? transport : null;
  const stderr = process?.stderrTail(STDERR_LINES) ?? [];
  const end = process?.end ?? null;
  if (options.endedFirst && end?.kind === 'spawn-error')
    return { kind: 'not-started', code: end.code, message: end.message };
  if (options.endedFirst && end) return { kind: 'ended', end, stderr };
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) return { kind: 'timeout', stderr };
  if (error instanceof ProtocolError)
    return { kind: 'answered-error', code: error.code, message: error.message, stderr };
  if (error instanceof SdkHttpError && typeof error.status === 'number')
    return { kind: 'http', status: error.status, statusText: error.statusText ?? '' };
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { kind: 'unreachable', reason: cause?.code ?? cause?.message ?? error.message };
  }
  const message = error instanceof Error ? error.message : String(error);
  if ((error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) || error instanceof ProcessNotRunning)
    return { kind: 'closed', end, message, stderr };
  // The MCP client reads an answer by recursion: one nested thousands deep overflows its stack.
  if (error instanceof RangeError && /call stack/.test(error.message)) return { kind: 'too-deep', stderr };
  return { kind: 'protocol', sdkCode: error instanceof SdkError ? String(error.code) : null, message, stderr };
}
