/**
 * Names with control characters (a tool's, a file's, one typed on the command line) reach the terminal
 * escaped, JSON-style: printed raw, an escape sequence would recolour or clear the screen, and a carriage
 * return would overwrite the line with something else.
 */
import { afterAll, describe, expect, it } from 'vitest';
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
