/**
 * `success_when` and `responses` at build time: the checks (what each condition reads, on which
 * steps it may stand, what `responses.<id>` holds), the lowering into the plan, and a built composite
 * run with a local tool. The wrong cases, rendered, are in golden-diagnostics/success-when.
 */
import { cpSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultOptions, Compiler } from '../../src/compiler/compile.js';
import { findConfig } from '../../src/compiler/session/config-file.js';
import { defineTool } from '../../src/runtime/index.js';
import { chain, executor } from '../helpers/runtime.js';
import { createProject, type TestProject } from '../helpers/project.js';

const API_CASE = path.resolve(import.meta.dirname, 'golden-diagnostics/api-steps');

let project: TestProject | null = null;
afterEach(() => project?.dispose());

/** A project with the tests' pets API pinned (the lock of golden-diagnostics/api-steps) and a composite `flow`. */
async function build(yaml: string) {
  project = createProject({ 'config/tools/flow.yaml': yaml });
  cpSync(path.join(API_CASE, 'toolgen.api-lock.json'), path.join(project.root, 'toolgen.api-lock.json'));
  project.write(
    'toolgen.config.yaml',
    `apis:\n  pets:\n    openapi: ${path.resolve(import.meta.dirname, '../fixtures/http-api/openapi.yaml')}\n    baseUrl: http://127.0.0.1:1\n`,
  );
  const found = await findConfig(project.root);
  const options = defaultOptions(project.root, {
    configFile: path.join(project.root, found.file!),
    apis: found.config.apis ?? [],
  });
  const result = await new Compiler(options).build();
  const diagnostics = result.diagnostics.map(
    (d) => `${d.location?.line}:${d.location?.column} ${d.severity} ${d.code} ${d.message}`,
  );
  return { diagnostics, plan: result.plans.get('flow'), files: result.files };
}

const flow = (steps: string) => `
name: flow
description: A composite under test
parameters:
  - { name: pet_id, type: integer, required: true }
implementation:
  type: composite
  composite:
    steps:
${steps}`;

describe('success_when at build time', () => {
  it('accepts a condition or a list over state, the step itself and responses, and lowers both to a list', async () => {
    const { diagnostics, plan } = await build(
      flow(`      - id: made
        tool: pets/createPet
        inputs: { body: { name: Rex } }
        success_when: responses.made.status = 201
      - id: find
        tool: pets/getPet
        inputs: { petId: << state.pet_id >> }
        when: responses.made.status = 201 and $exists(responses.made.headers.location)
        success_when:
          - steps.find.name = "Rex"
          - responses.find.status = 200 and state.pet_id > 0
          - $contains(responses.made.headers.\`content-type\`, "json")
        on_success:
          map_outputs: { name: pet_name }
          transform:
            located: responses.find.headers."content-type"
      - id: route
        choose:
          - { when: responses.find.status = 200, next: end }
        default: end
`),
    );
    expect(diagnostics).toEqual([]);
    expect(plan?.steps.map((step) => (step.kind === 'call' ? step.successWhen : undefined))).toEqual([
      ['responses.made.status = 201'],
      [
        'steps.find.name = "Rex"',
        'responses.find.status = 200 and state.pet_id > 0',
        '$contains(responses.made.headers.`content-type`, "json")',
      ],
      undefined,
    ]);
  });

  it('lets a condition read what the step maps only after it holds: state set by the step itself is not yet there', async () => {
    const { diagnostics } = await build(
      flow(`      - id: find
        tool: pets/getPet
        inputs: { petId: << state.pet_id >> }
        success_when: state.pet_name = "Rex"
        on_success: { map_outputs: { name: pet_name } }
`),
    );
    expect(diagnostics).toEqual([
      '12:29 error TG4001 state.pet_name is not defined on any path that reaches this step',
    ]);
  });

  it('refuses an empty list or an empty condition (schema)', async () => {
    for (const value of ['[]', '""']) {
      const { diagnostics } = await build(
        flow(`      - { id: find, tool: pets/getPet, inputs: { petId: 1 }, success_when: ${value} }\n`),
      );
      expect(diagnostics.map((d) => d.split(' ').slice(1, 3).join(' '))).toEqual(['error TG1101']);
    }
  });

  it('reports a bare name in a condition, and a condition that does not parse', async () => {
    const { diagnostics } = await build(
      flow(`      - id: find
        tool: pets/getPet
        inputs: { petId: 1 }
        success_when: [status = 200, "responses.find.status ="]
`),
    );
    expect(diagnostics.map((d) => d.split(' ').slice(0, 3).join(' '))).toEqual([
      '12:24 error TG4009',
      '12:61 error TG4008',
    ]);
  });

  it('makes a DAG step depend on the steps whose responses it reads', async () => {
    const { diagnostics, plan } = await build(
      flow(`      - { id: made, tool: pets/createPet, inputs: { body: { name: Rex } } }
      - id: find
        tool: pets/getPet
        inputs: { petId: 1 }
        success_when: responses.made.status = 201
`).replace('    steps:', '    mode: dag\n    steps:'),
    );
    expect(diagnostics).toEqual([]);
    expect(plan?.steps.map((step) => [step.id, step.dependsOn])).toEqual([
      ['made', []],
      ['find', ['made']],
    ]);
  });
});

describe('a built composite with success_when, run', () => {
  it('polls its local tool until the condition holds, and names the condition when retries run out', async () => {
    const yaml = `
name: flow
description: Polls a job until it is done
parameters:
  - { name: job, type: string, required: true }
implementation:
  type: composite
  composite:
    steps:
      - id: poll
        tool: job_status
        inputs: { job: << state.job >> }
        success_when:
          - steps.poll.job = state.job
          - steps.poll.state = "done"
        on_success: { map_outputs: { state: outcome } }
        on_failure: { action: retry, max_retries: 4, initial_delay_ms: 10 }
`;
    project = createProject({
      'config/tools/flow.yaml': yaml,
      'config/tools/job_status.yaml': `
name: job_status
description: The state of a job
parameters:
  - { name: job, type: string, required: true }
returns:
  type: object
  properties: { job: { type: string }, state: { type: string } }
implementation: { type: function, module: ./handlers.ts, export: loose }
examples:
  - { description: reports, input: { job: j1 }, expected_output: { job: j1 } }
`,
    });
    const result = await project.compiler().build();
    expect(result.diagnostics).toEqual([]);
    const plan = result.plans.get('flow')!;
    expect(plan.steps[0]).toMatchObject({
      successWhen: ['steps.poll.job = state.job', 'steps.poll.state = "done"'],
    });
    let calls = 0;
    const states = ['queued', 'running', 'done'];
    const jobStatus = defineTool({
      name: 'job_status',
      description: 'The state of a job',
      parameters: { type: 'object' },
      implementation: {
        kind: 'function',
        handler: (input: { job: string }) => ({ job: input.job, state: states[Math.min(calls++, 2)] }),
      },
    });
    const flowTool = defineTool({
      name: 'flow',
      description: 'polls',
      parameters: { type: 'object' },
      implementation: { kind: 'composite', plan },
    });
    const { executor: run } = executor([jobStatus, flowTool]);
    const done = await run.runComposite(flowTool, { job: 'j1' });
    expect(done).toMatchObject({ success: true, final_state: { job: 'j1', outcome: 'done' } });
    expect(done.execution_history.map((h) => [h.status, h.error?.message])).toEqual([
      ['failed', `step 'poll': success_when did not hold: steps.poll.state = "done"`],
      ['failed', `step 'poll': success_when did not hold: steps.poll.state = "done"`],
      ['success', undefined],
    ]);
    // The same plan run on a job whose state never comes: the retries run out.
    calls = 0;
    states.splice(0, 3, 'queued', 'queued', 'queued');
    const stuck = await run.executeChain({ ...chain('stuck', [...plan.steps]), name: 'stuck' }, { job: 'j2' });
    expect(stuck).toMatchObject({ success: false, failure: { step: 'poll', kind: 'unmet' } });
    expect(stuck.execution_history).toHaveLength(5);
  });
});
