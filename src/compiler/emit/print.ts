/**
 * Prints values and types as TypeScript source, formatted the way a person would write them:
 * single quotes, two-space indent, short things on one line, trailing commas on long ones.
 */
import { type JsonSchema, isPlainObject } from '../../language/json.js';

const LINE = 100;

/**
 * What generated code never holds raw: C0 and C1 controls and DEL (an ESC sequence clears the screen
 * of whoever cats the file, a CR hides the rest of a line), the line and paragraph separators, and
 * bidirectional overrides and isolates (which make code read otherwise than it runs).
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what must be escaped
export const UNPRINTED = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** `\u001b` for ESC: how a character of `UNPRINTED` is written, in a literal and in a comment alike. */
const escapeOf = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * A string literal that round-trips any string, newlines and `${` included, and holds none of
 * `UNPRINTED` raw. Single-quoted unless the text holds more single quotes than double ones, as a
 * person would write it.
 *
 * @example quote('a\u202eb') // "'a\\u202eb'"
 */
export function quote(text: string): string {
  // Most strings need no escaping at all.
  if (!text.includes("'") && !text.includes('\\') && !UNPRINTED.test(text)) return `'${text}'`;
  const mark = count(text, "'") > count(text, '"') ? '"' : "'";
  let out = mark;
  for (const char of text) {
    if (char === '\\') out += '\\\\';
    else if (char === mark) out += `\\${mark}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (UNPRINTED.test(char)) out += escapeOf(char);
    else out += char;
  }
  return `${out}${mark}`;
}

function count(text: string, char: string): number {
  let n = 0;
  for (let i = text.indexOf(char); i >= 0; i = text.indexOf(char, i + 1)) n += 1;
  return n;
}

export function propertyKey(name: string): string {
  // In an object literal, `__proto__:` (quoted too) sets the prototype; a computed key is a field.
  if (name === '__proto__') return '["__proto__"]';
  // Reserved words are fine as property names; only the identifier syntax matters here.
  return /^[A-Za-z_$][\w$]*$/.test(name) || /^(?:0|[1-9]\d*)$/.test(name) ? name : quote(name);
}

/** Prints a JSON value as a TypeScript expression, starting at the given indent. */
export function printValue(value: unknown, indent = ''): string {
  if (value === null || value === undefined || typeof value !== 'object') return printScalar(value);
  const flat = printFlat(value, LINE - indent.length);
  if (flat !== null) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value))
    return `[\n${value.map((item) => `${inner}${printValue(item, inner)},`).join('\n')}\n${indent}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{\n${entries.map(([key, item]) => `${inner}${propertyKey(key)}: ${printValue(item, inner)},`).join('\n')}\n${indent}}`;
}

function printScalar(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return quote(value);
  return Object.is(value, -0) ? '0' : String(value);
}

/** The value on one line, or null as soon as it would be longer than `budget` characters. */
function printFlat(value: unknown, budget: number): string | null {
  if (value === null || typeof value !== 'object') {
    const text = printScalar(value);
    return text.length <= budget && !text.includes('\n') ? text : null;
  }
  const parts: string[] = [];
  let used = 0;
  const add = (text: string | null): boolean => {
    if (text === null) return false;
    used += text.length + 2;
    parts.push(text);
    return used <= budget;
  };
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    for (const item of value) if (!add(printFlat(item, budget - used))) return null;
    const text = `[${parts.join(', ')}]`;
    return text.length <= budget ? text : null;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  for (const [key, item] of entries) {
    const name = propertyKey(key);
    const printed = printFlat(item, budget - used - name.length - 2);
    if (!add(printed === null ? null : `${name}: ${printed}`)) return null;
  }
  const text = `{ ${parts.join(', ')} }`;
  return text.length <= budget ? text : null;
}

/**
 * Text inside a comment: `*\/` cannot end it early, and every character of `UNPRINTED` is written as
 * its escape (a tab stays a tab), a line break too (`\u000a`) unless `lines` keeps them (CRLF as LF).
 *
 * @example commentText('beep\u0007 and\nmore') // 'beep\\u0007 and\\u000amore'
 */
export function commentText(text: string, lines = false): string {
  const kept = (lines ? text.replaceAll('\r\n', '\n') : text).replaceAll('*/', '*\\/');
  let out = '';
  for (const char of kept)
    out += (lines && char === '\n') || char === '\t' || !UNPRINTED.test(char) ? char : escapeOf(char);
  return out;
}

/** A doc comment, or nothing when there is no text; its text as `commentText` writes it. */
export function docComment(text: string | undefined, indent = ''): string {
  if (!text || !text.trim()) return '';
  const lines = commentText(text.trim(), true).split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} *${line ? ` ${line}` : ''}`).join('\n')}\n${indent} */\n`;
}

/** The TypeScript type of values a JSON Schema accepts. */
export function schemaType(schema: JsonSchema | boolean | undefined | null, indent = ''): string {
  if (schema === undefined || schema === null || schema === true || !isPlainObject(schema)) return 'unknown';
  if ('const' in schema) return printValue(schema['const']);
  if (Array.isArray(schema['enum'])) return (schema['enum'] as unknown[]).map((v) => printValue(v)).join(' | ');
  for (const union of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[union]))
      return (schema[union] as JsonSchema[]).map((member) => schemaType(member, indent)).join(' | ');
  }
  const type = schema['type'];
  if (Array.isArray(type)) return type.map((t) => schemaType({ ...schema, type: t }, indent)).join(' | ');
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = schemaType(schema['items'] as JsonSchema | undefined, indent);
      return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case 'object':
      return objectType(schema, indent);
    default:
      return isPlainObject(schema['properties']) ? objectType(schema, indent) : 'unknown';
  }
}

function objectType(schema: JsonSchema, indent: string): string {
  const properties = schema['properties'];
  if (!isPlainObject(properties) || Object.keys(properties).length === 0) return 'Record<string, unknown>';
  return `{\n${objectMembers(schema, `${indent}  `)}${indent}}`;
}

/** The members of an object type, one per line with their doc comments. */
export function objectMembers(schema: JsonSchema, indent: string, optionalAll = false): string {
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
  let out = '';
  for (const [name, property] of Object.entries(properties)) {
    const description =
      isPlainObject(property) && typeof property['description'] === 'string' ? property['description'] : undefined;
    out += docComment(description, indent);
    out += `${indent}${propertyKey(name)}${required.has(name) && !optionalAll ? '' : '?'}: ${schemaType(property, indent)};\n`;
  }
  return out;
}
