/**
 * `npm run bench`, the language server (BENCH_ONLY=lsp): `toolgen lsp` (the real one, from dist/)
 * over stdio, driven by the protocol library's client, in a project of the benchmark corpus. One
 * composite is opened; then each edit (alternately a misspelt state variable and the text mended) is
 * timed from the `didChange` sent to the `publishDiagnostics` of that version received, and its
 * diagnostics are checked to be those of the edit. Target: under 100 ms with 1,000 tools, as a save
 * in watch mode.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  StreamMessageReader,
  StreamMessageWriter,
  createProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { writeCorpus } from '../corpus.mjs';
import { BIN, median, ms, row, size } from './common.mjs';

/**
 * The time from a change to its diagnostics, in a project of `tools` tools under `root`.
 *
 * @example await lspBench('/tmp/bench', { tools: 1000, edits: 21 }) // { tools: 1000, firstMs, latencyMs, p90Ms }
 */
export async function lspBench(root, { tools, edits }) {
  const dir = path.join(root, `lsp-${tools}`);
  const configDir = path.join(dir, 'config', 'tools');
  const atomics = Math.min(10, Math.ceil(tools / 2));
  const corpus = await writeCorpus(configDir, { composites: tools - atomics, atomics });
  const file = corpus.files.find((candidate) => candidate.includes(`${path.sep}composites${path.sep}`));
  const original = await readFile(file, 'utf8');
  const reference = /<< state\.([A-Za-z_]\w*)/.exec(original);
  assert.ok(reference, `no << state.x >> in ${file}`);
  const broken = original.replace(reference[0], `<< state.${reference[1]}_misspelt`);
  const uri = pathToFileURL(file).href;

  const child = spawn(process.execPath, [BIN, 'lsp', '--stdio'], { cwd: dir, stdio: ['pipe', 'pipe', 'inherit'] });
  const connection = createProtocolConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  const waiting = new Map();
  connection.onNotification('textDocument/publishDiagnostics', (params) => {
    if (params.uri !== uri) return;
    const resolve = waiting.get(params.version ?? 0);
    waiting.delete(params.version ?? 0);
    resolve?.({ at: performance.now(), diagnostics: params.diagnostics });
  });
  connection.onNotification('window/logMessage', () => {});
  connection.onRequest('client/registerCapability', () => null);
  connection.listen();
  const published = (version) => new Promise((resolve) => waiting.set(version, resolve));
  try {
    await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(dir).href,
      workspaceFolders: [{ uri: pathToFileURL(dir).href, name: 'bench' }],
      capabilities: {},
    });
    await connection.sendNotification('initialized', {});
    const opened = published(1);
    const started = performance.now();
    await connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'yaml', version: 1, text: original },
    });
    const first = await opened;
    const latencies = [];
    for (let edit = 0; edit < edits; edit += 1) {
      const version = edit + 2;
      const misspelt = edit % 2 === 0;
      const arrived = published(version);
      const sent = performance.now();
      await connection.sendNotification('textDocument/didChange', {
        textDocument: { uri, version },
        contentChanges: [{ text: misspelt ? broken : original }],
      });
      const { at, diagnostics } = await arrived;
      latencies.push(at - sent);
      const reported = diagnostics.some((d) => d.code === 'TG4001');
      assert.equal(reported, misspelt, `edit ${edit}: the diagnostics are not those of the text sent`);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      tools: corpus.atomics + corpus.composites,
      firstMs: first.at - started,
      latencyMs: median(latencies),
      p90Ms: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))],
      edits,
    };
  } finally {
    await connection.sendRequest('shutdown').catch(() => {});
    await connection.sendNotification('exit').catch(() => {});
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
    connection.dispose();
  }
}

// 8. The language server

export const LSP_EDITS = size(21, 2);
export const LSP_TARGET_MS = 100;

export function lspRows(lsp) {
  row(
    `lsp, ${lsp.tools} tools: edit → problems`,
    ms(lsp.latencyMs),
    `(median of ${lsp.edits} edits, p90 ${ms(lsp.p90Ms)}; first build on open ${ms(lsp.firstMs)})`,
  );
  row(
    `  ${lsp.tools} tools`,
    ms(lsp.latencyMs),
    `target < ${LSP_TARGET_MS} ms   ${lsp.latencyMs < LSP_TARGET_MS ? 'ok' : 'MISSED'}`,
  );
}
