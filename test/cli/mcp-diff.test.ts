/**
 * `npx toolgen mcp diff` as a user runs it (the built bin, a real process) against a small fixture
 * MCP server whose tools the test changes after they were pinned: what it reports, which composites
 * a change breaks (the static checks against the live schemas), and its exit code. A new command or
 * path in the config is not drift.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, toolgenSync } from '../helpers/toolgen-process.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/mcp/fixture-server.mjs');

const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
const [READ, SHOUT, UNUSED] = [
  {
    name: 'read',
    description: 'Reads a note',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    outputSchema: text,
  },
  { name: 'shout', description: 'Shouts', inputSchema: text, outputSchema: text },
  { name: 'unused', description: 'Nobody calls it', inputSchema: { type: 'object' } },
];
const COMPOSITE = `name: loud_note
description: Reads a note and shouts it
parameters:
  - { name: path, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
      - id: read
        tool: svc/read
        inputs: { path: << state.path >> }
        on_success: { map_outputs: { text: note } }
      - id: shout
        tool: svc/shout
        inputs: { text: << state.note >> }
        on_success: { map_outputs: { text: loud } }
`;

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function project(): void {
  dir = mkdtempSync(path.join(tmpdir(), 'toolgen-mcp-diff-'));
  mkdirSync(path.join(dir, 'config/tools'), { recursive: true });
  writeFileSync(path.join(dir, 'config/tools/loud_note.yaml'), COMPOSITE);
  serveTools([READ, SHOUT, UNUSED]);
  writeConfig(FIXTURE);
}

function serveTools(tools: readonly object[]): void {
  writeFileSync(path.join(dir, 'tools.json'), JSON.stringify({ name: 'svc', version: '1.0.0', tools }));
}

function writeConfig(server: string): void {
  writeFileSync(
    path.join(dir, 'toolgen.config.yaml'),
    `mcpServers:\n  svc: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(server)}, tools.json] }\n`,
  );
}

function toolgen(...args: string[]) {
  return toolgenSync(args, { cwd: dir });
}

/** Pinned, built, and every check passes: the starting point of each case. */
function pinned(): void {
  project();
  expect(toolgen('mcp', 'pull').status).toBe(0);
  const build = toolgen();
  expect(build.status, build.stderr).toBe(0);
}

describe('toolgen mcp diff', () => {
  it('finds no drift in a server that lists what was pinned, even started another way', () => {
    pinned();
    // Started another way (the command found on PATH, another folder, a relative path): not drift.
    mkdirSync(path.join(dir, 'sub'));
    writeFileSync(
      path.join(dir, 'toolgen.config.yaml'),
      `mcpServers:\n  svc: { command: node, args: [${JSON.stringify(path.relative(path.join(dir, 'sub'), FIXTURE))}, ../tools.json], cwd: sub }\n`,
    );
    const diff = toolgen('mcp', 'diff');
    expect(diff.stdout).toBe(
      'svc (svc 1.0.0): no drift (3 tools)\ntoolgen: no drift: 1 server list what toolgen.mcp-lock.json pins\n',
    );
    expect(diff.status).toBe(0);
  });

  it('reports a tool added and a description changed, and passes: they break nothing', () => {
    pinned();
    serveTools([
      { ...READ, description: 'Reads a note from the notes folder' },
      SHOUT,
      UNUSED,
      { name: 'archive', inputSchema: { type: 'object' } },
    ]);
    const diff = toolgen('mcp', 'diff');
    expect(diff.stdout.split('\n')).toEqual([
      'svc (svc 1.0.0): 1 added, 1 changed',
      '  + svc/archive',
      '  ~ svc/read: description changed; used by loud_note',
      'toolgen: svc drifted from toolgen.mcp-lock.json; npx toolgen mcp pull takes the new schemas',
      '',
    ]);
    expect(diff.status).toBe(0);
    // Nothing was written: the lock is as it was.
    expect(toolgen('check').status).toBe(0);
  });

  it('fails when a tool a composite uses changed its output or vanished, and shows what the live schemas break', () => {
    pinned();
    const lockBefore = readFileSync(path.join(dir, 'toolgen.mcp-lock.json'), 'utf8');
    const body = { type: 'object', properties: { body: { type: 'string' } }, required: ['body'] };
    serveTools([{ ...READ, outputSchema: body }, UNUSED]);
    const diff = toolgen('mcp', 'diff');
    expect(diff.status).toBe(1);
    expect(diff.stdout).toContain(
      [
        'svc (svc 1.0.0): 1 changed, 1 removed',
        '  ~ svc/read: outputSchema changed; used by loud_note',
        '  - svc/shout: removed; used by loud_note',
        'Checked against the live schemas, the composites have these problems:',
      ].join('\n'),
    );
    // The static checks, located in the composite: the mapped field is gone, and so is the tool.
    expect(diff.stderr).toMatch(/config\/tools\/loud_note\.yaml:12:\d+ error TG5004 'svc\/read' returns no 'text'/);
    expect(diff.stderr).toMatch(/config\/tools\/loud_note\.yaml:14:15 error TG2011 .*'shout'/);
    // The tools the hint lists are the live server's, not the lock's.
    expect(diff.stderr).toContain('its tools, as the server lists them now: read, unused');
    expect(diff.stderr).not.toContain('as toolgen.mcp-lock.json pins them');
    expect(diff.stdout).toMatch(
      /toolgen: svc drifted from toolgen\.mcp-lock\.json; 2 tools a composite uses changed or vanished; 2 problems against the live schemas; npx toolgen mcp pull takes the new schemas\n$/,
    );
    expect(readFileSync(path.join(dir, 'toolgen.mcp-lock.json'), 'utf8')).toBe(lockBefore);

    const json = JSON.parse(toolgen('mcp', 'diff', '--json').stdout) as {
      servers: { name: string; status: string; changed: { tool: string; fields: string[]; usedBy: string[] }[] }[];
      breaks: { code: string; file: string; line: number }[];
      failing: boolean;
    };
    expect(json.failing).toBe(true);
    expect(json.servers[0]).toMatchObject({
      name: 'svc',
      status: 'drifted',
      added: [],
      changed: [{ tool: 'read', fields: ['outputSchema'], usedBy: ['loud_note'] }],
      removed: [{ tool: 'shout', usedBy: ['loud_note'] }],
    });
    expect(json.breaks.map((d) => [d.code, d.file, d.line])).toEqual([
      ['TG5004', 'config/tools/loud_note.yaml', 12],
      ['TG2011', 'config/tools/loud_note.yaml', 14],
    ]);
  });

  it('fails on a lock edited by hand, which the build refuses (TG1009), even when the server lists what it pinned', () => {
    pinned();
    const file = path.join(dir, 'toolgen.mcp-lock.json');
    const lock = JSON.parse(readFileSync(file, 'utf8')) as {
      servers: { svc: { tools: Record<string, { description?: string }> } };
    };
    lock.servers.svc.tools['read']!.description = 'Edited by hand';
    writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
    expect(toolgen().stderr).toContain('TG1009');
    const diff = toolgen('mcp', 'diff');
    expect(diff.status).toBe(1);
    expect(diff.stdout).not.toContain('no drift');
    expect(diff.stdout.split('\n')).toEqual([
      "svc (svc 1.0.0): the lock's pins were edited by hand (3 tools listed, as pinned)",
      '  ! svc/read: its pin does not match its hash (the build reports TG1009)',
      'toolgen: 1 pin of toolgen.mcp-lock.json does not match its hash (edited by hand: the build fails with TG1009); npx toolgen mcp pull takes the new schemas',
      '',
    ]);
    const json = JSON.parse(toolgen('mcp', 'diff', '--json').stdout) as { servers: unknown[]; failing: boolean };
    expect(json).toMatchObject({ servers: [{ name: 'svc', status: 'tampered', tampered: ['read'] }], failing: true });
  });

  it('fails, saying why, when a server cannot be reached or was never pulled', () => {
    pinned();
    writeFileSync(
      path.join(dir, 'toolgen.config.yaml'),
      `mcpServers:\n  svc: { command: no-such-command-7f3a }\n  other: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FIXTURE)}, tools.json] }\n`,
    );
    const diff = toolgen('mcp', 'diff');
    expect(diff.status).toBe(1);
    expect(diff.stderr).toContain(
      "toolgen: cannot pull 'svc' (no-such-command-7f3a): the command 'no-such-command-7f3a' was not found",
    );
    expect(diff.stdout).toContain('other (svc 1.0.0): not pinned yet; npx toolgen mcp pull other pins its tools');
    expect(diff.stdout).toContain('svc: could not be reached (above)');
  });
});
