/**
 * A long run's page: its graph whole, its timeline and steps table a page of 100 visits at a time,
 * with links to the others (`?from=`). A real run of 250 steps on a file store, read through the handler.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuditContext,
  ChainExecutor,
  defineTool,
  FileRunStore,
  ToolRegistry,
  type ToolDefinition,
} from '../../src/runtime/index.js';
import { createStudioHandler, type StudioHandler } from '../../src/studio/index.js';

const STEPS = 250;
let dir = '';
let store: FileRunStore;
let handler: StudioHandler;
let executor: ChainExecutor;
let long: ToolDefinition;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-studio-pages-'));
  store = new FileRunStore(dir, { fsync: false });
  const ids = Array.from({ length: STEPS }, (_, index) => `s${String(index).padStart(3, '0')}`);
  const echo = defineTool({
    name: 'echo_step',
    description: 'Echoes',
    parameters: { type: 'object' },
    returns: { type: 'object' },
    implementation: { kind: 'function', handler: (input: { n: number }) => ({ n: input.n }) },
  });
  long = defineTool({
    name: 'long_chain',
    description: 'Many steps',
    parameters: { type: 'object' },
    implementation: {
      kind: 'composite',
      plan: {
        name: 'long_chain',
        entry: ids[0]!,
        steps: ids.map((id, index) => ({
          kind: 'call' as const,
          id,
          tool: 'echo_step',
          inputs: { n: index },
          onSuccess: { mapOutputs: [], next: ids[index + 1] ?? null },
          onFailure: { action: 'stop' as const },
        })),
        maxStepExecutions: STEPS * 2,
      },
    },
  });
  const registry = new ToolRegistry([echo, long]);
  const context = new AuditContext({ userId: 'dana', sessionId: 's' });
  executor = new ChainExecutor({ registry, context, store });
  const result = await executor.runComposite(long, {}, { runId: 'long' });
  expect(result.success).toBe(true);
  handler = createStudioHandler({ store, registry, context });
});

afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function pageOf(url: string): Promise<Document> {
  const response = await handler(new Request(`http://127.0.0.1${url}`, { headers: { host: '127.0.0.1' } }));
  expect(response.status).toBe(200);
  return new JSDOM(await response.text()).window.document;
}

const stepLinks = (document: Document) =>
  [...document.querySelectorAll('table tbody tr td:first-child a')].map((link) => link.textContent);
const navOf = (document: Document) => document.querySelector('nav[aria-label="Steps pages"]')!;

describe('the page of a long run', () => {
  it('lists its first 100 visits, draws every step, and links to the next page', async () => {
    const document = await pageOf('/runs/long');
    expect(stepLinks(document)).toHaveLength(100);
    expect(stepLinks(document)[0]).toBe('s000');
    expect(stepLinks(document)[99]).toBe('s099');
    // The graph is whole: a link per step.
    expect(document.querySelectorAll('svg.graph a[aria-label^="step "]')).toHaveLength(STEPS);
    // The timeline: a row per attempt of the visits shown.
    expect(document.querySelectorAll('[aria-label^="s0"][aria-label*=" attempt 1: echo_step, success"]').length).toBe(
      100,
    );
    const nav = navOf(document);
    expect(nav.querySelector('span')!.textContent).toBe('Steps 1–100 of 250');
    expect([...nav.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href')])).toEqual([
      ['Next 100 steps', '/runs/long?from=100'],
    ]);
  });

  it('pages on to the last visits, and back', async () => {
    const middle = await pageOf('/runs/long?from=100');
    expect(stepLinks(middle)[0]).toBe('s100');
    expect([...navOf(middle).querySelectorAll('a')].map((a) => a.getAttribute('href'))).toEqual([
      '/runs/long?from=0',
      '/runs/long?from=200',
    ]);
    const last = await pageOf('/runs/long?from=200');
    expect(stepLinks(last)).toHaveLength(50);
    expect(navOf(last).querySelector('span')!.textContent).toBe('Steps 201–250 of 250');
    expect([...navOf(last).querySelectorAll('a')].map((a) => a.textContent)).toEqual(['Previous 100 steps']);
  });

  it('starts a page at its first visit, and takes a number past the end, or none, as the nearest page', async () => {
    expect(stepLinks(await pageOf('/runs/long?from=150'))[0]).toBe('s100');
    expect(stepLinks(await pageOf('/runs/long?from=9999'))[0]).toBe('s200');
    expect(stepLinks(await pageOf('/runs/long?from=-5'))[0]).toBe('s000');
  });
});

describe('the bytes of a page', () => {
  it('are ASCII, every other character a reference the browser shows as it was', async () => {
    const note = 'Zürich → 東京 😀 “quoted”';
    expect((await executor.runComposite(long, { note }, { runId: 'unicode' })).success).toBe(true);
    const response = await handler(new Request('http://127.0.0.1/runs/unicode', { headers: { host: '127.0.0.1' } }));
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(bytes.every((byte) => byte < 0x80)).toBe(true);
    const document = new JSDOM(new TextDecoder().decode(bytes)).window.document;
    expect(document.title).toBe('Run unicode · toolgen studio');
    expect(document.body.textContent).toContain('"note": "Zürich → 東京 😀 “quoted”"');
    expect(document.querySelector('svg.graph a')!.textContent).toContain('s000 → echo_step');
  });
});
