/**
 * A DBOS worker or client process for the tests (`fixtures/worker.mjs`, over `dist/`), spoken to one
 * JSON line at a time, and the log of tool effects the workers share.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const WORKER = fileURLToPath(new URL('./fixtures/worker.mjs', import.meta.url));

export interface LogLine {
  readonly effect: string;
  readonly attempt: number;
  readonly pid: number;
  readonly executor: string;
}

/** A worker or client process, spoken to one JSON line at a time. */
export class Peer {
  readonly child: ChildProcess;
  readonly exited: Promise<NodeJS.Signals | number | null>;
  /** What the process wrote besides its answers (stderr, DBOS's log lines), for a test to check or show. */
  log = '';
  readonly #waiting = new Map<number | string, (answer: any) => void>();
  #next = 0;

  constructor(url: string, executorId: string, dir: string, client: boolean, env: Record<string, string> = {}) {
    this.child = spawn(
      process.execPath,
      [
        WORKER,
        url,
        executorId,
        path.join(dir, 'effects.log'),
        path.join(dir, 'markers'),
        ...(client ? ['client'] : []),
      ],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, NODE_OPTIONS: '--no-deprecation', ...env },
      },
    );
    this.child.stderr!.on('data', (chunk) => {
      this.log += chunk;
      if (process.env['DBOS_DEBUG']) process.stderr.write(chunk);
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve(signal ?? code)));
    readline.createInterface({ input: this.child.stdout! }).on('line', (line) => {
      if (process.env['DBOS_DEBUG']) process.stderr.write(`[${executorId}] ${line}\n`);
      if (!line.startsWith('{')) {
        this.log += `${line}\n`; // DBOS's own messages
        return;
      }
      const answer = JSON.parse(line);
      const key = answer.ready !== undefined ? 'ready' : answer.id;
      this.#waiting.get(key)?.(answer);
      this.#waiting.delete(key);
    });
  }

  /** Resolves once the worker takes runs; rejects, with its log, if it exits before. */
  ready(): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#waiting.set('ready', resolve);
      void this.exited.then((code) =>
        reject(new Error(`the worker exited (${code}) before it was ready: ${this.log}`)),
      );
    });
  }

  ask(command: Record<string, unknown>): Promise<any> {
    const id = this.#next++;
    const answer = new Promise((resolve) => this.#waiting.set(id, resolve));
    this.child.stdin!.write(`${JSON.stringify({ ...command, id })}\n`);
    return answer;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.stdin!.write('{"do":"stop"}\n');
    await this.exited;
  }
}

export function effects(dir: string): LogLine[] {
  const text = readFileSync(path.join(dir, 'effects.log'), 'utf8').trim();
  return text === '' ? [] : text.split('\n').map((line) => JSON.parse(line) as LogLine);
}
