/** `toolgen migrate` from the command line: exit codes, what it prints, and that it never overwrites. */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { Output } from '../../src/cli/output.js';

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures/design');
const ORIGINAL = path.resolve(import.meta.dirname, 'fixtures/original');
let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-migrate-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function run(args: string[]): Promise<{ code: number; out: string; err: string; data: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const data: string[] = [];
  const output: Output = {
    color: false,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    data: (line) => data.push(line),
  };
  const code = await main(args, { cwd: root, output });
  return { code, out: out.join('\n'), err: err.join('\n'), data: data.join('\n') };
}

describe('toolgen migrate', () => {
  it('exits 0 when everything converted', async () => {
    const { code, out } = await run(['migrate', path.join(FIXTURES, 'seed/echo_chain_demo.yaml'), 'out']);
    expect(code).toBe(0);
    expect(readdirSync(path.join(root, 'out'))).toEqual(['echo_chain_demo.yaml']);
    expect(out).toMatch(/echo_chain_demo → out\/echo_chain_demo\.yaml/);
    expect(out).toMatch(/1 file read, 1 tool written to out \(0 handler stubs\); .*; everything converted$/);
  });

  it('exits 1 when something needs a person, and still writes what it could', async () => {
    const { code, out } = await run(['migrate', FIXTURES, 'out']);
    expect(code).toBe(1);
    expect(readdirSync(path.join(root, 'out'))).toHaveLength(17);
    expect(out).toMatch(
      /7 files read, 11 tools written to out \(6 handler stubs\); .* warnings; needs a person: see the warnings and stubs above$/,
    );
  });

  it('counts a tool whose name another took as neither written nor stubbed', async () => {
    const { code, out } = await run(['migrate', path.join(ORIGINAL, '67f182b'), 'out']);
    expect(code).toBe(1);
    expect(readdirSync(path.join(root, 'out')).filter((file) => file.startsWith('create_session_tool'))).toHaveLength(
      2,
    );
    expect(out).toMatch(/create_session_tool → not written: out\/create_session_tool\.yaml is another tool's/);
    expect(out).toMatch(/5 files read, 4 tools written to out \(2 handler stubs\); /);
  });

  it('prints the report as JSON with --format json', async () => {
    const { code, data } = await run([
      'migrate',
      path.join(FIXTURES, 'library/workspace_tools.yaml'),
      'out',
      '--format',
      'json',
    ]);
    expect(code).toBe(1);
    const report = JSON.parse(data) as { files: { tools: { name: string }[] }[]; needsPerson: boolean };
    expect(report.needsPerson).toBe(true);
    expect(report.files[0]!.tools.map((tool) => tool.name)).toContain('drive_upload_file');
  });

  it('never overwrites: when a file it would write exists, it writes nothing and exits 2', async () => {
    mkdirSync(path.join(root, 'out'));
    writeFileSync(path.join(root, 'out/process_results.yaml'), 'mine\n');
    const { code, err } = await run(['migrate', FIXTURES, 'out']);
    expect(code).toBe(2);
    expect(err).toMatch(/wrote nothing; these files exist: out\/process_results\.yaml/);
    expect(readdirSync(path.join(root, 'out'))).toEqual(['process_results.yaml']);
    expect(readFileSync(path.join(root, 'out/process_results.yaml'), 'utf8')).toBe('mine\n');
  });

  it.each([
    [['migrate', 'nowhere.yaml', 'out'], /'nowhere\.yaml' does not exist/],
    [['migrate', 'only-src'], /missing required argument 'dest'/],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const { code, err } = await run(args);
    expect(code).toBe(2);
    expect(err).toMatch(message);
    expect(existsSync(path.join(root, 'out'))).toBe(false);
  });
});
