/**
 * A server that could not be pulled, in words: which server, how it is started or reached (as the
 * config writes it, so `${NAME}` values are never printed), what happened, and the end of its stderr.
 * The failures are the connection layer's (`remote/connect/failures.ts`), which the app words too.
 */
import { printable } from '../../compiler/diagnostics/printable.js';
import { endText } from '../connect/failures.js';
import { shownSpec, type DeclaredServer } from '../declare/spec.js';
import { MAX_PIN_DEPTH } from '../lock/format.js';
import type { PullFailure } from './pull.js';

/**
 * The lines that report one failed server.
 *
 * @example describeFailure(server, { kind: 'not-started', code: 'ENOENT', message: '…', stage: 'initialize' }, 30)[0]
 * // "toolgen: cannot pull 'files' (npx-typo -y …): the command 'npx-typo' was not found (ENOENT); …"
 */
export function describeFailure(server: DeclaredServer, failure: PullFailure, seconds: number): string[] {
  const { spec } = server;
  const head = `toolgen: cannot pull '${printable(server.name)}' (${printable(shownSpec(spec))}): `;
  const stdio = 'command' in spec;
  const stderr = (lines: readonly string[]) =>
    !stdio
      ? []
      : lines.length === 0
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
          ? `${head}the command '${printable('command' in spec ? spec.command : spec.url)}' was not found (ENOENT); is it installed, and on PATH?`
          : `${head}the command could not be started: ${printable(failure.message)}`,
      ];
    case 'ended': {
      const when = failure.stage === 'initialize' ? 'before answering initialize' : 'while listing its tools';
      return [`${head}it ${printable(endText(failure.end))} ${when}`, ...stderr(failure.stderr)];
    }
    case 'timeout':
      return [
        `${head}no answer to ${failure.stage} within ${seconds} s${stdio ? '; the process was stopped' : ''} (--timeout SECONDS allows longer)`,
        ...stderr(failure.stderr),
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
    case 'bad-url':
      return [`${head}cannot reach it: its url, with the variables read, is not a URL`];
    case 'unreachable':
      return [`${head}cannot reach it: ${printable(failure.reason)}`];
    case 'too-large':
      return [
        `${head}its answer to ${failure.stage} was larger than ${failure.maxBytes} bytes; the connection was closed (maxAnswerBytes in its entry allows larger)`,
      ];
    case 'too-deep':
      return [
        `${head}${failure.stage} failed: its answer nests too deep to read (toolgen pins at most ${MAX_PIN_DEPTH} levels)`,
        ...stderr(failure.stderr),
      ];
    case 'answered-error':
    case 'closed':
    case 'protocol':
      return [`${head}${failure.stage} failed: ${printable(failure.message)}`, ...stderr(failure.stderr)];
  }
}
