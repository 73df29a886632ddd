import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../helpers/project.js';

let project: TestProject | null = null;
afterEach(() => project?.dispose());

/** Builds a project with one extra tool file and returns its diagnostics as `line:col CODE`. */
async function diagnose(yaml: string, file = 'config/tools/flow.yaml'): Promise<string[]> {
  project = createProject({ [file]: yaml });
  const { short } = await project.diagnose();
  return short.map((line) => line.replace(`${file}:`, ''));
}

const composite = (steps: string, extra = '') => `
name: flow
description: A composite under test
parameters:
  - { name: topic, type: string, required: true }
  - { name: maybe, type: string }
${extra}implementation:
  type: composite
  composite:
    steps:
${steps}`;

describe('YAML and schema problems', () => {
  it.each([
    ['a syntax error, at the quote that is never closed', 'name: x\ndescription: "open\n', ['2:14 TG1001']],
    [
      'a duplicate key',
      'name: x\nname: y\ndescription: d\nimplementation: { type: function, module: ./handlers.ts, export: echo }\n',
      ['2:1 TG1001'],
    ],
    [
      'an unknown top-level field, at its key',
      'name: x\ndescription: d\ncolour: red\nimplementation: { type: function, module: ./handlers.ts, export: echo }\n',
      ['3:1 TG1102'],
    ],
    [
      'a missing required field, at the parent',
      'name: x\nimplementation: { type: function, module: ./handlers.ts, export: echo }\n',
      ['1:1 TG1103'],
    ],
    [
      'a wrong type',
      'name: x\ndescription: d\ntags: fast\nimplementation: { type: function, module: ./handlers.ts, export: echo }\n',
      ['3:7 TG1104'],
    ],
    [
      'a bad enum value',
      'name: x\ndescription: d\nimplementation: { type: functon, module: ./handlers.ts, export: echo }\n',
      ['3:25 TG1105'],
    ],
    [
      'an unknown step field and a bad on_failure action',
      composite('      - tool: echo\n        input: { message: hi }\n        on_failure: { action: retri }\n'),
      ['11:9 TG1102', '12:31 TG1105'],
    ],
  ])('%s', async (_, yaml, expected) => {
    expect(await diagnose(yaml)).toEqual(expected);
  });

  it('a file holding a list of tools: one diagnostic at tools, saying each tool lives in its own file', async () => {
    const tool = (name: string) =>
      `  - name: ${name}\n    description: d\n    implementation: { type: function, module: ./handlers.ts, export: echo }\n`;
    project = createProject({ 'config/tools/many.yaml': `# old format\ntools:\n${tool('a')}${tool('b')}${tool('c')}` });
    const { all } = await project.diagnose();
    expect(
      all.map((d) => [d.location?.file, d.location?.line, d.location?.column, d.code, d.severity, d.message]),
    ).toEqual([
      [
        'config/tools/many.yaml',
        2,
        1,
        'TG1007',
        'error',
        'this file holds a list of 3 tools, and in toolgen each tool lives in a YAML file of its own',
      ],
    ]);
    expect(all[0]?.hint).toContain('npx toolgen migrate SRC DEST, which splits the list');
  });

  it('reports a misspelled required field once, as the misspelling', async () => {
    expect(
      await diagnose(
        'name: x\ndescripton: d\nimplementation: { type: function, module: ./handlers.ts, export: echo }\n',
      ),
    ).toEqual(['2:1 TG1102']);
  });

  it('says what is allowed and suggests the likely field', async () => {
    project = createProject({
      'config/tools/flow.yaml': composite('      - tool: echo\n        input: { message: hi }\n'),
    });
    const { all } = await project.diagnose();
    expect(all[0]).toMatchObject({
      code: 'TG1102',
      message: "unknown field 'input' in 'implementation.composite.steps[0]'; did you mean 'inputs'?",
    });
    expect(all[0]?.hint).toContain('allowed here: id, tool, description, inputs, on_success, on_failure');
  });
});

describe('catalogue problems', () => {
  it.each([
    [
      'an unknown tool, with a suggestion',
      composite('      - tool: ecko\n        inputs: { message: hi }\n'),
      ['10:15 TG2002'],
    ],
    [
      'a missing handler module',
      'name: x\ndescription: d\nimplementation: { type: function, module: ./nope.ts, export: echo }\n',
      ['1:7 TG5007', '3:43 TG2003'],
    ],
    [
      'a missing handler export',
      'name: x\ndescription: d\nimplementation: { type: function, module: ./handlers.ts, export: ecko }\n',
      ['1:7 TG5007', '3:66 TG2004'],
    ],
    [
      'a duplicate tool name',
      'name: echo\ndescription: again\nimplementation: { type: function, module: ./handlers.ts, export: echo }\n',
      ['1:7 TG2001'],
    ],
  ])('%s', async (_, yaml, expected) => {
    expect(await diagnose(yaml, 'config/tools/z_flow.yaml')).toEqual(expected);
  });

  it('two names that would make the same identifier', async () => {
    project = createProject({
      'config/tools/a.yaml':
        'name: delete\ndescription: d\nimplementation: { type: function, module: ./handlers.ts, export: loose }\nexamples: [{ description: e, input: {} }]\n',
      'config/tools/b.yaml':
        'name: delete_tool\ndescription: d\nimplementation: { type: function, module: ./handlers.ts, export: loose }\nexamples: [{ description: e, input: {} }]\n',
    });
    const { all } = await project.diagnose();
    expect(all.map((d) => [d.location?.file, d.code, d.message])).toEqual([
      [
        'config/tools/b.yaml',
        'TG2005',
        "tools 'delete' and 'delete_tool' would both generate the identifier 'deleteTool'",
      ],
    ]);
  });

  it("a composite calling a tool with errors: only the tool's error, the one cause", async () => {
    project = createProject({
      'config/tools/flow.yaml': composite('      - { tool: echo, inputs: { message: a } }\n'),
    });
    project.write(
      'config/tools/echo.yaml',
      project.read('config/tools/echo.yaml').replace('description: Echoes', 'description: Echoes\ndescripton: typo'),
    );
    const { all } = await project.diagnose();
    expect(all.map((d) => [d.location?.file, d.code])).toEqual([['config/tools/echo.yaml', 'TG1102']]);
  });

  it('a composite calling itself through another', async () => {
    project = createProject({
      'config/tools/a.yaml':
        'name: a\ndescription: d\nimplementation:\n  type: composite\n  composite:\n    steps:\n      - tool: b\n',
      'config/tools/b.yaml':
        'name: b\ndescription: d\nimplementation:\n  type: composite\n  composite:\n    steps:\n      - tool: a\n',
    });
    const { short, all } = await project.diagnose();
    expect(short).toEqual(['config/tools/a.yaml:7:15 TG2006', 'config/tools/b.yaml:7:15 TG2006']);
    expect(all[0]?.message).toBe("'a' calls itself through a → b → a");
  });

  it('names the export it found when the one asked for is missing', async () => {
    project = createProject({
      'config/tools/x.yaml':
        'name: x\ndescription: d\nimplementation: { type: function, module: ./handlers.ts, export: cont }\n',
    });
    const { all } = await project.diagnose();
    expect(all.find((d) => d.code === 'TG2004')).toMatchObject({
      message: "'handlers.ts' does not export 'cont'; did you mean 'count'?",
      hint: 'it exports: count, echo, loose',
    });
  });
});

describe('step graph problems', () => {
  it.each([
    [
      'an unknown next',
      composite('      - tool: echo\n        inputs: { message: hi }\n        on_success: { next: ech }\n'),
      ['12:29 TG3002'],
    ],
    [
      'a next naming a tool whose step has another id',
      composite(
        '      - tool: echo\n        inputs: { message: hi }\n        on_success: { next: count }\n      - id: counting\n        tool: count\n        inputs: { n: 1 }\n',
      ),
      ['12:29 TG3002'],
    ],
    [
      'an ambiguous next, once: not also the loop and the unreachable step its guess makes',
      composite(
        '      - tool: echo\n        inputs: { message: a }\n        on_success: { next: echo }\n      - tool: echo\n        inputs: { message: b }\n',
      ),
      ['12:29 TG3003'],
    ],
    [
      'duplicate step ids',
      composite(
        '      - { id: s, tool: echo, inputs: { message: a } }\n      - { id: s, tool: echo, inputs: { message: b } }\n',
      ),
      ['11:15 TG3001'],
    ],
    [
      'an unreachable step',
      composite(
        '      - tool: echo\n        inputs: { message: a }\n        on_success: { next: end }\n      - id: never\n        tool: echo\n        inputs: { message: b }\n',
      ),
      ['13:13 TG3004'],
    ],
    [
      'a loop with no way out, reported with its path',
      composite(
        '      - { id: a, tool: echo, inputs: { message: a }, on_success: { next: b } }\n      - { id: b, tool: echo, inputs: { message: b }, on_success: { next: a } }\n',
      ),
      ['11:74 TG3005'],
    ],
    [
      'a next that is never followed',
      composite(
        '      - tool: echo\n        inputs: { message: a }\n        on_failure: { action: stop, next: end }\n',
      ),
      ['12:43 TG3007'],
    ],
    ['an empty composite', composite('      []\n').replace('    steps:\n      []', '    steps: []'), ['9:12 TG3006']],
  ])('%s', async (_, yaml, expected) => {
    expect(await diagnose(yaml)).toEqual(expected);
  });

  it('a loop with an exit is fine', async () => {
    const yaml = composite(
      '      - { id: a, tool: echo, inputs: { message: a }, on_success: { next: b } }\n      - { id: b, tool: echo, inputs: { message: b }, on_success: { next: a }, on_failure: { action: continue, next: end } }\n',
    );
    expect(await diagnose(yaml)).toEqual([]);
  });

  it('explains the cycle', async () => {
    project = createProject({
      'config/tools/flow.yaml': composite(
        '      - { id: a, tool: echo, inputs: { message: a }, on_success: { next: b } }\n      - { id: b, tool: echo, inputs: { message: b }, on_success: { next: a } }\n',
      ),
    });
    const { all } = await project.diagnose();
    expect(all[0]?.message).toBe('the steps a → b → a loop with no way out: no path from them reaches the end');
  });
});

describe('data flow and templates', () => {
  it.each([
    [
      'a variable never defined, with a suggestion',
      composite('      - tool: echo\n        inputs: { message: << state.topik >> }\n'),
      ['11:28 TG4001'],
    ],
    [
      'a variable defined only after its use',
      composite(
        '      - tool: echo\n        inputs: { message: << state.later >> }\n        on_success: { map_outputs: { data: later } }\n',
      ),
      ['11:28 TG4001'],
    ],
    [
      'a variable defined on some paths only',
      composite(
        '      - tool: echo\n        inputs: { message: a }\n        on_success: { map_outputs: { data: got }, next: use }\n        on_failure: { action: continue, next: use }\n      - id: use\n        tool: echo\n        inputs: { message: "got << state.got >>" }\n',
      ),
      ['16:33 TG4002'],
    ],
    [
      'an optional parameter with no default',
      composite('      - tool: echo\n        inputs: { message: << state.maybe >> }\n'),
      ['11:28 TG4002'],
    ],
    [
      'a seed-style template',
      composite('      - tool: echo\n        inputs: { message: "{{ state.topic }}" }\n'),
      ['11:29 TG4004'],
    ],
    [
      'an unclosed template',
      composite('      - tool: echo\n        inputs: { message: "<< state.topic" }\n'),
      ['11:29 TG4003'],
    ],
    [
      'a reference to a step that does not exist',
      composite('      - tool: echo\n        inputs: { message: << steps.search.data >> }\n'),
      ['11:28 TG4006'],
    ],
    [
      'a misspelled output field of a step',
      composite(
        '      - tool: count\n        inputs: { n: 1 }\n      - tool: echo\n        inputs: { message: "<< steps.count.items[0].idd >>" }\n',
      ),
      ['13:29 TG4007'],
    ],
    [
      'a misspelled field of a mapped state variable',
      composite(
        '      - tool: count\n        inputs: { n: 1 }\n        on_success: { map_outputs: { items: list } }\n      - tool: echo\n        inputs: { message: "<< state.list[0].name >>" }\n',
      ),
      ['14:29 TG4007'],
    ],
    [
      'a reserved parameter name',
      composite('      - { tool: echo, inputs: { message: a } }\n').replace('name: maybe', 'name: chain_id'),
      ['5:13 TG4005'],
    ],
    [
      'a reserved state variable',
      composite('      - { tool: echo, inputs: { message: a }, on_success: { map_outputs: { data: steps } } }\n'),
      ['10:82 TG4005'],
    ],
    [
      'templates deep inside nested inputs',
      composite(
        '      - tool: echo\n        inputs:\n          message:\n            - { deep: ["<< state.nope >>"] }\n',
      ),
      ['13:13 TG5003', '13:25 TG4001'],
    ],
  ])('%s', async (_, yaml, expected) => {
    expect(await diagnose(yaml)).toEqual(expected);
  });

  it('uses of built-ins and of steps that ran are fine', async () => {
    const yaml = composite(
      '      - { tool: count, inputs: { n: 1 } }\n      - tool: echo\n        inputs: { message: "<< chain_id >> << chain_name >> << started_at >> << steps.count.n >> << topic >>" }\n',
    );
    expect(await diagnose(yaml)).toEqual([]);
  });
});

describe('tool signature problems', () => {
  it.each([
    [
      'an input that is not a parameter',
      composite('      - tool: echo\n        inputs: { message: a, mesage: b }\n'),
      ['11:31 TG5001'],
    ],
    ['a missing required input', composite('      - tool: echo\n        inputs: { tag: a }\n'), ['11:9 TG5002']],
    ['a step with no inputs at all', composite('      - tool: echo\n'), ['10:9 TG5002']],
    [
      'a literal of the wrong type',
      composite('      - tool: count\n        inputs: { n: "three" }\n'),
      ['11:22 TG5003'],
    ],
    [
      'a whole-value template of the wrong type',
      composite('      - tool: count\n        inputs: { n: << state.topic >> }\n'),
      ['11:22 TG5003'],
    ],
    [
      'text with templates where a number is wanted',
      composite('      - tool: count\n        inputs: { n: "1<< state.topic >>" }\n'),
      ['11:22 TG5003'],
    ],
    [
      'a map_outputs source the tool does not return',
      composite(
        '      - tool: echo\n        inputs: { message: a }\n        on_success: { map_outputs: { dta: x } }\n',
      ),
      ['12:38 TG5004'],
    ],
    [
      'example input that is not valid input',
      composite(
        '      - { tool: echo, inputs: { message: a } }\n',
        'examples:\n  - { description: bad, input: { topic: 1 } }\n',
      ),
      ['7:41 TG5006'],
    ],
    [
      'a stub of a tool that does not exist',
      composite(
        '      - { tool: echo, inputs: { message: a } }\n',
        'examples:\n  - { description: s, input: { topic: a }, stubs: { ecko: { output: 1 } } }\n',
      ),
      ['7:53 TG5008'],
    ],
  ])('%s', async (_, yaml, expected) => {
    expect(await diagnose(yaml)).toEqual(expected);
  });
});

describe('resilience settings', () => {
  it.each([
    [
      'an unknown fallback',
      composite('      - tool: echo\n        inputs: { message: a }\n        fallbacks: [ecko]\n'),
      ['12:21 TG2002'],
    ],
    [
      'a fallback that does not take the inputs',
      composite('      - tool: echo\n        inputs: { message: a }\n        fallbacks: [count]\n'),
      ['11:9 TG5002', '11:19 TG5001'],
    ],
    [
      'retry settings on a step that does not retry',
      composite(
        '      - tool: echo\n        inputs: { message: a }\n        on_failure: { action: stop, retry_on: [execution] }\n',
      ),
      ['12:37 TG3008'],
    ],
    [
      'an unknown tool in allow_next_tools',
      composite('      - { tool: echo, inputs: { message: a } }\n').replace(
        '    steps:',
        '    allow_next_tools: [handof]\n    steps:',
      ),
      ['9:24 TG2002'],
    ],
    [
      'a bad cache setting',
      composite('      - { tool: echo, inputs: { message: a }, cache: { ttl_seconds: 0 } }\n'),
      ['10:69 TG1101'],
    ],
  ])('%s', async (_, yaml, expected) => {
    expect(await diagnose(yaml)).toEqual(expected);
  });

  it('checks a mapped output against each fallback too', async () => {
    project = createProject({
      'config/tools/shout.yaml':
        'name: shout\ndescription: s\nparameters: [{ name: message, type: string, required: true }]\nreturns: { type: object, properties: { loud: { type: string } } }\nimplementation: { type: function, module: ./handlers.ts, export: loose }\nexamples: [{ description: e, input: { message: x } }]\n',
      'config/tools/flow.yaml': composite(
        '      - tool: echo\n        inputs: { message: a }\n        on_success: { map_outputs: { data: d } }\n        fallbacks: [shout]\n',
      ),
    });
    const { short, all } = await project.diagnose();
    expect(short).toEqual(['config/tools/flow.yaml:12:38 TG5004']);
    expect(all[0]?.message).toBe("'shout' returns no 'data'");
  });

  it('accepts every resilience setting and lowers it into the plan', async () => {
    const yaml = composite(
      '      - tool: echo\n        inputs: { message: a }\n        timeout_ms: 250\n        fallbacks: [echo]\n        cache: { ttl_seconds: 30, shared: true }\n        on_failure: { action: retry, max_retries: 2, retry_on: [timeout, RATE_LIMITED], no_retry_on: [validation] }\n',
    ).replace('    steps:', '    allow_next_tools: [count]\n    max_next_tool_depth: 3\n    steps:');
    project = createProject({ 'config/tools/flow.yaml': yaml });
    const result = await project.compiler().build();
    expect(result.diagnostics).toEqual([]);
    expect(result.plans.get('flow')).toMatchObject({
      nextTools: { allow: ['count'], maxDepth: 3 },
      steps: [
        {
          timeoutMs: 250,
          fallbacks: ['echo'],
          cache: { ttlMs: 30_000, shared: true },
          onFailure: {
            action: 'retry',
            maxRetries: 2,
            retryOn: ['timeout', 'RATE_LIMITED'],
            noRetryOn: ['validation'],
          },
        },
      ],
    });
  });
});

describe('control flow', () => {
  it.each([
    [
      'a JSONata syntax error in when, at its position',
      composite('      - tool: echo\n        inputs: { message: a }\n        when: "state.x <"\n'),
      ['12:24 TG4008'],
    ],
    [
      'a template where an expression is wanted',
      composite('      - tool: echo\n        inputs: { message: a }\n        when: "<< state.x > 1 >>"\n'),
      ['12:15 TG4008'],
    ],
    [
      'a JSONata syntax error in a transform',
      composite(
        '      - tool: echo\n        inputs: { message: a }\n        on_success:\n          transform: { y: "$sum(" }\n',
      ),
      ['13:32 TG4008'],
    ],
    [
      'a loop over something that is not a list',
      composite(
        '      - loop: { over: << state.topic >>, as: item, steps: [{ tool: echo, inputs: { message: << item >> } }] }\n',
      ),
      ['10:23 TG5009'],
    ],
    [
      'a retry on a block',
      composite(
        '      - loop: { over: << state.topic >>, as: t, steps: [{ tool: echo, inputs: { message: a } }] }\n        on_failure: { action: retry }\n',
      ).replace('type: string, required: true }', 'type: array, required: true }'),
      ['11:31 TG3009'],
    ],
    [
      'a duplicate id inside a branch',
      composite(
        '      - id: fetch\n        parallel:\n          - { id: fetch, tool: echo, inputs: { message: a } }\n',
      ),
      ['12:19 TG3001'],
    ],
    [
      'an unknown tool inside a loop',
      composite(
        '      - loop: { over: << state.topic >>, as: x, steps: [{ tool: ecko, inputs: { message: a } }] }\n',
      ).replace('type: string, required: true }', 'type: array, required: true }'),
      ['10:65 TG2002'],
    ],
    [
      'a variable defined only inside a branch, used after it',
      composite(
        '      - parallel:\n          - { tool: echo, inputs: { message: a }, on_success: { map_outputs: { data: inner } } }\n      - tool: echo\n        inputs: { message: << state.inner >> }\n',
      ),
      ['13:28 TG4001'],
    ],
    [
      'a block output field that does not exist',
      composite(
        '      - parallel:\n          - { id: a, tool: echo, inputs: { message: x } }\n        on_success: { map_outputs: { b.data: d } }\n',
      ),
      ['12:38 TG5004'],
    ],
  ])('%s', async (_, yaml, expected) => {
    expect(await diagnose(yaml)).toEqual(expected);
  });

  it.each([
    [
      'a misspelled state variable in when, with a suggestion',
      composite('      - { tool: echo, inputs: { message: a }, when: "state.topik = 1" }\n'),
      ['10:60 TG4001'],
    ],
    [
      'an unknown step in a transform',
      composite(
        '      - tool: echo\n        inputs: { message: a }\n        on_success: { transform: { y: "steps.nope.data" } }\n',
      ),
      ['12:46 TG4006'],
    ],
  ])('checks what an expression reads: %s', async (_, yaml, expected) => {
    expect(await diagnose(yaml)).toEqual(expected);
  });

  it('types the results of a loop that tolerates failures as possibly null', async () => {
    const yaml = composite(
      '      - id: each\n        loop: { over: << state.list >>, as: x, max_failures: 1, steps: [{ tool: echo, inputs: { message: a } }] }\n        on_success: { map_outputs: { results: out } }\n',
    ).replace('name: topic, type: string', 'name: list, type: array');
    project = createProject({ 'config/tools/flow.yaml': yaml });
    const result = await project.compiler().build();
    expect(result.diagnostics).toEqual([]);
    expect(result.files.find((f) => f.path.endsWith('tools/flow.ts'))!.content).toContain(
      '  out: Array<{\n    data?: string;\n  } | null>;\n',
    );
  });

  it('knows what a loop item is, what each branch returns, and types the state from them', async () => {
    const yaml = composite(
      [
        '      - tool: count',
        '        inputs: { n: 1 }',
        '        on_success: { map_outputs: { items: list } }',
        '      - id: each',
        '        loop:',
        '          over: << state.list >>',
        '          as: item',
        '          concurrency: 2',
        '          steps:',
        '            - tool: echo',
        '              inputs: { message: << item.id >> }',
        '        on_success: { map_outputs: { results: echoed } }',
        '      - id: both',
        '        parallel:',
        '          - { id: left, tool: echo, inputs: { message: l } }',
        '          - { id: right, tool: count, inputs: { n: 2 } }',
        '        wait_for: all',
        '        when: "$count(state.echoed) > 0"',
        '        on_success:',
        '          map_outputs: { right.n: total }',
        '          transform: { doubled: "state.total * 2" }',
        '',
      ].join('\n'),
    );
    project = createProject({ 'config/tools/flow.yaml': yaml });
    const result = await project.compiler().build();
    expect(result.diagnostics).toEqual([]);
    const module = result.files.find((file) => file.path.endsWith('tools/flow.ts'))!.content;
    // The loop's results are a list of the body's output; the block with a when may be skipped, so what it maps is optional.
    expect(module).toContain('  echoed: Array<{\n    data?: string;\n  }>;\n');
    expect(module).toContain('  total?: number;\n');
    // A transform's arithmetic is a number (transform-types.ts); only a transform sets it, so it may be absent.
    expect(module).toContain('  doubled?: number;\n');
    expect(result.plans.get('flow')?.steps.map((step) => step.kind)).toEqual(['call', 'loop', 'parallel']);
  });
});

describe('DAG mode', () => {
  const dag = (steps: string) => composite(steps).replace('    steps:', '    mode: dag\n    steps:');
  it.each([
    [
      'a next in a DAG',
      dag(
        '      - { id: a, tool: echo, inputs: { message: x }, on_success: { next: b } }\n      - { id: b, tool: echo, inputs: { message: y } }\n',
      ),
      ['11:68 TG3010'],
    ],
    [
      'an unknown dependency, with a suggestion',
      dag(
        '      - { id: first, tool: echo, inputs: { message: x } }\n      - { id: b, tool: echo, inputs: { message: y }, depends_on: [frist] }\n',
      ),
      ['12:67 TG4006'],
    ],
    [
      'a dependency cycle, with its path',
      dag(
        '      - { id: a, tool: echo, inputs: { message: << steps.c.data >> } }\n      - { id: b, tool: echo, inputs: { message: << steps.a.data >> } }\n      - { id: c, tool: echo, inputs: { message: x }, depends_on: [b] }\n',
      ),
      ['11:15 TG3011'],
    ],
    [
      'reading state that only a step it does not depend on sets',
      dag(
        '      - { id: a, tool: echo, inputs: { message: x }, on_success: { map_outputs: { data: got } } }\n      - { id: b, tool: echo, inputs: { message: << state.got >> } }\n',
      ),
      ['12:49 TG4001'],
    ],
  ])('%s', async (_, yaml, expected) => {
    expect(await diagnose(yaml)).toEqual(expected);
  });

  it('explains the cycle', async () => {
    project = createProject({
      'config/tools/flow.yaml': dag(
        '      - { id: a, tool: echo, inputs: { message: << steps.b.data >> } }\n      - { id: b, tool: echo, inputs: { message: << steps.a.data >> } }\n',
      ),
    });
    const { all } = await project.diagnose();
    expect(all.map((d) => d.message)).toEqual(['the steps depend on each other in a cycle: a → b → a']);
  });

  it('takes dependencies from expressions too', async () => {
    const yaml = dag(
      '      - { id: b, tool: echo, inputs: { message: y }, when: "steps.a.data = \'go\'" }\n      - { id: a, tool: echo, inputs: { message: x } }\n',
    );
    project = createProject({ 'config/tools/flow.yaml': yaml });
    const result = await project.compiler().build();
    expect(result.diagnostics).toEqual([]);
    expect(result.plans.get('flow')?.steps.map((step) => [step.id, step.dependsOn])).toEqual([
      ['b', ['a']],
      ['a', []],
    ]);
  });

  it('lowers declared and implied dependencies, and the output steps', async () => {
    const yaml = dag(
      '      - { id: a, tool: echo, inputs: { message: x }, on_success: { map_outputs: { data: got } } }\n      - { id: b, tool: count, inputs: { n: 1 } }\n      - { id: c, tool: echo, inputs: { message: "<< state.got >> << steps.b.n >>" }, depends_on: [a] }\n',
    ).replace('    mode: dag', '    mode: dag\n    output_steps: [c]');
    project = createProject({ 'config/tools/flow.yaml': yaml });
    const result = await project.compiler().build();
    expect(result.diagnostics).toEqual([]);
    expect(result.plans.get('flow')).toMatchObject({
      mode: 'dag',
      outputSteps: ['c'],
      steps: [
        { id: 'a', dependsOn: [] },
        { id: 'b', dependsOn: [] },
        { id: 'c', dependsOn: ['a', 'b'] },
      ],
    });
  });
});

describe('every problem is reported in one run', () => {
  it('collects problems across steps and files', async () => {
    project = createProject({
      'config/tools/one.yaml': composite(
        '      - tool: echo\n        inputs: { mesage: a }\n      - tool: ecko\n',
      ).replace('name: flow', 'name: one'),
      'config/tools/two.yaml':
        'name: two\ndescription: d\nimplementation: { type: function, module: ./nope.ts, export: x }\n',
    });
    const { short } = await project.diagnose();
    // 'mesage' is one mistake: the unknown input, meant for 'message'; not also a missing 'message'.
    expect(short).toEqual([
      'config/tools/one.yaml:11:19 TG5001',
      'config/tools/one.yaml:12:15 TG2002',
      'config/tools/two.yaml:1:7 TG5007',
      'config/tools/two.yaml:3:43 TG2003',
    ]);
  });
});

describe('literal checks', () => {
  it('validate parameters named like schema keywords', async () => {
    project = createProject({
      'config/tools/meta.yaml': `
name: meta
description: Takes parameters named like JSON Schema keywords
parameters:
  - { name: description, type: string, required: true }
  - { name: default, type: integer, required: true }
implementation: { type: function, module: ./handlers.ts, export: echo }
examples:
  - { description: wrong types, input: { description: 1, default: 'x' } }
`,
    });
    const { short, all } = await project.diagnose();
    expect(short).toEqual(['config/tools/meta.yaml:8:55 TG5006']);
    expect(all[0]?.message).toContain('description: must be string');
    expect(all[0]?.message).toContain('default: must be integer');
  });
});
