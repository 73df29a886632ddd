/**
 * What went wrong talking to a server, as a `RemoteCallError` with a code the step's `retry_on` can
 * match and a message that names the server: `MCP_<JSON-RPC code>` for an error the server answered
 * (`MCP_-32602`), `MCP_CONNECTION_CLOSED` when the connection ended before the answer (with how a
 * stdio process ended and the last lines of its stderr), `MCP_HTTP_<status>`, `MCP_UNREACHABLE`,
 * `MCP_NOT_STARTED`, `MCP_CONNECT_TIMEOUT`, and `MCP_<SDK code>` for the SDK's own errors. Every
 * value a `${NAME}` was read as is redacted from the message here, where it is made: a server that
 * prints its environment or echoes a header must not put a secret into results, audits and spans.
 */
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { redact, type ReadVariable } from '../../language/variables.js';
import { RemoteCallError } from '../../runtime/index.js';
import { tooLarge, type AnswerTooLarge } from './answer-bound.js';
import { ProcessNotRunning, ServerProcess, type ProcessEnd } from './server-process.js';
import { shownSpec, type McpServerSpec } from '../declare/spec.js';
import type { ServerTransport } from './transport.js';

/** Lines of a failed server's stderr a message keeps. */
const STDERR_LINES = 5;

/** Which server, and its transport, for the message. */
export interface FailedServer {
  readonly name: string;
  readonly spec: McpServerSpec;
  readonly transport: ServerTransport;
  /** The values `${NAME}` was read as for this connection: redacted from every message. */
  readonly secrets: readonly ReadVariable[];
}

/** Why `initialize` failed. */
export function connectFailure(server: FailedServer, error: unknown, timeoutMs: number): RemoteCallError {
  return redacted(connectError(server, error, timeoutMs), server.secrets);
}

/** Why a request failed (`what`: the request, as the message names it). */
export function callFailure(server: FailedServer, error: unknown, what: string): RemoteCallError {
  return redacted(callError(server, error, what), server.secrets);
}

/** The error with every value `${NAME}` was read as replaced by `[redacted ${NAME}]`. */
export function redacted(error: RemoteCallError, secrets: readonly ReadVariable[]): RemoteCallError {
  const message = redact(error.message, secrets);
  return message === error.message ? error : new RemoteCallError(error.code, message);
}

function connectError(server: FailedServer, error: unknown, timeoutMs: number): RemoteCallError {
  const { name } = server;
  const large = tooLarge(server.transport, error);
  if (large) return answerTooLarge(server, large, 'initialize');
  const end = ended(server.transport);
  if (end?.kind === 'spawn-error')
    return new RemoteCallError(
      'MCP_NOT_STARTED',
      `cannot start MCP server '${name}' (${shownSpec(server.spec)}): ${end.message}`,
    );
  if (end !== null)
    return new RemoteCallError(
      'MCP_SERVER_EXITED',
      `MCP server '${name}' (${shownSpec(server.spec)}) ${endText(end)} before it answered initialize${stderrText(server.transport)}`,
    );
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
    return new RemoteCallError(
      'MCP_CONNECT_TIMEOUT',
      `MCP server '${name}' (${shownSpec(server.spec)}) did not answer initialize within ${timeoutMs / 1000} s${stderrText(server.transport)}`,
    );
  return callError(server, error, 'initialize');
}

function callError(server: FailedServer, error: unknown, what: string): RemoteCallError {
  if (error instanceof RemoteCallError) return error;
  const { name } = server;
  const large = tooLarge(server.transport, error);
  if (large) return answerTooLarge(server, large, what);
  if (error instanceof ProtocolError)
    return new RemoteCallError(
      `MCP_${error.code}`,
      `MCP server '${name}' answered ${what} with error ${error.code}: ${error.message}`,
    );
  if (error instanceof SdkHttpError && typeof error.status === 'number') {
    const refused = error.status === 401 || error.status === 403;
    return new RemoteCallError(
      `MCP_HTTP_${error.status}`,
      refused
        ? `MCP server '${name}' (${shownSpec(server.spec)}) refused the credentials (HTTP ${error.status}): check its headers`
        : `MCP server '${name}' (${shownSpec(server.spec)}) answered ${what} with HTTP ${error.status}`,
    );
  }
  const unreachable = unreachableReason(error);
  if (unreachable !== null)
    return new RemoteCallError(
      'MCP_UNREACHABLE',
      `cannot reach MCP server '${name}' (${shownSpec(server.spec)}): ${unreachable}`,
    );
  if (
    (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) ||
    error instanceof ProcessNotRunning
  ) {
    const end = ended(server.transport);
    const how = end === null ? 'closed' : `closed: the server ${endText(end)}`;
    return new RemoteCallError(
      'MCP_CONNECTION_CLOSED',
      `the connection to MCP server '${name}' ${how} before it answered ${what}${stderrText(server.transport)}`,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof SdkError ? `MCP_${String(error.code)}` : 'MCP_ERROR';
  return new RemoteCallError(code, `MCP server '${name}': ${what} failed: ${message}`);
}

function answerTooLarge(server: FailedServer, large: AnswerTooLarge, what: string): RemoteCallError {
  return new RemoteCallError(
    'MCP_ANSWER_TOO_LARGE',
    `MCP server '${server.name}' (${shownSpec(server.spec)}) sent an answer larger than ${large.maxBytes} bytes (maxAnswerBytes) while toolgen waited for ${what}: the connection was closed`,
  );
}

function ended(transport: ServerTransport): ProcessEnd | null {
  return transport instanceof ServerProcess ? transport.end : null;
}

function endText(end: ProcessEnd): string {
  return end.kind === 'exited'
    ? `exited with code ${end.code}`
    : end.kind === 'signal'
      ? `was stopped by ${end.signal}`
      : `did not start (${end.message})`;
}

function stderrText(transport: ServerTransport): string {
  const lines = transport instanceof ServerProcess ? transport.stderrTail(STDERR_LINES) : [];
  return lines.length === 0 ? '' : `; the last lines of its stderr:\n${lines.map((line) => `  ${line}`).join('\n')}`;
}

/** Why fetch could not reach the server (`ECONNREFUSED`, …); null for any other error. */
function unreachableReason(error: unknown): string | null {
  if (!(error instanceof TypeError) || error.message !== 'fetch failed') return null;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}
