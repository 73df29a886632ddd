/**
 * Forms from payload schemas, and payloads read back from what they send: every kind of field, nested
 * objects, defaults, descriptions as accessible descriptions, and values a JSON editor must parse.
 */
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { payloadFromForm, schemaFields } from '../../src/studio/schema-form.js';
import { planSvg } from '../../src/studio/graph-svg.js';
import { createToolRegistry } from '../../generated/index.js';
import type { ChainPlan } from '../../src/runtime/index.js';

const schema = {
  type: 'object',
  required: ['approved', 'approver'],
  properties: {
    approved: { type: 'boolean', description: 'Whether the money moves' },
    approver: { type: 'string', minLength: 1 },
    level: { enum: ['low', 'high'], default: 'low' },
    limit: { type: 'integer', default: 3 },
    address: { type: 'object', properties: { city: { type: 'string' } } },
    tags: { type: 'array', items: { type: 'string' } },
  },
};

describe('schemaFields', () => {
  const form = new JSDOM(`<form>${schemaFields(schema, undefined, 'payload').text}</form>`).window.document;
  const field = (name: string) => form.querySelector<HTMLInputElement>(`[id="payload/${name}"]`)!;
  const label = (name: string) =>
    form.querySelector(`label[for="payload/${name}"]`)!.textContent!.replace(/\s+/g, ' ').trim();

  it('labels each field with its property, marks it required, and describes it by its description', () => {
    expect(label('approved')).toBe('approved (required)');
    expect(label('approver')).toBe('approver (required)');
    expect(label('limit')).toBe('limit');
    const described = field('approved').getAttribute('aria-describedby')!;
    expect(form.getElementById(described)!.textContent).toBe('Whether the money moves');
  });

  it('gives each kind its control, filled with the defaults', () => {
    expect(field('approved').type).toBe('checkbox');
    expect(field('approver').type).toBe('text');
    const level = form.querySelector<HTMLSelectElement>('[id="payload/level"]')!;
    expect([...level.options].map((option) => option.textContent!.trim())).toEqual(['(none)', 'low', 'high']);
    expect(level.selectedOptions[0]!.textContent!.trim()).toBe('low');
    expect(field('limit')).toMatchObject({ type: 'number', value: '3', step: '1' });
    expect(form.querySelector('fieldset > legend')!.textContent).toBe('address');
    expect(field('address/city').name).toBe('payload/address/city');
    expect(form.querySelector('fieldset[data-array] > legend')!.textContent).toBe('tags');
    expect(form.querySelector<HTMLInputElement>('input[name="payload/tags/-"]')!.type).toBe('hidden');
  });

  it('escapes what a schema says', () => {
    const text = schemaFields(
      { type: 'object', properties: { x: { type: 'string', description: '<script>' } } },
      undefined,
      'p',
    ).text;
    expect(text).toContain('&lt;script&gt;');
    expect(text).not.toContain('<script>');
  });
});

describe('payloadFromForm', () => {
  it('reads every kind of field back as the schema types it', () => {
    const form = new URLSearchParams([
      ['payload/approved', 'false'],
      ['payload/approved', 'true'],
      ['payload/approver', 'dana'],
      ['payload/level', '"high"'],
      ['payload/limit', '7'],
      ['payload/address/city', 'Porto'],
      ['payload/tags/-', ''],
      ['payload/tags/0', 'a'],
      ['payload/tags/1', 'b'],
    ]);
    expect(payloadFromForm(schema, form, 'payload')).toEqual({
      value: {
        approved: true,
        approver: 'dana',
        level: 'high',
        limit: 7,
        address: { city: 'Porto' },
        tags: ['a', 'b'],
      },
      problems: [],
    });
  });

  it('sends an empty required string for the schema to judge, leaves out empty optional fields, and reports bad JSON', () => {
    const form = new URLSearchParams([
      ['payload/approved', 'false'],
      ['payload/approver', ''],
      ['payload/limit', ''],
      ['payload/tags/-', ''],
    ]);
    const read = payloadFromForm(schema, form, 'payload');
    expect(read.value).toEqual({ approved: false, approver: '', address: {} });
    expect(read.problems).toEqual([]);
    const json = { type: 'object', properties: { grid: { type: 'array', items: { type: 'array' } } } };
    const bad = payloadFromForm(json, new URLSearchParams([['payload/grid', '[oops']]), 'payload');
    expect(bad.problems).toEqual([expect.stringMatching(/^grid: is not JSON/)]);
  });

  it('reads a list of a form’s size in time linear in its fields (a POST cannot hold the studio)', () => {
    const schema = {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string' } },
        lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } },
      },
    };
    const form = new URLSearchParams();
    form.append('payload/tags/-', '');
    form.append('payload/lines/-', '');
    for (let index = 0; index < 20_000; index += 1) {
      form.append(`payload/tags/${index}`, 'a');
      form.append(`payload/lines/${index}/sku`, 'b');
    }
    const started = performance.now();
    const read = payloadFromForm(schema, form, 'payload');
    // Reading each field by scanning the whole form took about 4 s here; an index of the form, some 50 ms.
    expect(performance.now() - started).toBeLessThan(1000);
    expect((read.value as { tags: string[] }).tags).toHaveLength(20_000);
    expect((read.value as { lines: unknown[] }).lines[19_999]).toEqual({ sku: 'b' });
  });
});

const lists = {
  type: 'object',
  required: ['names'],
  properties: {
    names: { type: 'array', items: { type: 'string' }, description: 'Who signs', default: ['ann', 'bo'] },
    amounts: { type: 'array', items: { type: 'number' } },
    flags: { type: 'array', items: { type: 'boolean' } },
    levels: { type: 'array', items: { enum: ['low', 'high'] } },
    lines: {
      type: 'array',
      items: { type: 'object', required: ['sku'], properties: { sku: { type: 'string' }, qty: { type: 'integer' } } },
    },
    grid: { type: 'array', items: { type: 'array', items: { type: 'number' } } },
  },
};

describe('schemaFields on arrays', () => {
  const document = new JSDOM(`<form>${schemaFields(lists, undefined, 'payload').text}</form>`).window.document;
  const group = (name: string) =>
    [...document.querySelectorAll('fieldset[data-array]')].find((fieldset) =>
      fieldset.querySelector(':scope > legend')!.textContent!.replace(/\s+/g, ' ').trim().startsWith(name),
    )!;
  const text = (element: Element | null) => element!.textContent!.replace(/\s+/g, ' ').trim();

  it('lists an array of strings with its defaults, each item labelled and removable, and a button to add one', () => {
    const names = group('names');
    expect(text(names.querySelector(':scope > legend'))).toBe('names (required)');
    expect(document.getElementById(names.getAttribute('aria-describedby')!)!.textContent).toBe('Who signs');
    const items = names.querySelectorAll(':scope > ol > li');
    expect(items).toHaveLength(2);
    const first = items[0]!.querySelector('input')!;
    expect(first).toMatchObject({ type: 'text', name: 'payload/names/0', value: 'ann' });
    expect(text(document.querySelector(`label[for="${first.id}"]`))).toBe('names item 1');
    expect(items[1]!.querySelector('input')!.value).toBe('bo');
    expect([...names.querySelectorAll(':scope > ol button')].map(text)).toEqual([
      'Remove names item 1',
      'Remove names item 2',
    ]);
    expect(text(names.querySelector(':scope > button[data-add]'))).toBe('Add names item');
    // The blank item the add button clones: its index a placeholder the script fills in.
    const blank = names.querySelector('template')!.innerHTML;
    expect(blank).toContain('name="payload/names/__i0__"');
  });

  it('gives items of each kind their control, an object item a fieldset, and an array of arrays a JSON editor', () => {
    const blank = (name: string) =>
      new JSDOM(group(name).querySelector('template')!.innerHTML).window.document.querySelector('li')!;
    expect(blank('amounts').querySelector('input')!.type).toBe('number');
    expect(blank('flags').querySelector('input[type=checkbox]')!.getAttribute('name')).toBe('payload/flags/__i0__');
    expect(blank('levels').querySelector('select')!.options).toHaveLength(3);
    const line = blank('lines');
    expect(text(line.querySelector('fieldset > legend'))).toBe('lines item');
    expect(line.querySelector('input[name="payload/lines/__i0__/sku"]')).not.toBeNull();
    expect(document.querySelector('textarea[name="payload/grid"]')).not.toBeNull();
    expect(text(document.querySelector('label[for="payload/grid"]'))).toBe('grid (a JSON array)');
  });

  it('shows sent items again when a form comes back refused', () => {
    const shown = schemaFields(lists, { names: ['x'], lines: [{ sku: 'a1', qty: 2 }] }, 'payload').text;
    const again = new JSDOM(`<form>${shown}</form>`).window.document;
    expect(again.querySelector<HTMLInputElement>('[name="payload/names/0"]')!.value).toBe('x');
    expect(again.querySelector('[name="payload/names/1"]')).toBeNull();
    expect(again.querySelector<HTMLInputElement>('[name="payload/lines/0/qty"]')!.value).toBe('2');
  });
});

describe('payloadFromForm on arrays', () => {
  it('reads items in index order, gaps and all, each as its kind', () => {
    const form = new URLSearchParams([
      ['payload/names/-', ''],
      ['payload/names/7', 'last'],
      ['payload/names/2', 'first'],
      ['payload/names/4', ''],
      ['payload/amounts/-', ''],
      ['payload/amounts/0', '1.5'],
      ['payload/amounts/1', ''],
      ['payload/flags/-', ''],
      ['payload/flags/0', 'false'],
      ['payload/flags/0', 'true'],
      ['payload/flags/1', 'false'],
      ['payload/levels/-', ''],
      ['payload/levels/0', '"high"'],
      ['payload/lines/-', ''],
      ['payload/lines/3/sku', 'a1'],
      ['payload/lines/3/qty', '2'],
      ['payload/lines/5/sku', 'b2'],
    ]);
    expect(payloadFromForm(lists, form, 'payload')).toEqual({
      value: {
        names: ['first', '', 'last'],
        amounts: [1.5],
        flags: [true, false],
        levels: ['high'],
        lines: [{ sku: 'a1', qty: 2 }, { sku: 'b2' }],
      },
      problems: [],
    });
  });

  it('sends an emptied required list as [], and leaves an emptied optional one out', () => {
    const form = new URLSearchParams([
      ['payload/names/-', ''],
      ['payload/amounts/-', ''],
    ]);
    expect(payloadFromForm(lists, form, 'payload').value).toEqual({ names: [] });
  });
});

describe('planSvg', () => {
  const plan = (createToolRegistry().get('approved_transfer')!.implementation as { plan: ChainPlan }).plan;

  it('draws the same plan the same way, each step with its state in words', () => {
    const states = new Map([
      ['prepare', 'success'],
      ['approval', 'waiting'],
    ] as const);
    const first = planSvg(plan, { states, stepsUrl: '/runs/r/steps/' }).text;
    expect(planSvg(plan, { states, stepsUrl: '/runs/r/steps/' }).text).toBe(first);
    expect(first).toContain('aria-label="step prepare: success"');
    expect(first).toContain('aria-label="step approval: waiting"');
    expect(first).toContain('aria-label="step execute: not reached"');
    expect(first).toContain('>on failure</text>');
  });
});
