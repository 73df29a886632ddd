/**
 * A failure (`remote/connect/failures.ts`) as the app sees it: a `RemoteCallError` with a code the
 * step's `retry_on` can match and a message that names the server: `MCP_<JSON-RPC code>` for an error
 * the server answered (`MCP_-32602`), `MCP_CONNECTION_CLOSED` when the connection ended before the
 * answer (with how a stdio process ended and the last lines of its stderr), `MCP_HTTP_<status>`,
 * `MCP_UNREACHABLE`, `MCP_NOT_STARTED`, `MCP_SERVER_EXITED`, `MCP_CONNECT_TIMEOUT`, `MCP_ANSWER_TOO_LARGE`,
 * `MCP_MISSING_VARIABLE`, `MCP_BAD_URL`, `MCP_NO_CWD`, and `MCP_<SDK code>` for the SDK's own errors.
 */
import { RemoteCallError } from '../../runtime/index.js';
import type { ResolvedServer } from '../declare/spec.js';
import { endText, type ServerFailure } from '../connect/failures.js';

/**
 * The error a failure is; `what`: the request, as the message names it (`initialize`, `tools/call of 'read'`).
 *
 * @example callError(server, { kind: 'unreachable', reason: 'ECONNREFUSED' }, 'initialize', 30_000).code // 'MCP_UNREACHABLE'
 */
export function callError(
  server: ResolvedServer,
  failure: ServerFailure,
  what: string,
  timeoutMs: number,
): RemoteCallError {
  const { name, shown } = server;
  const stderr = 'stderr' in failure ? stderrText(failure.stderr) : '';
  switch (failure.kind) {
    case 'variable':
      return new RemoteCallError(
        'MCP_MISSING_VARIABLE',
        `cannot connect to MCP server '${name}': its ${failure.field} names \${${failure.variable}}, which is not set`,
      );
    case 'bad-url':
      return new RemoteCallError('MCP_BAD_URL', `cannot connect to MCP server '${name}': its url is not a URL`);
    case 'no-cwd':
      return new RemoteCallError(
        'MCP_NO_CWD',
        `cannot start MCP server '${name}': its folder ${failure.cwd} does not exist`,
      );
    case 'not-started':
      return new RemoteCallError('MCP_NOT_STARTED', `cannot start MCP server '${name}' (${shown}): ${failure.message}`);
    case 'ended':
      return new RemoteCallError(
        'MCP_SERVER_EXITED',
        `MCP server '${name}' (${shown}) ${endText(failure.end)} before it answered ${what}${stderr}`,
      );
    case 'timeout':
      return new RemoteCallError(
        'MCP_CONNECT_TIMEOUT',
        `MCP server '${name}' (${shown}) did not answer ${what} within ${timeoutMs / 1000} s${stderr}`,
      );
    case 'too-large':
      return new RemoteCallError(
        'MCP_ANSWER_TOO_LARGE',
        `MCP server '${name}' (${shown}) sent an answer larger than ${failure.maxBytes} bytes (maxAnswerBytes) while toolgen waited for ${what}: the connection was closed`,
      );
    case 'answered-error':
      return new RemoteCallError(
        `MCP_${failure.code}`,
        `MCP server '${name}' answered ${what} with error ${failure.code}: ${failure.message}`,
      );
    case 'http': {
      const refused = failure.status === 401 || failure.status === 403;
      return new RemoteCallError(
        `MCP_HTTP_${failure.status}`,
        refused
          ? `MCP server '${name}' (${shown}) refused the credentials (HTTP ${failure.status}): check its headers`
          : `MCP server '${name}' (${shown}) answered ${what} with HTTP ${failure.status}`,
      );
    }
    case 'unreachable':
      return new RemoteCallError('MCP_UNREACHABLE', `cannot reach MCP server '${name}' (${shown}): ${failure.reason}`);
    case 'closed': {
      const how = failure.end === null ? 'closed' : `closed: the server ${endText(failure.end)}`;
      return new RemoteCallError(
        'MCP_CONNECTION_CLOSED',
        `the connection to MCP server '${name}' ${how} before it answered ${what}${stderr}`,
      );
    }
    case 'too-deep':
      return new RemoteCallError(
        'MCP_ERROR',
        `MCP server '${name}': ${what} failed: its answer nests too deep to read`,
      );
    case 'protocol':
      return new RemoteCallError(
        failure.sdkCode === null ? 'MCP_ERROR' : `MCP_${failure.sdkCode}`,
        `MCP server '${name}': ${what} failed: ${failure.message}`,
      );
  }
}

function stderrText(lines: readonly string[]): string {
  return lines.length === 0 ? '' : `; the last lines of its stderr:\n${lines.map((line) => `  ${line}`).join('\n')}`;
}
