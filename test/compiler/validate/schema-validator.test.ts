/** The tool schema's validator is compiled when toolgen is built, not at every run: it must be this schema's. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSource } from '../../../src/compiler/load/load.js';
import { SchemaValidator } from '../../../src/compiler/validate/schema.js';
// @ts-expect-error: a plain script, without types
import { OUTPUT, SCHEMA, validatorModule } from '../../../scripts/schema-validator.mjs';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const TOOL = `name: long_tool
description: A description of more than twenty characters
parameters:
  - { name: message, type: string, required: true }
implementation: { type: function, module: ./echo.ts, export: echo }
`;

function validate(schemaPath: string, text: string) {
  const loaded = parseSource(text, '/p/config/tools/t.yaml', 'config/tools/t.yaml');
  return new SchemaValidator(schemaPath).validate(loaded.value, loaded.source);
}

describe('the prebuilt tool schema validator', () => {
  it('is what scripts/schema-validator.mjs makes from config/tool.schema.json now (run `npm run build` after editing the schema)', () => {
    expect(readFileSync(OUTPUT as string, 'utf8')).toBe(validatorModule(readFileSync(SCHEMA as string, 'utf8')));
  });

  it('reports the same problems, at the same places, as the schema compiled at run time', () => {
    // A copy of the schema with a different text (one more blank line) is compiled with ajv when it loads.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-schema-'));
    dirs.push(dir);
    const copy = path.join(dir, 'tool.schema.json');
    writeFileSync(copy, `${readFileSync(SCHEMA as string, 'utf8')}\n`);
    const broken = `name: 1bad
description: x
parameters:
  - { name: message, type: strin, required: yes }
implementation: { type: function, modul: ./echo.ts, export: echo }
extra: true
`;
    const prebuilt = validate(SCHEMA as string, broken).diagnostics.map(
      (d) => `${d.code} ${d.location?.line}:${d.location?.column} ${d.message}`,
    );
    expect(prebuilt.length).toBeGreaterThan(3);
    expect(
      validate(copy, broken).diagnostics.map((d) => `${d.code} ${d.location?.line}:${d.location?.column} ${d.message}`),
    ).toEqual(prebuilt);
  });

  it('is not used for a schema file that differs from the one it was made from', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgen-schema-'));
    dirs.push(dir);
    const schema = JSON.parse(readFileSync(SCHEMA as string, 'utf8'));
    schema.properties.description.maxLength = 20;
    const edited = path.join(dir, 'tool.schema.json');
    writeFileSync(edited, JSON.stringify(schema));
    expect(validate(SCHEMA as string, TOOL).diagnostics).toEqual([]);
    expect(validate(edited, TOOL).diagnostics.map((d) => d.location?.line)).toEqual([2]);
    expect(parseDocument(TOOL).errors).toEqual([]);
  });
});
