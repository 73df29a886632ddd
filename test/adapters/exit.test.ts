/**
 * An adapter module does not keep the app alive: a real node process imports the README's LangChain
 * module (step 9, as the README writes it: one registry made at module level), runs LangChain's agent
 * loop over a pinned tool of another MCP server (the `everything` server, a stdio process the registry
 * starts on the first call), and exits on its own, whether or not it closes the registry.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STATEMENTS, readDoc } from '../helpers/docs.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const PROJECT = path.join(REPO, 'test/adapters/project');
/** How long the process may take to call the tool and end; past it, it is stopped and the test fails. */
const EXIT_WITHIN_MS = 30_000;

mkdirSync(path.join(REPO, 'test/.tmp'), { recursive: true });
const dir = mkdtempSync(path.join(REPO, 'test/.tmp/exit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The README's `src/agents/langchain.ts`, its generated imports pointed at the test project's. */
function readmeModule(): string {
  const { file, text } = STATEMENTS.langchainModule;
  const readme = readDoc(file);
  const start = readme.indexOf(text);
  if (start < 0) throw new Error(`${file} has no src/agents/langchain.ts`);
  const block = readme.slice(start + '```ts\n'.length, readme.indexOf('```', start + text.length));
  const generated = path.relative(path.join(dir, 'src/agents'), path.join(PROJECT, 'generated'));
  return block.replaceAll("'../../generated/", `'${generated.split(path.sep).join('/')}/`);
}

/** A script that asks the module once (the model calls `everything_echo`), then maybe closes it. */
const driver = (close: boolean) => `import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { AuditContext } from '@toolgen/runtime';
import { askLangChain, closeLangChain } from './src/agents/langchain.js';

const model = fakeModel()
  .respondWithTools([{ name: 'everything_echo', args: { message: 'hi' }, id: 'call-1' }])
  .respond(new AIMessage('Echoed.'));
const context = new AuditContext({ userId: 'u1', sessionId: 's1' });
console.log(await askLangChain(model, context, 'Echo hi.'));
console.log(JSON.stringify(context.trail.map((record) => [record.tool, record.status])));
${close ? 'await closeLangChain();' : 'void closeLangChain;'}
`;

describe("the README's LangChain module, with remote tools pinned", () => {
  mkdirSync(path.join(dir, 'src/agents'), { recursive: true });
  writeFileSync(path.join(dir, 'src/agents/langchain.ts'), readmeModule());

  it.each([
    ['without closing the registry', false],
    ['after closeLangChain()', true],
  ])('lets a node process that used a remote tool exit on its own, %s', (_, close) => {
    const script = path.join(dir, `driver-${close ? 'close' : 'open'}.ts`);
    writeFileSync(script, driver(close));
    const started = Date.now();
    // From the project's folder, as an app runs: its config starts the server relative to it.
    const ran = spawnSync(process.execPath, ['--import', 'tsx', script], {
      cwd: PROJECT,
      env: { ...process.env, TSX_TSCONFIG_PATH: path.join(REPO, 'tsconfig.json') },
      encoding: 'utf8',
      timeout: EXIT_WITHIN_MS,
    });
    const shown = `status ${ran.status}, signal ${ran.signal}, after ${Date.now() - started} ms\n${ran.stdout}\n${ran.stderr}`;
    expect(ran.signal, shown).toBeNull();
    expect(ran.status, shown).toBe(0);
    expect(ran.stdout.trim().split('\n'), shown).toEqual(['Echoed.', '[["everything/echo","success"]]']);
  });
});
