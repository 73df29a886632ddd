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
    expect(field('tags').tagName).toBe('TEXTAREA');
    expect(label('tags')).toBe('tags (a JSON array)');
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
      ['payload/tags', '["a","b"]'],
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
      ['payload/tags', '[oops'],
    ]);
    const read = payloadFromForm(schema, form, 'payload');
    expect(read.value).toEqual({ approved: false, approver: '', address: {} });
    expect(read.problems).toEqual([expect.stringMatching(/^tags: is not JSON/)]);
  });
});

describe('planSvg', () => {
  const plan = (createToolRegistry().get('approved_transfer')!.implementation as { plan: ChainPlan }).plan;

  it('draws the same plan the same way, each step with its state in words', () => {
    const states = new Map([
      ['prepare', 'success'],
      ['approval', 'waiting'],
    ] as const);
    const first = planSvg(plan, { states, href: (id) => `/runs/r/steps/${id}` }).text;
    expect(planSvg(plan, { states, href: (id) => `/runs/r/steps/${id}` }).text).toBe(first);
    expect(first).toContain('aria-label="step prepare: success"');
    expect(first).toContain('aria-label="step approval: waiting"');
    expect(first).toContain('aria-label="step execute: not reached"');
    expect(first).toContain('>on failure</text>');
  });
});
