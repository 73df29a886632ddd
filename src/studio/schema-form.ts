/**
 * A form made from a wait's payload schema, and the payload read back from what the form sends.
 * Strings, numbers, integers, booleans and enums get fields of their own, objects a fieldset (nested
 * at any depth); arrays and whatever a form cannot show (`anyOf`, no `type`) a JSON editor. Each field
 * is labelled with its property's name and described by its `description`; defaults fill it. The form
 * checks nothing itself (`novalidate`): the server checks the payload with the runtime's own validator.
 */
import type { JsonSchema } from '../runtime/index.js';
import { html, type Html } from './html.js';

type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'object' | 'json';

/**
 * The fields of a payload schema, filled with `values` (what was sent, when it is shown again) or the
 * defaults. Field names start with `prefix`; element ids with `idPrefix` too, so that several forms
 * on one page keep their labels apart.
 */
export function schemaFields(schema: JsonSchema, values: unknown, prefix: string, idPrefix = ''): Html {
  return field(schema, values, { path: [prefix], idPrefix }, null, true);
}

/** Where a field is: its name's path, and what its element ids start with. */
interface Place {
  readonly path: readonly string[];
  readonly idPrefix: string;
}

/**
 * The payload a form sent, as the schema reads it; `problems` for a JSON editor whose text is not JSON.
 *
 * @example payloadFromForm(schema, new URLSearchParams('payload/approver=dana'), 'payload')
 */
export function payloadFromForm(
  schema: JsonSchema,
  form: URLSearchParams,
  prefix: string,
): { readonly value: unknown; readonly problems: readonly string[] } {
  const problems: string[] = [];
  const value = read(schema, form, [prefix], problems);
  return { value: value === undefined ? {} : value, problems };
}

function kindOf(schema: JsonSchema): Kind {
  if (Array.isArray(schema['enum'])) return 'enum';
  const type = schema['type'];
  if (type === 'object' && isRecord(schema['properties'])) return 'object';
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') return type;
  return 'json';
}

function field(schema: JsonSchema, value: unknown, at: Place, name: string | null, required: boolean): Html {
  const fieldName = at.path.map(encodeURIComponent).join('/');
  const id = `${at.idPrefix}${fieldName}`;
  const description = typeof schema['description'] === 'string' ? schema['description'] : null;
  const describedBy = description ? `${id}-description` : null;
  const describe = description ? html`<span class="description" id="${describedBy}">${description}</span>` : '';
  const shown = value !== undefined ? value : schema['default'];
  const labelText = name === null ? 'payload' : name;
  const mark = required ? html` <span class="required">(required)</span>` : '';
  const kind = kindOf(schema);
  if (kind === 'object') {
    const properties = schema['properties'] as Record<string, JsonSchema>;
    const needed = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
    const inner = Object.keys(properties).map((key) =>
      field(
        properties[key]!,
        isRecord(shown) ? shown[key] : undefined,
        { path: [...at.path, key], idPrefix: at.idPrefix },
        key,
        needed.has(key),
      ),
    );
    if (name === null) return html`${describe}${inner}`;
    return html`<fieldset${describedBy ? html` aria-describedby="${describedBy}"` : ''}><legend>${labelText}${mark}</legend>${describe}${inner}</fieldset>`;
  }
  const aria = describedBy ? html` aria-describedby="${describedBy}"` : '';
  const label = html`<label for="${id}">${labelText}${mark}</label>`;
  switch (kind) {
    case 'boolean':
      return html`<div class="field">
        <input type="hidden" name="${fieldName}" value="false" /><input
          type="checkbox"
          id="${id}"
          name="${fieldName}"
          value="true"
          ${shown === true ? ' checked' : ''}${aria}
        />
        ${label}${describe}
      </div>`;
    case 'enum': {
      const options = (schema['enum'] as unknown[]).map(
        (option) =>
          html`<option
            value="${JSON.stringify(option)}"
            ${JSON.stringify(option) === JSON.stringify(shown) ? ' selected' : ''}
          >
            ${String(option)}
          </option>`,
      );
      return html`<div class="field">
        ${label}<select id="${id}" name="${fieldName}" ${aria}>
          ${required ? '' : html`<option value="">(none)</option>`}${options}</select
        >${describe}
      </div>`;
    }
    case 'number':
    case 'integer':
      return html`<div class="field">
        ${label}<input
          type="number"
          step="${kind === 'integer' ? '1' : 'any'}"
          id="${id}"
          name="${fieldName}"
          value="${typeof shown === 'number' ? String(shown) : ''}"
          ${aria}
        />${describe}
      </div>`;
    case 'string':
      return html`<div class="field">
        ${label}<input
          type="text"
          id="${id}"
          name="${fieldName}"
          value="${typeof shown === 'string' ? shown : ''}"
          ${aria}
        />${describe}
      </div>`;
    default: {
      const text = shown === undefined ? '' : JSON.stringify(shown, null, 2);
      const what = schema['type'] === 'array' ? 'a JSON array' : 'JSON';
      return html`<div class="field">
        <label for="${id}">${labelText}${mark} (${what})</label
        ><textarea id="${id}" name="${fieldName}" rows="4" ${aria}>${text}</textarea>${describe}
      </div>`;
    }
  }
}

function read(schema: JsonSchema, form: URLSearchParams, path: readonly string[], problems: string[]): unknown {
  const name = path.map(encodeURIComponent).join('/');
  const kind = kindOf(schema);
  if (kind === 'object') {
    const properties = schema['properties'] as Record<string, JsonSchema>;
    const needed = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
    const result: Record<string, unknown> = {};
    for (const key of Object.keys(properties)) {
      const value = read(properties[key]!, form, [...path, key], problems);
      // An empty optional field is left out; an empty required one is sent, for the schema to judge.
      if (value !== undefined) result[key] = value;
      else if (needed.has(key) && kindOf(properties[key]!) === 'string' && form.has(fieldNameOf([...path, key])))
        result[key] = '';
    }
    return result;
  }
  const values = form.getAll(name);
  if (values.length === 0) return undefined;
  const text = values.at(-1)!;
  switch (kind) {
    case 'boolean':
      return values.includes('true');
    case 'enum':
      return text === '' ? undefined : parseJson(text);
    case 'number':
    case 'integer':
      return text.trim() === '' ? undefined : Number(text);
    case 'string':
      return text === '' ? undefined : text;
    default: {
      if (text.trim() === '') return undefined;
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        problems.push(`${path.slice(1).join('.') || 'payload'}: is not JSON (${(error as Error).message})`);
        return undefined;
      }
    }
  }
}

function fieldNameOf(path: readonly string[]): string {
  return path.map(encodeURIComponent).join('/');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
