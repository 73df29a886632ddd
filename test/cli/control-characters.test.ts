/**
 * Names with control characters (a tool's, a file's, one typed on the command line) reach the terminal
 * escaped, JSON-style: printed raw, an escape sequence would recolour or clear the screen, and a carriage
 * return would overwrite the line with something else.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { chainTrace, printTrace, traceJson } from '../../src/cli/trace.js';
import type { ToolDefinition } from '../../src/runtime/index.js';
import { chain, executor, step, tool } from '../helpers/runtime.js';
import { runCli } from '../helpers/cli.js';
import { createProject, type TestProject } from '../helpers/project.js';

const projects: TestProject[] = [];
afterAll(() => projects.forEach((project) => project.dispose()));

// eslint-disable-next-line no-control-regex -- what must never be printed
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const calling = (tool: string) => `
name: caller
description: Calls a tool with a strange name
implementation:
  type: composite
  composite:
    steps:
      - tool: ${JSON.stringify(tool)}
`;

describe('control characters in names', () => {
  it.each([
    [
      'a tool name in a diagnostic',
      { 'config/tools/caller.yaml': calling('ech\u001b[2Jo') },
      [],
      "no tool named 'ech\\u001b[2Jo'",
    ],
    [
      'a file name in a diagnostic',
      { 'config/tools/bad\u001b[31m\r.yaml': 'name: [unclosed\n' },
      [],
      'config/tools/bad\\u001b[31m\\r.yaml:1:7',
    ],
    [
      'a tool name on the command line',
      {},
      ['graph', 'x\u001b]0;pwned\u0007'],
      "no tool named 'x\\u001b]0;pwned\\u0007'",
    ],
  ])('%s is escaped', async (_, files, args, shown) => {
    const project = createProject(files);
    projects.push(project);
    const run = await runCli(args, project.root);
    expect(run.code).not.toBe(0);
    expect(run.err).toContain(shown);
    expect(`${run.out}\n${run.err}`).not.toMatch(RAW_CONTROL);
  });
});

describe('control characters a tool says, traced as toolgen run and signal print them', () => {
  const BIDI_OR_C1 = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
  const SAID = 'cleared\u001b[2J\roverwritten\u009b31m red\u202e desrever\u2066';
  const noisy = tool('noisy', (input: { fail?: boolean }) => {
    if (input.fail) throw new Error(`refused ${SAID}`);
    return { text: SAID };
  });
  const composite: ToolDefinition = {
    ...tool('relay_noise', () => ({})),
    implementation: {
      kind: 'composite',
      plan: chain('relay_noise', [
        step('say', 'noisy', { inputs: { fail: '<< state.fail >>' }, map: { text: 'text' } }),
      ]),
    },
  };
  const traced = async (fail: boolean) => {
    const { executor: run, audit } = executor([noisy]);
    const result = await run.runComposite(composite, { fail });
    return chainTrace(result, audit.trail, (value) => value);
  };

  it.each([
    ['its output', false],
    ['its error', true],
  ])('%s reaches the terminal escaped, as the escapes JSON writes', async (_, fail) => {
    const text = printTrace(await traced(fail)).join('\n');
    expect(text).toContain('cleared\\u001b[2J\\roverwritten\\u009b31m red\\u202e desrever\\u2066');
    expect(text).not.toMatch(RAW_CONTROL);
    expect(text).not.toMatch(BIDI_OR_C1);
  });

  it('--json is JSON that holds every one escaped, and reads back as what the tool said', async () => {
    const json = traceJson(await traced(false));
    expect(json).not.toMatch(RAW_CONTROL);
    expect(json).not.toMatch(BIDI_OR_C1);
    expect((JSON.parse(json) as { output: { text: string } }).output.text).toBe(SAID);
  });
});
