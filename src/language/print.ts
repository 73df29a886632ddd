/**
 * Prints values and types as TypeScript source, formatted the way a person would write them:
 * single quotes, two-space indent, short things on one line, trailing commas on long ones.
 */
import { type JsonSchema, isPlainObject } from './json.js';

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

/**
 * How `schemaType` writes a type, where the files it writes into legitimately differ. Generated
 * modules take the defaults: objects spread one member a line with their doc comments, values
 * written as `printValue` writes them.
 */
export interface TypeStyle {
  /** Objects on one line, `{ a: string; b?: number }`: a stub's signature, an editor's hover. */
  readonly inline?: boolean;
  /** Values and quoted names as JSON writes them (`"a" | "b"`): a stub, whose strings are all JSON's. */
  readonly json?: boolean;
  /** How many objects and arrays deep to spell out; deeper ones are `…` (a hover's few words). */
  readonly depth?: number;
  /**
   * In the words a tool's YAML uses (a hover): `integer`, `object` for an object with no fields and
   * `any` for a schema that says nothing, not TypeScript's `number`, `Record<string, unknown>` and `unknown`.
   */
  readonly yamlWords?: boolean;
}

/**
 * The TypeScript type of values a JSON Schema accepts.
 *
 * @example schemaType({ type: 'array', items: { enum: ['a', 'b'] } }) // "Array<'a' | 'b'>"
 * @example schemaType({ type: 'object', properties: { a: { type: 'string' } } }, { inline: true }) // '{ a?: string }'
 */
export function schemaType(schema: unknown, style: TypeStyle = {}, indent = ''): string {
  if (!isPlainObject(schema)) return 'unknown';
  const literal = style.json ? (value: unknown) => JSON.stringify(value) : (value: unknown) => printValue(value);
  if ('const' in schema) return literal(schema['const']);
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return schema['enum'].map(literal).join(' | ');
  for (const union of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[union]))
      return schema[union].map((member) => schemaType(member, style, indent)).join(' | ');
  }
  const type = schema['type'];
  if (Array.isArray(type)) return type.map((t) => schemaType({ ...schema, type: t }, style, indent)).join(' | ');
  const deeper = { ...style, depth: style.depth === undefined ? undefined : style.depth - 1 };
  switch (type) {
    case 'string':
    case 'boolean':
    case 'null':
      return type;
    case 'integer':
      return style.yamlWords ? 'integer' : 'number';
    case 'number':
      return 'number';
    case 'array': {
      const item = style.depth === 0 ? '…' : schemaType(schema['items'], deeper, indent);
      // On one line only a union needs parentheses; over lines `Array<…>` reads better.
      if (style.inline) return item.includes(' | ') ? `(${item})[]` : `${item}[]`;
      return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case 'object':
      return objectType(schema, deeper, indent);
    default:
      if (isPlainObject(schema['properties'])) return objectType(schema, deeper, indent);
      return style.yamlWords ? 'any' : 'unknown';
  }
}

/** A member's name in an object type, quoted (as JSON in that style) when it is no identifier. */
export function memberName(name: string, style: TypeStyle = {}): string {
  return style.json && !/^[A-Za-z_$][\w$]*$/.test(name) ? JSON.stringify(name) : propertyKey(name);
}

/** An object's type from the fields it lists; one that lists none holds anything. */
function objectType(schema: Record<string, unknown>, style: TypeStyle, indent: string): string {
  const properties = schema['properties'];
  if (!isPlainObject(properties) || Object.keys(properties).length === 0)
    return style.yamlWords ? 'object' : 'Record<string, unknown>';
  if (style.depth !== undefined && style.depth < 0) return '{ … }';
  return style.inline
    ? `{ ${objectMembers(schema, style).join('; ')} }`
    : `{\n${objectMembers(schema, style, `${indent}  `).join('')}${indent}}`;
}

/** The members of an object type: on their own lines with their doc comments when `indent` is given. */
function objectMembers(schema: Record<string, unknown>, style: TypeStyle, indent?: string): string[] {
  const properties = (schema['properties'] ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(schema['required']) ? schema['required'].map(String) : []);
  return Object.entries(properties).map(([name, property]) => {
    const member = `${memberName(name, style)}${required.has(name) ? '' : '?'}: ${schemaType(property, style, indent)}`;
    if (indent === undefined) return member;
    const description =
      isPlainObject(property) && typeof property['description'] === 'string' ? property['description'] : undefined;
    return `${docComment(description, indent)}${indent}${member};\n`;
  });
}

/**
 * A type alias as a generated module declares it, with its doc comment.
 *
 * @example typeAlias('Parameters of `echo`.', 'EchoParams', '{}') // '/** Parameters of `echo`. *\/\nexport type EchoParams = {};'
 */
export function typeAlias(doc: string, name: string, type: string): string {
  return `${docComment(doc)}export type ${name} = ${type};`;
}

/**
 * The type a generated module declares for an object schema (a tool's parameters, its state): its
 * members one a line, `{}` when it lists none. Type aliases, not interfaces: they are assignable to
 * `Record<string, unknown>`.
 *
 * @example declaredObjectType({ properties: {} }) // '{}'
 */
export function declaredObjectType(schema: JsonSchema): string {
  const members = objectMembers(schema, {}, '  ');
  return members.length > 0 ? `{\n${members.join('')}}` : '{}';
}

/**
 * The type a generated module declares for what a tool returns: an object's members one a line when
 * it is an object that lists fields (`{}` when the list is empty), else `schemaType`.
 */
export function declaredReturnType(schema: JsonSchema | null): string {
  return schema && schema['type'] === 'object' && schema['properties']
    ? declaredObjectType(schema)
    : schemaType(schema);
}
