/**
 * The official Arazzo 1.0 JSON Schema (test/fixtures/arazzo/arazzo-1.0.schema.json, vendored from
 * OAI/Arazzo-Specification: its README says from where), as a check on Arazzo documents: what the
 * specification's own schema says of a document toolgen writes or reads. The schema declares JSON
 * Schema draft 2020-12, so ajv's class for that draft compiles it. Its one `format`
 * (`uri-reference`) stays an annotation, as 2020-12 has it by default.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';

export const ARAZZO_SCHEMA_FILE = path.resolve(import.meta.dirname, '../fixtures/arazzo/arazzo-1.0.schema.json');

const schema = JSON.parse(readFileSync(ARAZZO_SCHEMA_FILE, 'utf8')) as { $schema: string };
if (schema.$schema !== 'https://json-schema.org/draft/2020-12/schema') {
  throw new Error(
    `${ARAZZO_SCHEMA_FILE} declares ${schema.$schema}, not draft 2020-12: compile it with that draft's class`,
  );
}
const validate = new Ajv2020({ allErrors: true, strict: false, validateFormats: false }).compile(schema);

/** One error as a line: where, what, and the property it is about when ajv names one. */
const line = ({ instancePath, message, params }: ErrorObject) => {
  const property = (params as { additionalProperty?: string; unevaluatedProperty?: string }) ?? {};
  const named = property.additionalProperty ?? property.unevaluatedProperty;
  return `${instancePath || '/'}: ${message ?? 'is invalid'}${named === undefined ? '' : ` '${named}'`}`;
};

/**
 * Where a parsed Arazzo document breaks the official schema, one line each (`/workflows/0: must
 * have required property 'steps'`); empty when it is valid.
 *
 * @example
 * arazzoSchemaErrors(parse(readFileSync('test/fixtures/arazzo/oauth.arazzo.yaml', 'utf8'))); // []
 */
export function arazzoSchemaErrors(document: unknown): string[] {
  return validate(document) ? [] : (validate.errors ?? []).map(line);
}
