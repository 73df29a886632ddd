/**
 * A form made from a wait's payload schema, and the payload read back from what the form sends.
 * Strings, numbers, integers, booleans and enums get fields of their own, objects a fieldset (nested
 * at any depth), arrays of any of these a list with a button to add an item and one to remove each
 * (the page's script clones the list's blank item); whatever a form cannot show (an array of arrays,
 * `anyOf`, no `type`) a JSON editor. Each field is labelled with its property's name (an array's
 * items `tags item 2`) and described by its `description`; defaults fill it. The form checks nothing
 * itself (`novalidate`): the server checks the payload with the runtime's own validator.
 *
 * An array's items are named `<array>/<index>`, and the array itself by a hidden `<array>/-`, so that
 * a list emptied still says it is there; indices may have gaps once items were removed.
 */
import type { JsonSchema } from '../runtime/index.js';
import { html, type Html } from './html.js';

type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'object' | 'array' | 'json';

/** What a blank item's names and ids hold where its index goes, by how deep its array is in arrays. */
export const INDEX_PLACEHOLDER = (depth: number) => `__i${depth}__`;

/**
 * The fields of a payload schema, filled with `values` (what was sent, when it is shown again) or the
 * defaults. Field names start with `prefix`; element ids with `idPrefix` too, so that several forms
 * on one page keep their labels apart.
 */
export function schemaFields(schema: JsonSchema, values: unknown, prefix: string, idPrefix = ''): Html {
  return field(schema, values, { path: [prefix], idPrefix }, null, true);
}

/** Where a field is: its name's path, what its element ids start with, and how many arrays it is in. */
interface Place {
  readonly path: readonly string[];
  readonly idPrefix: string;
  readonly arrays?: number;
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
  const value = read(schema, new FormIndex(form), [prefix], problems);
  return { value: value === undefined ? {} : value, problems };
}

/**
 * A posted form indexed once, by name and by the item indices under each name: reading a field is a
 * look-up, not a scan of the whole form (a list of thousands of items read a scan per item: seconds
 * for one POST, the studio's process held meanwhile).
 */
class FormIndex {
  readonly #values = new Map<string, string[]>();
  readonly #indices = new Map<string, Set<number>>();

  constructor(form: URLSearchParams) {
    for (const [key, value] of form) {
      const values = this.#values.get(key);
      if (values) values.push(value);
      else this.#values.set(key, [value]);
      // `<name>/<index>` or `<name>/<index>/…`: an item of the array `name`, at any depth.
      for (let slash = key.indexOf('/'); slash !== -1; slash = key.indexOf('/', slash + 1)) {
        const index = /^(\d{1,6})(?:\/|$)/.exec(key.slice(slash + 1));
        if (!index) continue;
        const name = key.slice(0, slash);
        const indices = this.#indices.get(name) ?? new Set<number>();
        indices.add(Number(index[1]));
        this.#indices.set(name, indices);
      }
    }
  }

  has(name: string): boolean {
    return this.#values.has(name);
  }

  getAll(name: string): readonly string[] {
    return this.#values.get(name) ?? [];
  }

  /** The indices of the array `name`'s items the form sent, in no order. */
  indices(name: string): ReadonlySet<number> {
    return this.#indices.get(name) ?? new Set();
  }
}

function kindOf(schema: JsonSchema): Kind {
  if (Array.isArray(schema['enum'])) return 'enum';
  const type = schema['type'];
  if (type === 'object' && isRecord(schema['properties'])) return 'object';
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') return type;
  if (type === 'array' && isRecord(schema['items'])) {
    const item = kindOf(schema['items']);
    return item === 'array' || item === 'json' ? 'json' : 'array';
  }
  return 'json';
}

function field(schema: JsonSchema, value: unknown, at: Place, name: string | Html | null, required: boolean): Html {
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
  if (kind === 'array') {
    const items = Array.isArray(shown) ? shown : [];
    const itemSchema = schema['items'] as JsonSchema;
    const depth = at.arrays ?? 0;
    const item = (itemValue: unknown, index: string, number: string) => {
      const itemName = html`${labelText} item <span data-n>${number}</span>`;
      const place = { path: [...at.path, index], idPrefix: at.idPrefix, arrays: depth + 1 };
      return html`<li data-item>
        ${field(itemSchema, itemValue, place, itemName, false)}<button type="button" data-remove>
          Remove ${itemName}
        </button>
      </li>`;
    };
    const placeholder = INDEX_PLACEHOLDER(depth);
    return html`<fieldset data-array${describedBy ? html` aria-describedby="${describedBy}"` : ''}>
      <legend>${labelText}${mark}</legend>
      ${describe}<input type="hidden" name="${fieldName}/-" value="" />
      <ol data-items data-next="${String(items.length)}" data-placeholder="${placeholder}">
        ${items.map((itemValue, index) => item(itemValue, String(index), String(index + 1)))}
      </ol>
      <template>${item(undefined, placeholder, '')}</template>
      <button type="button" data-add>Add ${labelText} item</button>
    </fieldset>`;
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

function read(schema: JsonSchema, form: FormIndex, path: readonly string[], problems: string[]): unknown {
  const name = path.map(encodeURIComponent).join('/');
  const kind = kindOf(schema);
  if (kind === 'array') {
    if (!form.has(`${name}/-`)) return undefined;
    const itemSchema = schema['items'] as JsonSchema;
    const items: unknown[] = [];
    for (const index of [...form.indices(name)].sort((a, b) => a - b)) {
      const item = read(itemSchema, form, [...path, String(index)], problems);
      // An item added and left empty is sent: a string as '', for the schema to judge; others are left out.
      if (item !== undefined) items.push(item);
      else if (kindOf(itemSchema) === 'string') items.push('');
    }
    return items;
  }
  if (kind === 'object') {
    const properties = schema['properties'] as Record<string, JsonSchema>;
    const needed = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
    const result: Record<string, unknown> = {};
    for (const key of Object.keys(properties)) {
      const value = read(properties[key]!, form, [...path, key], problems);
      // An empty optional field (an empty list too) is left out; an empty required one is sent, for the schema to judge.
      const empty = Array.isArray(value) && value.length === 0 && !needed.has(key);
      if (value !== undefined && !empty) result[key] = value;
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
