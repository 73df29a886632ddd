/**
 * `apis` in toolgen.config.yaml: read in one spelling, `${NAME}` left as written, and every problem
 * located at file:line:col as mcpServers' are, an API's name and a server's in one namespace.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderDiagnostic } from '../../src/compiler/diagnostics/render.js';
import { findConfig } from '../../src/compiler/session/config-file.js';
import { documentLocation, readApis } from '../../src/remote/declare/api.js';

let root: string | null = null;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = null;
});

/** The config's diagnostics, rendered as the CLI prints them (first line only). */
async function problemsOf(text: string): Promise<string[]> {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-apis-'));
  writeFileSync(path.join(root, 'toolgen.config.yaml'), text);
  const found = await findConfig(root);
  return found.diagnostics.map((d) => renderDiagnostic(d, { color: false, sources: found.sources }).split('\n')[0]!);
}

describe('apis in toolgen.config.yaml', () => {
  it('reads each API in one spelling, sorted by name, ${NAME} kept as written', () => {
    const read = readApis(
      {
        pets: { openapi: 'api/pets.yaml', baseUrl: '${PETS_URL}', headers: { Authorization: 'Bearer ${TOKEN}' } },
        billing: { openapi: 'https://example.com/openapi.json', baseUrl: 'https://billing.example', headers: {} },
      },
      '/app',
      [],
    );
    expect(read).toEqual({
      apis: [
        {
          name: 'billing',
          spec: { openapi: 'https://example.com/openapi.json', baseUrl: 'https://billing.example' },
          root: '/app',
        },
        {
          name: 'pets',
          spec: { openapi: 'api/pets.yaml', baseUrl: '${PETS_URL}', headers: { Authorization: 'Bearer ${TOKEN}' } },
          root: '/app',
        },
      ],
      problems: [],
    });
    expect(read.apis.map(documentLocation)).toEqual(['https://example.com/openapi.json', '/app/api/pets.yaml']);
  });

  it('hands the APIs to the build through the config', async () => {
    await problemsOf('apis:\n  pets:\n    openapi: pets.yaml\n    baseUrl: http://127.0.0.1:8080\n');
    const found = await findConfig(root!);
    expect(found.config.apis).toEqual([
      { name: 'pets', spec: { openapi: 'pets.yaml', baseUrl: 'http://127.0.0.1:8080' }, root: root! },
    ]);
  });

  it('locates every problem at file:line:col, with a suggestion where one helps', async () => {
    const problems = await problemsOf(
      [
        'mcpServers:',
        '  files:',
        '    command: npx',
        'apis:',
        '  files:',
        '    openapi: files.yaml',
        '    baseUrl: http://x',
        '  pets:',
        '    openapi: ftp://example.com/pets.yaml',
        '    baseUrl: not a url',
        '    header: {}',
        '  shop:',
        '    openapi: ${DOC}',
        '    baseUrl: https://shop.example/${REGION',
        '  bare: 3',
        '  nodoc:',
        '    baseUrl: https://x',
        '',
      ].join('\n'),
    );
    expect(problems).toEqual([
      "toolgen.config.yaml:5:3 error TG1017 'files' names an API and a server under mcpServers: a step calls 'files/…', so each name must be one or the other",
      "toolgen.config.yaml:11:5 error TG1017 unknown field 'header' in API 'pets'; did you mean 'headers'?",
      "toolgen.config.yaml:9:14 error TG1017 'openapi' of API 'pets' must be a path relative to toolgen.config.yaml, or an http:// or https:// URL",
      "toolgen.config.yaml:10:14 error TG1017 'baseUrl' of API 'pets' must be an http:// or https:// URL",
      "toolgen.config.yaml:13:14 error TG1017 'openapi' cannot use ${NAME}: toolgen reads variables in baseUrl and headers",
      "toolgen.config.yaml:14:35 error TG1017 '${REGION' in 'baseUrl' is not a variable toolgen reads: write ${NAME}, read from the environment",
      "toolgen.config.yaml:15:9 error TG1017 API 'bare' must be a mapping: { openapi, baseUrl, headers }",
      "toolgen.config.yaml:17:5 error TG1017 API 'nodoc' needs openapi",
    ]);
  });
});
