/** The graph expands blocks with their inner steps' states, and draws the branch a choice took. */
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import type { ChainPlan, PlanStep } from '../../src/runtime/index.js';
import { planSvg } from '../../src/studio/graph-svg.js';

const call = (id: string, next: string | null = null): PlanStep => ({
  kind: 'call',
  id,
  tool: 'echo',
  inputs: {},
  onSuccess: { mapOutputs: [], next },
  onFailure: { action: 'stop' },
});

const plan: ChainPlan = {
  name: 'p',
  entry: 'route',
  maxStepExecutions: 100,
  steps: [
    {
      kind: 'choice',
      id: 'route',
      choices: [{ when: 'state.big', next: 'both' }],
      onSuccess: { mapOutputs: [], next: 'last' },
      onFailure: { action: 'stop' },
    },
    {
      kind: 'parallel',
      id: 'both',
      waitFor: 'all',
      concurrency: null,
      branches: [
        { id: 'left', entry: 'a', steps: [call('a', 'b'), call('b')] },
        { id: 'c', entry: 'c', steps: [call('c')] },
      ],
      onSuccess: { mapOutputs: [], next: null },
      onFailure: { action: 'stop' },
    },
    call('last'),
  ],
};

describe('planSvg', () => {
  it('names each step inside a block with its state, and the branch a choice took', () => {
    const states = new Map([
      ['route', 'success'],
      ['both', 'failed'],
      ['a', 'success'],
      ['b', 'failed'],
      ['last', 'not taken'],
    ] as const);
    const svg = planSvg(plan, { states, branches: new Map([['route', 'both']]), href: (id) => id }).text;
    const document = new JSDOM(svg).window.document;
    expect([...document.querySelectorAll('a')].map((link) => link.getAttribute('aria-label'))).toEqual([
      'step route: success, took both',
      'step both: failed',
      'step a: success',
      'step b: failed',
      'step c: not reached',
      'step last: not taken',
    ]);
    const labels = [...document.querySelectorAll('text.label')].map((text) => text.textContent);
    expect(labels).toContain('state.big (taken)');
    expect(labels).toContain('default (not taken)');
    expect(labels).toContain('branch left');
    expect(document.querySelectorAll('rect.frame')).toHaveLength(1);
    expect(planSvg(plan, { states, branches: new Map([['route', 'both']]), href: (id) => id }).text).toBe(svg);
  });

  it('stands the labels of the lines leaving one choice one above the other, a line of text apart', () => {
    const choose: ChainPlan = {
      name: 'q',
      entry: 'route',
      maxStepExecutions: 100,
      steps: [
        {
          kind: 'choice',
          id: 'route',
          choices: [
            { when: 'state.small', next: 'small' },
            { when: 'state.big', next: 'big' },
          ],
          onSuccess: { mapOutputs: [], next: 'other' },
          onFailure: { action: 'stop' },
        },
        call('first', null),
        call('small', null),
        call('big', null),
        call('other', null),
      ],
    };
    const svg = planSvg(choose, { states: new Map(), href: (id) => id }).text;
    const labels = [...new JSDOM(svg).window.document.querySelectorAll('text.label')];
    const ys = ['state.small', 'state.big', 'default'].map((text) =>
      Number(labels.find((label) => label.textContent === text)!.getAttribute('y')),
    );
    expect(ys[1]! - ys[0]!).toBeGreaterThanOrEqual(12);
    expect(ys[2]! - ys[1]!).toBeGreaterThanOrEqual(12);
  });
});
