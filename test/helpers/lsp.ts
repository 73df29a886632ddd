/**
 * A real LSP client over a spawned `toolgen lsp` (the built bin): the protocol library's own
 * connection over the process's stdio. Tests open, change and close documents and ask what an
 * editor asks; `diagnostics(uri, version?)` waits for what the server publishes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol/node';

const BIN = path.resolve(import.meta.dirname, '../../dist/cli/bin.js');

export interface LspClient {
  readonly connection: ProtocolConnection;
  readonly logs: string[];
  /** Opens a file with its text on disk (or the text given), at version 1. */
  open(file: string, text?: string): string;
  /** Replaces a document's whole text; returns its new version. */
  change(file: string, text: string): number;
  close(file: string): void;
  /** The next diagnostics published for a file (at least at `version`, when given). */
  diagnostics(file: string, version?: number): Promise<Diagnostic[]>;
  /** What was last published for each file, by path. */
  readonly published: Map<string, PublishDiagnosticsParams>;
  request<R>(method: string, params: unknown): Promise<R>;
  stop(): Promise<void>;
}

export const uriOf = (file: string) => pathToFileURL(file).href;

/** Starts a server in `cwd` with these workspace folders, and initializes it. */
export async function startLsp(cwd: string, folders: readonly string[] = [cwd]): Promise<LspClient> {
  // As VS Code's client starts a server it forks: --stdio, and its own process id.
  const child: ChildProcess = spawn(process.execPath, [BIN, 'lsp', '--stdio', `--clientProcessId=${process.pid}`], {
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  const connection = createProtocolConnection(
    new StreamMessageReader(child.stdout!),
    new StreamMessageWriter(child.stdin!),
  );
  const published = new Map<string, PublishDiagnosticsParams>();
  const waiting: { file: string; version: number | undefined; resolve: (d: Diagnostic[]) => void }[] = [];
  const logs: string[] = [];
  connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
    const file = new URL(params.uri).pathname;
    published.set(file, params);
    for (const wait of [...waiting]) {
      if (wait.file !== file || (wait.version !== undefined && (params.version ?? 0) < wait.version)) continue;
      waiting.splice(waiting.indexOf(wait), 1);
      wait.resolve(params.diagnostics);
    }
  });
  connection.onNotification('window/logMessage', (params: { message: string }) => {
    logs.push(params.message);
  });
  connection.onRequest('client/registerCapability', () => null);
  connection.listen();
  await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: null,
    workspaceFolders: folders.map((folder) => ({ uri: uriOf(folder), name: path.basename(folder) })),
    capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true }, workspaceFolders: true } },
  });
  await connection.sendNotification('initialized', {});
  const versions = new Map<string, number>();
  return {
    connection,
    logs,
    published,
    open(file, text) {
      versions.set(file, 1);
      void connection.sendNotification('textDocument/didOpen', {
        textDocument: { uri: uriOf(file), languageId: 'yaml', version: 1, text: text ?? readFileSync(file, 'utf8') },
      });
      return uriOf(file);
    },
    change(file, text) {
      const version = (versions.get(file) ?? 1) + 1;
      versions.set(file, version);
      void connection.sendNotification('textDocument/didChange', {
        textDocument: { uri: uriOf(file), version },
        contentChanges: [{ text }],
      });
      return version;
    },
    close(file) {
      void connection.sendNotification('textDocument/didClose', { textDocument: { uri: uriOf(file) } });
    },
    diagnostics(file, version) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no diagnostics for ${file}\n${stderr}\n${logs.join('\n')}`)),
          60_000,
        );
        waiting.push({
          file,
          version,
          resolve: (d) => {
            clearTimeout(timer);
            resolve(d);
          },
        });
      });
    },
    request: (method, params) => connection.sendRequest(method, params),
    async stop() {
      await connection.sendRequest('shutdown');
      await connection.sendNotification('exit');
      await new Promise((resolve) => child.once('exit', resolve));
      connection.dispose();
    },
  };
}
