/**
 * A server that could not be pulled, in words: which server, how it is started or reached (as the
 * config writes it, so `${NAME}` values are never printed), what happened, and the end of its stderr.
 */
import { printable } from '../../compiler/diagnostics/printable.js';
import type { McpServerConfig } from '../declare/config.js';
import type { PullFailure } from './pull.js';

/**
 * The lines that report one failed server.
 *
 * @example describeFailure(server, { kind: 'not-started', code: 'ENOENT', message: '…' }, 30)[0]
 * // "toolgen: cannot pull 'files' (npx-typo -y …): the command 'npx-typo' was not found (ENOENT); …"
 */
export function describeFailure(server: McpServerConfig, failure: PullFailure, seconds: number): string[] {
  const head = `toolgen: cannot pull '${printable(server.name)}' (${printable(startedBy(server))}): `;
  const stderr = (lines: readonly string[]) =>
    lines.length === 0
      ? ['  (it wrote nothing to stderr)']
      : ['  the last lines of its stderr:', ...lines.map((line) => `    ${printable(line)}`)];
  switch (failure.kind) {
    case 'variable':
      return [`${head}${failure.field} reads \${${failure.variable}}, which is not set in the environment`];
    case 'no-cwd':
      return [`${head}its cwd '${printable(failure.cwd)}' is not a folder`];
    case 'not-started':
      return [
        failure.code === 'ENOENT'
          ? `${head}the command '${printable(commandOf(server))}' was not found (ENOENT); is it installed, and on PATH?`
          : `${head}the command could not be started: ${printable(failure.message)}`,
      ];
    case 'ended': {
      const how =
        failure.end.kind === 'exited'
          ? `exited with code ${failure.end.code}`
          : failure.end.kind === 'signal'
            ? `was killed by ${failure.end.signal}`
            : 'could not be started';
      const when = failure.stage === 'initialize' ? 'before answering initialize' : 'while listing its tools';
      return [`${head}it ${how} ${when}`, ...stderr(failure.stderr)];
    }
    case 'timeout':
      return [
        `${head}no answer to ${failure.stage} within ${seconds} s${server.transport === 'stdio' ? '; the process was stopped' : ''} (--timeout SECONDS allows longer)`,
        ...(server.transport === 'stdio' ? stderr(failure.stderr) : []),
      ];
    case 'http': {
      const status = `HTTP ${failure.status}${failure.statusText ? ` ${printable(failure.statusText)}` : ''}`;
      if (failure.status === 401)
        return [
          `${head}the server wants credentials it was not given, or refused them (${status}); give them in headers, for example Authorization: "Bearer \${TOKEN}"`,
        ];
      if (failure.status === 403)
        return [`${head}the server refused access (${status}): the credentials in headers do not allow it`];
      return [`${head}the server answered ${failure.stage} with ${status}`];
    }
    case 'unreachable':
      return [`${head}cannot reach it: ${printable(failure.reason)}`];
    case 'too-large':
      return [
        `${head}its answer to ${failure.stage} was larger than ${failure.maxBytes} bytes; the connection was closed (maxAnswerBytes in its entry allows larger)`,
      ];
    case 'protocol':
      return [
        `${head}${failure.stage} failed: ${printable(failure.message)}`,
        ...(server.transport === 'stdio' ? stderr(failure.stderr) : []),
      ];
  }
}

function commandOf(server: McpServerConfig): string {
  return server.transport === 'stdio' ? server.command : server.url;
}

/** The command line as the config writes it (arguments quoted when they hold spaces), or the URL. */
function startedBy(server: McpServerConfig): string {
  if (server.transport === 'http') return server.url;
  const quote = (arg: string) => (arg === '' || /[\s"']/.test(arg) ? JSON.stringify(arg) : arg);
  return [server.command, ...server.args].map(quote).join(' ');
}
