/**
 * A mock of an API that Prism (`@stoplight/prism-cli`, a development dependency) serves on 127.0.0.1
 * from an OpenAPI document: each operation answers with the document's examples (static mode, so
 * every run answers alike), and a request the document does not allow is refused. Only the `e2e`
 * project may use it (`test/projects.ts`): it starts a process.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './toolgen-process.js';

export const PRISM = path.join(ROOT, 'node_modules/.bin/prism');

/** Whether the devDependency is installed (`"@stoplight/prism-cli": "5.14.2"`). */
export const hasPrism = existsSync(PRISM);

export interface PrismMock {
  /** `http://127.0.0.1:PORT`, the base every path of the document is served under. */
  readonly url: string;
  /** Everything Prism wrote so far (its request log: what it received and why it refused). */
  readonly log: () => string;
  /** Stops the process and waits for it. */
  readonly stop: () => Promise<void>;
}

/** A port nobody listens on now: the system's choice for a server opened and closed at once. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface PrismOptions {
  /**
   * Serve a copy of the document without its `security` requirements (the top level's and each
   * operation's): Prism refuses with 401 a request that carries none of the schemes an operation
   * names, and an Arazzo example that sends no credentials would stop at its first step. The copy
   * is written to a folder of its own, so the document must hold no `$ref` to another file.
   */
  readonly withoutSecurity?: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** `document` as JSON in a folder of its own, without any `security` requirement. */
async function copyWithoutSecurity(document: string): Promise<{ file: string; folder: string }> {
  const parsed = parse(await readFile(document, 'utf8')) as {
    security?: unknown;
    paths?: Record<string, Record<string, { security?: unknown }>>;
  };
  delete parsed.security;
  for (const item of Object.values(parsed.paths ?? {})) {
    for (const method of METHODS) delete item[method]?.security;
  }
  const folder = await mkdtemp(path.join(tmpdir(), 'toolgen-prism-'));
  const file = path.join(folder, `${path.basename(document).replace(/\.(ya?ml|json)$/, '')}.json`);
  await writeFile(file, JSON.stringify(parsed));
  return { file, folder };
}

/**
 * Prism's mock of `document` on 127.0.0.1, once it says it listens (or the reason it stopped).
 *
 * @example
 * const mock = await startPrism('test/fixtures/arazzo/oauth.openapi.yaml');
 * const token = await fetch(`${mock.url}/oauth/token`, { method: 'POST', body: form });
 * await mock.stop();
 */
export async function startPrism(document: string, options: PrismOptions = {}): Promise<PrismMock> {
  const copy = options.withoutSecurity ? await copyWithoutSecurity(document) : undefined;
  const port = await freePort();
  const served = copy?.file ?? document;
  const child = spawn(PRISM, ['mock', '-p', String(port), '-h', '127.0.0.1', served], { cwd: ROOT });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    await exited;
    if (copy) await rm(copy.folder, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('Prism is listening')) resolve();
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`prism stopped (exit ${code}) before listening:\n${output}`)));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, log: () => output, stop };
}
