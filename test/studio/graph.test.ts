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
    const svg = planSvg(plan, { states, branches: new Map([['route', 'both']]), stepsUrl: '' }).text;
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
    expect(planSvg(plan, { states, branches: new Map([['route', 'both']]), stepsUrl: '' }).text).toBe(svg);
  });

  it('draws each run of one plan in its own states, addresses and branches', () => {
    const decided = new Map([
      ['route', 'success'],
      ['both', 'failed'],
    ] as const);
    const labelsOf = (svg: string) =>
      [...new JSDOM(svg).window.document.querySelectorAll('a')].map((link) => [
        link.getAttribute('href'),
        link.getAttribute('aria-label'),
      ]);
    const first = planSvg(plan, {
      states: decided,
      branches: new Map([['route', 'both']]),
      stepsUrl: '/runs/r1/steps/',
    });
    const second = planSvg(plan, { states: new Map([['route', 'running']]), stepsUrl: '/runs/r%202/steps/' }).text;
    expect(labelsOf(second)).toEqual([
      ['/runs/r%202/steps/route', 'step route: running'],
      ['/runs/r%202/steps/both', 'step both: not reached'],
      ['/runs/r%202/steps/a', 'step a: not reached'],
      ['/runs/r%202/steps/b', 'step b: not reached'],
      ['/runs/r%202/steps/c', 'step c: not reached'],
      ['/runs/r%202/steps/last', 'step last: not reached'],
    ]);
    const labels = [...new JSDOM(second).window.document.querySelectorAll('text.label')].map(
      (text) => text.textContent,
    );
    expect(labels).toContain('state.big');
    expect(labels).not.toContain('state.big (taken)');
    expect(
      planSvg(plan, { states: decided, branches: new Map([['route', 'both']]), stepsUrl: '/runs/r1/steps/' }).text,
    ).toBe(first.text);
    expect(labelsOf(first.text)[0]).toEqual(['/runs/r1/steps/route', 'step route: success, took both']);
    const lines = (svg: string) =>
      [...new JSDOM(svg).window.document.querySelectorAll('text.line')].map((text) => text.textContent);
    expect(lines(planSvg(plan, { states: decided, stepsUrl: '', lines: { a: 7, last: 12 } }).text)).toEqual([
      'line 7',
      'line 12',
    ]);
    expect(lines(planSvg(plan, { states: decided, stepsUrl: '' }).text)).toEqual([]);
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
    const svg = planSvg(choose, { states: new Map(), stepsUrl: '' }).text;
    const labels = [...new JSDOM(svg).window.document.querySelectorAll('text.label')];
    const ys = ['state.small', 'state.big', 'default'].map((text) =>
      Number(labels.find((label) => label.textContent === text)!.getAttribute('y')),
    );
    expect(ys[1]! - ys[0]!).toBeGreaterThanOrEqual(12);
    expect(ys[2]! - ys[1]!).toBeGreaterThanOrEqual(12);
  });
});
