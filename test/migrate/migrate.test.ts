/**
 * `toolgen migrate` over the fixtures (the original system's YAML): the output, byte for byte
 * (`UPDATE_GOLDEN=1` rewrites the golden files), what the report says, and that each migrated tool
 * builds with the real compiler with no errors and no warning the report did not announce.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Compiler, defaultOptions } from '../../src/compiler/compile.js';
import { migrate } from '../../src/migrate/migrate.js';
import { needsPerson, renderReport, type FileReport, type MigrationReport } from '../../src/migrate/report.js';

const repo = path.resolve(import.meta.dirname, '../..');
const GOLDEN = path.join(import.meta.dirname, 'golden');
const FIXTURES = 'test/migrate/fixtures/design';
const LIBRARY = [`${FIXTURES}/library/echo_tool.yaml`, `${FIXTURES}/library/workspace_tools.yaml`];

let dest: string;
let report: MigrationReport;

beforeAll(async () => {
  mkdirSync(path.join(repo, 'test/.tmp'), { recursive: true });
  dest = mkdtempSync(path.join(repo, 'test/.tmp/migrate-'));
  report = await migrate(FIXTURES, path.join(dest, 'out'), { cwd: repo });
});
afterAll(() => rmSync(dest, { recursive: true, force: true }));

const fileReport = (source: string): FileReport =>
  report.files.find((file) => file.source === `${FIXTURES}/${source}`)!;
const notesOf = (source: string, tool: string) => fileReport(source).tools.find((found) => found.name === tool)!.notes;

describe('the migrated files', () => {
  it('are one YAML per tool, and a stub per tool the original did not run as a function or composite', () => {
    expect(readdirSync(path.join(dest, 'out')).sort()).toEqual(
      readdirSync(GOLDEN)
        .filter((file) => file !== 'report.txt')
        .sort(),
    );
  });

  it.each(readdirSync(GOLDEN).filter((file) => file !== 'report.txt'))(
    '%s matches its golden file byte for byte',
    (file) => {
      const actual = readFileSync(path.join(dest, 'out', file), 'utf8');
      if (process.env['UPDATE_GOLDEN']) writeFileSync(path.join(GOLDEN, file), actual);
      expect(actual).toBe(readFileSync(path.join(GOLDEN, file), 'utf8'));
    },
  );

  it('the report, as printed, matches its golden file', () => {
    const text = `${renderReport(report).join('\n').replaceAll(path.relative(repo, dest).split(path.sep).join('/'), 'DEST')}\n`;
    if (process.env['UPDATE_GOLDEN']) writeFileSync(path.join(GOLDEN, 'report.txt'), text);
    expect(text).toBe(readFileSync(path.join(GOLDEN, 'report.txt'), 'utf8'));
  });
});

describe('the report', () => {
  it('says a multi-tool file was split, one file per tool', () => {
    expect(fileReport('library/workspace_tools.yaml').notes).toContainEqual({
      kind: 'split',
      where: 'tools',
      text: expect.stringContaining('5 tools → one file each'),
    });
    expect(fileReport('library/workspace_tools.yaml').tools.map((tool) => tool.name)).toEqual([
      'gmail_search_messages',
      'drive_upload_file',
      'primary_data_tool',
      'fallback_data_tool',
      'process_results',
    ]);
  });

  it('names each renamed policy, audit and test field with its new home', () => {
    const notes = notesOf('library/echo_tool.yaml', 'echo_tool');
    expect(notes).toEqual(
      expect.arrayContaining([
        { kind: 'renamed', where: 'business_rules.required_permissions', text: '→ policies.required_permissions' },
        { kind: 'renamed', where: 'casefile_policies.requires_casefile', text: '→ policies.requires_casefile' },
        { kind: 'renamed', where: 'audit_events.success_event', text: '→ audit.success_event' },
        { kind: 'renamed', where: 'test_scenarios[0]', text: '→ examples[1]' },
        { kind: 'renamed', where: 'test_scenarios[1]', text: '→ error_scenarios[1]' },
        {
          kind: 'commented',
          where: 'session_policies.requires_active_session',
          text: 'toolgen has no sessions to check',
        },
      ]),
    );
  });

  it('says which handlers are stubs, and what they were', () => {
    expect(notesOf('library/workspace_tools.yaml', 'primary_data_tool')).toContainEqual({
      kind: 'stubbed',
      where: 'implementation',
      text: expect.stringContaining('type api_call → type: function, ./primary_data_tool.ts exporting primaryDataTool'),
    });
    expect(
      fileReport('library/workspace_tools.yaml').tools.find((tool) => tool.name === 'fallback_data_tool')!.handler,
    ).toMatch(/fallback_data_tool\.ts$/);
  });

  it('resolves a next that names a tool twice called to the step after, and warns where the original looped back', () => {
    const notes = notesOf('flows/review_loop.yaml', 'review_loop');
    expect(notes).toContainEqual({
      kind: 'warning',
      where: 'implementation.composite.steps[1].on_success.next',
      text: expect.stringContaining('next: echo_tool → echo_tool_2; the original jumped back'),
    });
    expect(notes).toContainEqual({
      kind: 'warning',
      where: 'implementation.composite.steps[3].on_failure.next',
      text: expect.stringContaining('loops back to an earlier step'),
    });
  });

  it('rewrites plain templates and keeps and reports the others', () => {
    const notes = notesOf('flows/enrich_messages.yaml', 'enrich_messages');
    expect(notes).toContainEqual({
      kind: 'rewritten',
      where: 'implementation.composite.steps[1].inputs.content.chain',
      text: '{{ state.chain_id }} → << chain_id >>',
    });
    expect(notes).toContainEqual({
      kind: 'warning',
      where: 'implementation.composite.steps[1].inputs.mime_type',
      text: expect.stringContaining('is not a plain reference'),
    });
    expect(notes).toContainEqual({
      kind: 'warning',
      where: 'implementation.composite.steps[0].on_success.transform.recent',
      text: expect.stringContaining('JSONata'),
    });
  });

  it('needs a person for stubs and warnings, not for a workflow that converted entirely', async () => {
    expect(needsPerson(report)).toBe(true);
    const alone = await migrate(`${FIXTURES}/seed/echo_chain_demo.yaml`, path.join(dest, 'alone'), { cwd: repo });
    expect(needsPerson(alone)).toBe(false);
  });
});

/** What each fixture's output is built with: the tools the seed workflows and flows call. */
function outputsOf(source: string): string[] {
  return fileReport(source).tools.flatMap((tool) => [tool.yaml, ...(tool.handler ? [tool.handler] : [])]);
}

describe('a clean build of the result', () => {
  const fixtures = [
    'seed/echo_chain_demo.yaml',
    'seed/gmail_to_drive_pipeline.yaml',
    'seed/resilient_workflow.yaml',
    'library/echo_tool.yaml',
    'library/workspace_tools.yaml',
    'flows/review_loop.yaml',
    'flows/enrich_messages.yaml',
  ];

  it.each(fixtures)('%s: no errors, and only the warnings the report announces', async (source) => {
    const project = mkdtempSync(path.join(dest, 'build-'));
    const files = new Set([
      ...outputsOf(source),
      ...LIBRARY.flatMap((library) => outputsOf(library.slice(FIXTURES.length + 1))),
    ]);
    for (const file of files) cpSync(path.join(repo, file), path.join(project, 'config/tools', path.basename(file)));
    const result = await new Compiler(defaultOptions(project)).build();
    expect(result.diagnostics.filter((found) => found.severity === 'error')).toEqual([]);
    const announced = report.files.flatMap((file) =>
      file.tools.flatMap((tool) =>
        tool.notes.filter((note) => note.kind === 'warning').map((note) => `${path.basename(tool.yaml)} ${note.text}`),
      ),
    );
    for (const warning of result.diagnostics) {
      const file = path.basename(warning.location?.file ?? '');
      expect(
        announced.some((note) => note.startsWith(`${file} `) && note.includes(warning.code)),
        `${file}: ${warning.code} ${warning.message}`,
      ).toBe(true);
    }
  });
});
