/**
 * A stdio transport for the MCP client that remembers how its server process ended. The SDK's
 * `StdioClientTransport` keeps the exit code, the signal and the spawn error to itself, and those,
 * with the last lines of stderr, are what a person needs when a server does not start. Messages are
 * framed by the SDK's own `ReadBuffer` and `serializeMessage`; the environment is the SDK's default
 * (HOME, PATH and a few more) plus the server's `env`, as other MCP clients start servers. stderr
 * is kept (its tail), never passed on: a chatty server must not fill the app's own stderr. Used by
 * `toolgen mcp pull` and by the app's connections (`McpServers`).
 *
 * The process and its pipes keep the app's event loop alive only while a request waits for its answer:
 * an idle server, opened by a module-level registry nobody closes, must not keep the app from exiting
 * (its stdin closes with the app, and the server ends as MCP servers do on end of input).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { ReadBuffer, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { AnswerTooLarge, DEFAULT_MAX_ANSWER_BYTES, markTooLarge } from './answer-bound.js';

/** How the process ended, once it has: an exit code, a signal, or an error starting it. */
export type ProcessEnd =
  | { readonly kind: 'exited'; readonly code: number }
  | { readonly kind: 'signal'; readonly signal: string }
  | { readonly kind: 'spawn-error'; readonly code: string; readonly message: string };

/** stderr kept for the report: its tail, at most this many characters. */
const STDERR_KEPT = 16_384;

/** A message that was never written: the process had exited (or never started). Sending it again elsewhere is safe. */
export class ProcessNotRunning extends Error {
  constructor(command: string) {
    super(`the server process (${command}) is not running`);
    this.name = 'ProcessNotRunning';
  }
}

export class ServerProcess implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #child: ChildProcess | null = null;
  #stderr = '';
  #end: ProcessEnd | null = null;
  // toolgen's bound (`#lineBytes`) is the one that holds: the buffer's own would drop a line silently.
  readonly #buffer = new ReadBuffer({ maxBufferSize: Number.MAX_SAFE_INTEGER });
  /** Bytes of the line being read so far. */
  #lineBytes = 0;
  #tooLarge: AnswerTooLarge | null = null;
  /** The ids of the requests sent and not yet answered nor cancelled: while any, the process is ref'd. */
  readonly #waiting = new Set<string | number>();

  constructor(
    readonly command: string,
    readonly args: readonly string[],
    readonly options: {
      readonly env: Readonly<Record<string, string>>;
      readonly cwd: string;
      /** The longest line (one JSON-RPC message) it may write; default DEFAULT_MAX_ANSWER_BYTES. */
      readonly maxLineBytes?: number;
    },
  ) {}

  /** Set once it wrote a line past its bound: the process was killed, and the connection closes. */
  get tooLarge(): AnswerTooLarge | null {
    return this.#tooLarge;
  }

  /** How the process ended; null while it runs (or before it starts). */
  get end(): ProcessEnd | null {
    return this.#end;
  }

  /** The last `count` non-empty lines it wrote to stderr. */
  stderrTail(count: number): string[] {
    return this.#stderr
      .split(/\r?\n/)
      .filter((line) => line.trim() !== '')
      .slice(-count);
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.command, [...this.args], {
        env: { ...getDefaultEnvironment(), ...this.options.env },
        cwd: this.options.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
      });
      this.#child = child;
      this.#holdLoop(false);
      child.once('error', (error: NodeJS.ErrnoException) => {
        this.#end ??= { kind: 'spawn-error', code: error.code ?? 'error', message: error.message };
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('exit', (code, signal) => {
        this.#end ??= signal ? { kind: 'signal', signal } : { kind: 'exited', code: code ?? 0 };
      });
      child.once('close', () => {
        this.#child = null;
        this.onclose?.();
      });
      child.stdin!.on('error', (error) => this.onerror?.(error));
      child.stdout!.on('data', (chunk: Buffer) => this.#read(chunk));
      child.stderr!.on('data', (chunk: Buffer) => {
        this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
      });
    });
  }

  #read(chunk: Buffer): void {
    if (this.#tooLarge !== null) return;
    const max = this.options.maxLineBytes ?? DEFAULT_MAX_ANSWER_BYTES;
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      if (this.#lineBytes + newline - start > max) return this.#exceeded(max);
      this.#lineBytes = 0;
      start = newline + 1;
    }
    this.#lineBytes += chunk.length - start;
    if (this.#lineBytes > max) return this.#exceeded(max);
    try {
      this.#buffer.append(chunk);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (message === null) return;
      if (('result' in message || 'error' in message) && 'id' in message) this.#answered(message.id);
      this.onmessage?.(message);
    }
  }

  /**
   * A line past the bound: which request it answers cannot be read, so no call could end but by
   * waiting. The process is killed: its close fails every call under way at once.
   */
  #exceeded(max: number): void {
    this.#tooLarge = new AnswerTooLarge(max);
    markTooLarge(this, this.#tooLarge);
    this.#buffer.clear();
    this.onerror?.(this.#tooLarge);
    this.#child?.kill('SIGKILL');
  }

  /** The process id while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    // Node destroys stdin as soon as it sees the exit, before the pipes close and `onclose` runs.
    if (!stdin || stdin.destroyed || this.#end !== null) return Promise.reject(new ProcessNotRunning(this.command));
    this.#track(message);
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** A request waits for its answer (the loop is held); a cancellation gives up on one. */
  #track(message: JSONRPCMessage): void {
    if (!('method' in message)) return;
    if ('id' in message) {
      this.#waiting.add(message.id);
      this.#holdLoop(true);
    } else if (message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: string | number } | undefined)?.requestId;
      if (id !== undefined) this.#answered(id);
    }
  }

  #answered(id: string | number | null | undefined): void {
    if (id === null || id === undefined || !this.#waiting.delete(id)) return;
    if (this.#waiting.size === 0) this.#holdLoop(false);
  }

  /** Whether the process and its pipes keep Node's event loop alive. */
  #holdLoop(hold: boolean): void {
    const child = this.#child;
    if (!child) return;
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as (Partial<Socket> | null)[])
      if (hold) handle?.ref?.();
      else handle?.unref?.();
  }

  /** Ends stdin, then SIGTERM after a second, SIGKILL after two: the way MCP clients stop a server. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    // The app waits for the close: the process holds the loop until it has ended.
    this.#holdLoop(true);
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const within = (ms: number) =>
      Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
    child.stdin?.end();
    await within(1000);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await within(1000);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await within(1000);
  }
}
