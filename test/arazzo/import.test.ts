/**
 * `toolgen arazzo import` and `export`, through the CLI in process: the tests' own Arazzo document
 * over the tests' own pets API (test/fixtures/arazzo-pets) becomes the composites in golden/ (read
 * and reviewed as a person would write them), its source an entry of `apis`; what cannot be
 * converted is reported at file:line:col; nothing is overwritten; export writes a document that
 * imports again to the same composites.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { arazzoSchemaErrors } from '../helpers/arazzo-schema.js';
import { runCli } from '../helpers/cli.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');
const GOLDEN = path.resolve(import.meta.dirname, 'golden');

let root = '';
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'toolgen-arazzo-'));
  cpSync(path.join(FIXTURES, 'arazzo-pets'), path.join(root, 'arazzo-pets'), { recursive: true });
  cpSync(path.join(FIXTURES, 'http-api/openapi.yaml'), path.join(root, 'http-api/openapi.yaml'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const tools = (dir: string) => readdirSync(path.join(root, dir)).sort();

describe('toolgen arazzo import', () => {
  it('writes one composite per workflow, as golden/ holds them, and the source under apis', async () => {
    const run = await runCli(['arazzo', 'import', 'arazzo-pets/pets.arazzo.yaml'], root);
    expect(run).toEqual({
      code: 0,
      out: [
        'arazzo-pets/pets.arazzo.yaml',
        '  rewritten  toolgen.config.yaml: apis.pets: http-api/openapi.yaml, its base URL read from ${PETS_URL} when a step calls it',
        '  adopt-new-pet → config/tools/adopt-new-pet.yaml',
        '  find-or-make → config/tools/find-or-make.yaml',
        '  until-ok → config/tools/until-ok.yaml',
        'toolgen arazzo import: 3 workflows written to config/tools, 1 API added to apis; 1 rewritten, 0 behaviour changes, 0 warnings; everything converted',
        'next: npx toolgen api pull pets, then npx toolgen',
      ].join('\n'),
      err: '',
    });
    expect(tools('config/tools')).toEqual(readdirSync(GOLDEN).sort());
    for (const file of tools('config/tools'))
      expect(read(`config/tools/${file}`), file).toBe(readFileSync(path.join(GOLDEN, file), 'utf8'));
    expect(parse(read('toolgen.config.yaml'))).toEqual({
      apis: { pets: { openapi: 'http-api/openapi.yaml', baseUrl: '${PETS_URL}' } },
    });
  });

  it('adds to an existing toolgen.config.yaml, keeping its comments, and writes into --out', async () => {
    writeFileSync(path.join(root, 'toolgen.config.yaml'), '# my project\nconfigDir: tools # here\n');
    const run = await runCli(['arazzo', 'import', 'arazzo-pets/pets.arazzo.yaml', '--out', 'tools/imported'], root);
    expect(run.code).toBe(0);
    expect(run.out).toContain('3 workflows written to tools/imported');
    expect(tools('tools/imported')).toEqual(['adopt-new-pet.yaml', 'find-or-make.yaml', 'until-ok.yaml']);
    expect(read('toolgen.config.yaml')).toBe(
      '# my project\nconfigDir: tools # here\napis:\n  pets:\n    openapi: http-api/openapi.yaml\n    baseUrl: ${PETS_URL}\n',
    );
  });

  it('never overwrites: with one file in the way it writes nothing, and says which (exit 2)', async () => {
    await runCli(['arazzo', 'import', 'arazzo-pets/pets.arazzo.yaml', '--out', 'out'], root);
    writeFileSync(path.join(root, 'out/until-ok.yaml'), 'mine\n');
    rmSync(path.join(root, 'out/adopt-new-pet.yaml'));
    const config = read('toolgen.config.yaml');
    const run = await runCli(['arazzo', 'import', 'arazzo-pets/pets.arazzo.yaml', '--out', 'out'], root);
    expect(run.code).toBe(2);
    expect(run.err).toContain(
      'arazzo import never overwrites, so it wrote nothing; these files exist: out/find-or-make.yaml, out/until-ok.yaml',
    );
    expect(existsSync(path.join(root, 'out/adopt-new-pet.yaml'))).toBe(false);
    expect(read('out/until-ok.yaml')).toBe('mine\n');
    expect(read('toolgen.config.yaml')).toBe(config);
  });

  it('refuses an API of the same name over another document, writing nothing (exit 2)', async () => {
    writeFileSync(
      path.join(root, 'toolgen.config.yaml'),
      'apis:\n  pets: { openapi: other.yaml, baseUrl: "http://x" }\n',
    );
    const run = await runCli(['arazzo', 'import', 'arazzo-pets/pets.arazzo.yaml'], root);
    expect(run.code).toBe(2);
    expect(run.err).toContain(
      "toolgen.config.yaml already declares an API 'pets' over other.yaml, not http-api/openapi.yaml: rename one of them",
    );
    expect(existsSync(path.join(root, 'config'))).toBe(false);
  });

  it('reports a document that is not YAML at file:line:col, and one that is not Arazzo (exit 2)', async () => {
    writeFileSync(path.join(root, 'broken.yaml'), 'arazzo: 1.0.1\nworkflows:\n  - workflowId: a\n   steps: []\n');
    const broken = await runCli(['arazzo', 'import', 'broken.yaml'], root);
    expect(broken.code).toBe(2);
    expect(broken.err).toMatch(/^toolgen: broken\.yaml:4:\d+: /);
    writeFileSync(path.join(root, 'openapi.yaml'), 'openapi: 3.1.0\npaths: {}\n');
    const other = await runCli(['arazzo', 'import', 'openapi.yaml'], root);
    expect(other.code).toBe(2);
    expect(other.err).toContain("openapi.yaml: not an Arazzo document (it has no 'arazzo' version at its top)");
    const missing = await runCli(['arazzo', 'import', 'nowhere.arazzo.yaml'], root);
    expect(missing.err).toContain("cannot read 'nowhere.arazzo.yaml'");
  });

  it('prints the report as one JSON document with --format json', async () => {
    const run = await runCli(['arazzo', 'import', 'arazzo-pets/pets.arazzo.yaml', '--format', 'json'], root);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.out.slice(0, run.out.lastIndexOf('}') + 1)) as Record<string, unknown>;
    expect(report).toMatchObject({ added: ['pets'], needsPerson: false, refused: [] });
    expect((report['files'] as { tools: { name: string }[] }[])[0]!.tools.map((tool) => tool.name)).toEqual([
      'adopt-new-pet',
      'find-or-make',
      'until-ok',
    ]);
  });

  it('refuses a document nested past 64 levels at where it starts, and survives an input that refers to itself', async () => {
    writeFileSync(
      path.join(root, 'deep.arazzo.yaml'),
      `arazzo: 1.0.1\nworkflows: ${'['.repeat(80)}${']'.repeat(80)}\n`,
    );
    const deep = await runCli(['arazzo', 'import', 'deep.arazzo.yaml'], root);
    expect(deep.code).toBe(2);
    expect(deep.err).toBe('toolgen: deep.arazzo.yaml:2:75: nested more than 64 levels deep, deeper than toolgen reads');
    writeFileSync(
      path.join(root, 'loop.arazzo.yaml'),
      [
        'arazzo: 1.0.1',
        'info: { title: loop, version: "1" }',
        'sourceDescriptions: [{ name: pets, url: ./http-api/openapi.yaml }]',
        'workflows:',
        '  - workflowId: loop',
        '    inputs: { $ref: "#/components/inputs/node" }',
        '    steps: [{ stepId: list, operationId: listPets }]',
        'components:',
        '  inputs:',
        '    node: { type: object, properties: { next: { $ref: "#/components/inputs/node" } } }',
        '',
      ].join('\n'),
    );
    const loop = await runCli(['arazzo', 'import', 'loop.arazzo.yaml'], root);
    expect(loop.code).toBe(1);
    expect(loop.out).toContain('nested deeper than a parameter can say (a $ref that leads back to itself?); any value');
  });

  it('prints what the document says escaped: an escape sequence or a carriage return cannot rewrite the report', async () => {
    writeFileSync(
      path.join(root, 'ansi.arazzo.yaml'),
      [
        'arazzo: 1.0.1',
        'info: { title: ansi, version: "1" }',
        'sourceDescriptions:',
        '  - { name: pets, url: ./http-api/openapi.yaml }',
        '  - { name: gone, url: "./gone\\e[2K\\r.yaml" }',
        'workflows:',
        '  - workflowId: ansi',
        '    steps:',
        '      - { stepId: list, operationId: listPets, successCriteria: [{ condition: "$statusCode == 200 \\e[8m" }] }',
        '',
      ].join('\n'),
    );
    for (const format of [[], ['--format', 'json']]) {
      const run = await runCli(['arazzo', 'import', 'ansi.arazzo.yaml', ...format], root);
      // eslint-disable-next-line no-control-regex -- what must never be printed
      expect(run.out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      expect(run.out).toContain('\\u001b[2K\\r.yaml');
      rmSync(path.join(root, 'config'), { recursive: true, force: true });
      rmSync(path.join(root, 'toolgen.config.yaml'), { force: true });
    }
  });

  it('stops an input that refers to itself twice (2^128 shapes) at 1000, in a moment', async () => {
    writeFileSync(
      path.join(root, 'twice.arazzo.yaml'),
      [
        'arazzo: 1.0.1',
        'info: { title: twice, version: "1" }',
        'sourceDescriptions: [{ name: pets, url: ./http-api/openapi.yaml }]',
        'workflows:',
        '  - workflowId: twice',
        '    inputs: { $ref: "#/components/inputs/node" }',
        '    steps: [{ stepId: list, operationId: listPets }]',
        'components:',
        '  inputs:',
        '    node:',
        '      type: object',
        '      properties: { left: { $ref: "#/components/inputs/node" }, right: { $ref: "#/components/inputs/node" } }',
        '',
      ].join('\n'),
    );
    const twice = await runCli(['arazzo', 'import', 'twice.arazzo.yaml'], root);
    expect(twice.code).toBe(1);
    expect(twice.out).toContain(
      'past 1000 parameters and nested shapes (schemas that refer to the same schema many times over?); this one and the rest take any value',
    );
  }, 20_000);

  it('refuses a document the Arazzo schema or its ids refuse, every problem at its place, writing nothing (exit 2)', async () => {
    writeFileSync(
      path.join(root, 'bad.arazzo.yaml'),
      [
        'arazzo: 1.0.1',
        'info: { title: bad, version: "1" }',
        'sourceDescriptions:',
        '  - { name: a/b, url: ./http-api/openapi.yaml }',
        'workflows:',
        '  - workflowId: same',
        '    steps:',
        '      - stepId: one',
        '        operationId: listPets',
        '        sucessCriteria: [{ condition: $statusCode == 200 }]',
        '        parameters: 5',
        '      - stepId: one',
        '        operationId: listPets',
        '  - workflowId: same',
        '    steps: [{ stepId: x, operationId: listPets }]',
        '  - workflowId: ../evil',
        '    steps: [{ stepId: x, operationId: listPets, successCriteria: [5] }]',
        '  - null',
        '',
      ].join('\n'),
    );
    const run = await runCli(['arazzo', 'import', 'bad.arazzo.yaml'], root);
    expect(run.code).toBe(2);
    expect(run.err.split('\n')).toEqual([
      'bad.arazzo.yaml:4:13: sourceDescriptions[0].name must match ^[A-Za-z0-9_\\-]+$',
      "bad.arazzo.yaml:10:25: unknown field sucessCriteria in workflows[0].steps[0]; did you mean 'successCriteria'?",
      'bad.arazzo.yaml:11:21: workflows[0].steps[0].parameters must be an array',
      'bad.arazzo.yaml:12:17: stepId one is taken by steps[0] of this workflow',
      'bad.arazzo.yaml:14:17: workflowId same is taken by workflows[0] (ids that differ only in case would be one file)',
      'bad.arazzo.yaml:16:17: workflowId "../evil" is not [A-Za-z0-9_.-]+, as Arazzo recommends: toolgen names the composite and its file by it',
      'bad.arazzo.yaml:17:67: workflows[2].steps[0].successCriteria[0] must be an object',
      'bad.arazzo.yaml:18:5: workflows[3] must be an object',
      'toolgen: bad.arazzo.yaml is not an Arazzo document import can read (above); it wrote nothing',
    ]);
    expect(readdirSync(root).sort()).toEqual(['arazzo-pets', 'bad.arazzo.yaml', 'http-api']);
    const aliases = ['a: &a [x, x, x, x, x, x, x, x, x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]'];
    writeFileSync(
      path.join(root, 'bomb.arazzo.yaml'),
      `arazzo: 1.0.1\n${aliases.join('\n')}\nc: [${'*b, '.repeat(20)}*b]\nworkflows: []\n`,
    );
    const bomb = await runCli(['arazzo', 'import', 'bomb.arazzo.yaml'], root);
    expect(bomb.code).toBe(2);
    expect(bomb.err).toContain('an alias is expanded more than 100 times; the document is refused');
  });

  it('refuses another Arazzo version with one sentence at its version, writing nothing (exit 2)', async () => {
    for (const version of ['2.0.0', '1.1.0']) {
      writeFileSync(
        path.join(root, 'other.arazzo.yaml'),
        [
          `arazzo: ${version}`,
          'info: { title: other, version: "1" }',
          'sourceDescriptions: [{ name: pets, url: ./http-api/openapi.yaml }]',
          'workflows:',
          '  - workflowId: other',
          '    steps: [{ stepId: list, operationId: listPets, newIn2: true }]',
          '',
        ].join('\n'),
      );
      const run = await runCli(['arazzo', 'import', 'other.arazzo.yaml'], root);
      expect(run).toEqual({
        code: 2,
        out: '',
        err: [
          `other.arazzo.yaml:1:9: this is Arazzo ${version}; toolgen reads Arazzo 1.0 (1.0.0, 1.0.1)`,
          'toolgen: other.arazzo.yaml is not an Arazzo document import can read (above); it wrote nothing',
        ].join('\n'),
      });
      expect(readdirSync(root).sort()).toEqual(['arazzo-pets', 'http-api', 'other.arazzo.yaml']);
    }
    for (const [version, problem] of [
      ['1.0', 'arazzo is the version as text, such as 1.0.1 (unquoted, YAML reads it as the number 1)'],
      ['"1.0"', 'arazzo 1.0 lacks its patch number: write 1.0.1 (or 1.0.0)'],
    ]) {
      writeFileSync(
        path.join(root, 'short.arazzo.yaml'),
        `arazzo: ${version}\nworkflows: [{ workflowId: a, steps: [{ stepId: b, operationId: c }] }]\n`,
      );
      const run = await runCli(['arazzo', 'import', 'short.arazzo.yaml'], root);
      expect(run.code).toBe(2);
      expect(run.err.split('\n')[0]).toBe(`short.arazzo.yaml:1:9: ${problem}`);
    }
  });

  it('adds no API whose document cannot be read, says what to do, and converts the rest (exit 1)', async () => {
    writeFileSync(path.join(root, 'swagger.yaml'), 'swagger: "2.0"\ninfo: { title: old, version: "1" }\npaths: {}\n');
    writeFileSync(
      path.join(root, 'x.arazzo.yaml'),
      [
        'arazzo: 1.0.1',
        'info: { title: x, version: "1" }',
        'sourceDescriptions:',
        '  - { name: old, url: ./swagger.yaml }',
        '  - { name: pets, url: ./http-api/openapi.yaml }',
        '  - { name: gone, url: ./gone.yaml }',
        'workflows:',
        '  - workflowId: x',
        '    steps:',
        '      - { stepId: list, operationId: listPets }',
        '      - { stepId: legacy, operationId: $sourceDescriptions.old.getThing }',
        '',
      ].join('\n'),
    );
    const run = await runCli(['arazzo', 'import', 'x.arazzo.yaml', '--out', 'elsewhere'], root);
    expect(run.code).toBe(1);
    expect(run.out.split('\n')).toEqual([
      'x.arazzo.yaml',
      '  warning    x.arazzo.yaml:4:23: old: ./swagger.yaml could not be read: it is Swagger 2.0, which toolgen does not read: convert it to OpenAPI 3 (for example npx swagger2openapi swagger.yaml -o openapi.yaml) and point openapi at that; so it is not added to apis (the steps that call it do not build until it is): once it can be read, add old: { openapi: <its OpenAPI document>, baseUrl: ${OLD_URL} } under apis in toolgen.config.yaml, then npx toolgen api pull old',
      '  rewritten  toolgen.config.yaml: apis.pets: http-api/openapi.yaml, its base URL read from ${PETS_URL} when a step calls it',
      '  warning    x.arazzo.yaml:6:24: gone: ./gone.yaml could not be read: gone.yaml does not exist; so it is not added to apis (the steps that call it do not build until it is): once it can be read, add gone: { openapi: <its OpenAPI document>, baseUrl: ${GONE_URL} } under apis in toolgen.config.yaml, then npx toolgen api pull gone',
      '  x → elsewhere/x.yaml',
      "    warning    x.arazzo.yaml:11:40: the source 'old' could not be read (it is Swagger 2.0, which toolgen does not read: convert it to OpenAPI 3 (for example npx swagger2openapi swagger.yaml -o openapi.yaml) and point openapi at that): parameters are named as the step writes them, unchecked",
      'toolgen arazzo import: 1 workflow written to elsewhere, 1 API added to apis; 1 rewritten, 0 behaviour changes, 3 warnings; needs a person: see the warnings above',
      'next: npx toolgen api pull pets, then npx toolgen',
    ]);
    expect(parse(read('toolgen.config.yaml'))).toEqual({
      apis: { pets: { openapi: 'http-api/openapi.yaml', baseUrl: '${PETS_URL}' } },
    });
    expect(tools('elsewhere')).toEqual(['x.yaml']);
    // The project still pulls and builds as far as the step over the source it could not add.
    expect((await runCli(['api', 'pull'], root)).code).toBe(0);
    const built = await runCli(['--config-dir', 'elsewhere'], root);
    expect(built.err).not.toContain('TG1010');
    expect(built.err).toContain("TG2010 no MCP server or API named 'old' (in 'old/getThing')");
    // Once the person has declared it (over the document converted), import leaves that entry as it is.
    writeFileSync(
      path.join(root, 'toolgen.config.yaml'),
      `${read('toolgen.config.yaml')}  old: { openapi: converted.yaml, baseUrl: "\${OLD_URL}" }\n`,
    );
    const config = read('toolgen.config.yaml');
    const again = await runCli(['arazzo', 'import', 'x.arazzo.yaml', '--out', 'again'], root);
    expect(again.code).toBe(1);
    expect(again.out).toContain(
      '  warning    x.arazzo.yaml:4:23: old: ./swagger.yaml could not be read: it is Swagger 2.0, which toolgen does not read: convert it to OpenAPI 3 (for example npx swagger2openapi swagger.yaml -o openapi.yaml) and point openapi at that; toolgen.config.yaml declares apis.old over converted.yaml, which its steps call\n',
    );
    expect(read('toolgen.config.yaml')).toBe(config);
  });

  it('says when a criterion accepts only a status toolgen fails first, and not when it refuses one', async () => {
    const criteria = ['$statusCode == 404 || $statusCode == 200', '!($statusCode == 404)'];
    writeFileSync(
      path.join(root, 'status.arazzo.yaml'),
      [
        'arazzo: 1.0.1',
        'info: { title: status, version: "1" }',
        'sourceDescriptions: [{ name: pets, url: ./http-api/openapi.yaml }]',
        'workflows:',
        '  - workflowId: status',
        '    steps:',
        ...criteria.map(
          (condition, index) =>
            `      - { stepId: s${index}, operationId: getPet, parameters: [{ name: petId, in: path, value: 1 }], successCriteria: [{ condition: "${condition}" }] }`,
        ),
        '',
      ].join('\n'),
    );
    const run = await runCli(['arazzo', 'import', 'status.arazzo.yaml'], root);
    expect(run.code).toBe(0);
    expect(run.out.split('\n').filter((line) => line.includes('changed'))).toEqual([
      '    changed    status.arazzo.yaml:7:113: $statusCode == 404: toolgen fails a response whose status the operation does not list as a success (200) before its success_when',
    ]);
  });

  it("runs a dependsOn workflow first, and gives every operation step the workflow's parameters and failureActions", async () => {
    writeFileSync(
      path.join(root, 'shared.arazzo.yaml'),
      [
        'arazzo: 1.0.1',
        'info: { title: shared, version: "1" }',
        'sourceDescriptions: [{ name: pets, url: ./http-api/openapi.yaml }]',
        'workflows:',
        '  - workflowId: warm',
        '    inputs: { type: object, properties: { tag: { type: string } } }',
        '    steps: [{ stepId: list, operationId: listPets }]',
        '  - workflowId: main',
        '    dependsOn: [warm]',
        '    inputs: { type: object, properties: { tag: { type: string }, id: { type: integer } } }',
        '    parameters: [{ name: X-Request-Id, in: header, value: wf-1 }]',
        '    failureActions: [{ name: again, type: retry, retryLimit: 2 }]',
        '    steps:',
        '      - { stepId: get, operationId: getPet, parameters: [{ name: petId, in: path, value: $inputs.id }] }',
        '      - stepId: list',
        '        operationId: listPets',
        '        parameters: [{ name: X-Request-Id, in: header, value: own }]',
        '        onFailure: [{ name: stop, type: end }]',
        '',
      ].join('\n'),
    );
    const run = await runCli(['arazzo', 'import', 'shared.arazzo.yaml'], root);
    // getPet has no X-Request-Id header: the workflow's parameter is kept there, for the build to refuse.
    expect(run.code).toBe(1);
    expect(run.out.split('\n').filter((line) => line.startsWith('    '))).toEqual([
      "    changed    shared.arazzo.yaml:9:17: dependsOn warm: runs first, as step 'warm' of this composite, given the inputs of the same name",
      '    warning    shared.arazzo.yaml:11:26: header parameter X-Request-Id: the operation has none; kept (the build will say so)',
    ]);
    expect(parse(read('config/tools/main.yaml')).implementation.composite.steps).toEqual([
      { id: 'warm', tool: 'warm', inputs: { tag: '<< state.tag >>' } },
      {
        id: 'get',
        tool: 'pets/getPet',
        inputs: { 'X-Request-Id': 'wf-1', petId: '<< state.id >>' },
        on_failure: { action: 'retry', max_retries: 2, initial_delay_ms: 1000, backoff_factor: 1 },
      },
      { id: 'list', tool: 'pets/listPets', inputs: { 'X-Request-Id': 'own' } },
    ]);
  });

  it('maps a field two outputs read once, and reads it again by a transform for the second', async () => {
    writeFileSync(
      path.join(root, 'twice.arazzo.yaml'),
      [
        'arazzo: 1.0.1',
        'info: { title: twice, version: "1" }',
        'sourceDescriptions: [{ name: pets, url: ./http-api/openapi.yaml }]',
        'workflows:',
        '  - workflowId: twice',
        '    steps:',
        '      - stepId: get',
        '        operationId: getPet',
        '        parameters: [{ name: petId, in: path, value: 1 }]',
        '        outputs: { nm: $response.body#/name, label: $response.body#/name }',
        '',
      ].join('\n'),
    );
    expect((await runCli(['arazzo', 'import', 'twice.arazzo.yaml'], root)).code).toBe(0);
    expect(parse(read('config/tools/twice.yaml')).implementation.composite.steps[0].on_success).toEqual({
      map_outputs: { name: 'nm' },
      transform: { label: 'steps.get.name' },
    });
  });

  it('says why a workflow output is returned under another name: taken, or no identifier', async () => {
    writeFileSync(
      path.join(root, 'names.arazzo.yaml'),
      [
        'arazzo: 1.0.1',
        'info: { title: names, version: "1" }',
        'sourceDescriptions: [{ name: pets, url: ./http-api/openapi.yaml }]',
        'workflows:',
        '  - workflowId: names',
        '    inputs: { type: object, properties: { name: { type: string } } }',
        '    steps:',
        '      - stepId: get',
        '        operationId: getPet',
        '        parameters: [{ name: petId, in: path, value: 1 }]',
        '        outputs: { nm: $response.body#/name, pet-tag: $response.body#/tag }',
        '    outputs:',
        '      name: $steps.get.outputs.nm',
        '      pet-tag: $steps.get.outputs.pet-tag',
        '',
      ].join('\n'),
    );
    const run = await runCli(['arazzo', 'import', 'names.arazzo.yaml'], root);
    expect(run.code).toBe(1);
    expect(run.out.split('\n').filter((line) => line.includes('returned as'))).toEqual([
      "    warning    names.arazzo.yaml:13:13: $steps.get.outputs.nm: returned as 'nm', the state variable that holds it (the name 'name' was taken)",
      "    warning    names.arazzo.yaml:14:16: $steps.get.outputs.pet-tag: returned as 'pet_tag', the state variable that holds it (a state variable's name is an identifier, and 'pet-tag' is not one)",
    ]);
    expect(parse(read('config/tools/names.yaml')).implementation.composite.steps[0].on_success).toEqual({
      map_outputs: { name: 'nm', tag: 'pet_tag' },
    });
  });

  it('reports what it cannot convert where it is, and converts the rest (exit 1)', async () => {
    writeFileSync(
      path.join(root, 'odd.arazzo.yaml'),
      [
        'arazzo: 1.0.1',
        'info: { title: odd, version: "1" }',
        'sourceDescriptions:',
        '  - { name: pets, url: ./http-api/openapi.yaml, type: openapi }',
        '  - { name: more, url: ./more.arazzo.yaml, type: arazzo }',
        'workflows:',
        '  - workflowId: odd',
        '    steps:',
        '      - stepId: one',
        '        operationId: getPett',
        '      - stepId: two',
        '        operationId: getPet',
        '        parameters:',
        '          - { name: petId, in: path, value: $request.path.petId }',
        '        successCriteria:',
        '          - { condition: "//pet", context: $response.body, type: xpath }',
        '        onSuccess:',
        '          - { name: away, type: goto, workflowId: other }',
        '        outputs:',
        '          url: $url',
        '',
      ].join('\n'),
    );
    const run = await runCli(['arazzo', 'import', 'odd.arazzo.yaml'], root);
    expect(run.code).toBe(1);
    expect(run.out.split('\n')).toEqual([
      'odd.arazzo.yaml',
      '  warning    odd.arazzo.yaml:5:50: more: a source of type arazzo is not read; steps over it are not converted',
      '  rewritten  toolgen.config.yaml: apis.pets: http-api/openapi.yaml, its base URL read from ${PETS_URL} when a step calls it',
      '  odd → config/tools/odd.yaml',
      "    warning    odd.arazzo.yaml:10:22: getPett: no source has an operation 'getPett'",
      '    warning    odd.arazzo.yaml:14:45: $request.path.petId: toolgen does not keep the request a step sent; left as text',
      '    warning    odd.arazzo.yaml:16:13: //pet: a xpath criterion has no equivalent in toolgen (simple, regex and jsonpath do); left out',
      '    warning    odd.arazzo.yaml:18:51: goto other: a composite goes to its own steps only (call the workflow from a step instead); the action is left out',
      '    warning    odd.arazzo.yaml:20:16: $url: toolgen does not keep the request a step sent; left out',
      'toolgen arazzo import: 1 workflow written to config/tools, 1 API added to apis; 1 rewritten, 0 behaviour changes, 6 warnings; needs a person: see the warnings above',
      'next: npx toolgen api pull pets, then npx toolgen',
    ]);
  });
});

describe('toolgen arazzo export', () => {
  it('writes a document that imports again to the same composites', async () => {
    expect((await runCli(['arazzo', 'import', 'arazzo-pets/pets.arazzo.yaml'], root)).code).toBe(0);
    expect((await runCli(['api', 'pull'], root)).code).toBe(0);
    const exported = await runCli(
      ['arazzo', 'export', 'adopt-new-pet', 'find-or-make', 'until-ok', '--out', 'again/pets.arazzo.yaml'],
      root,
    );
    expect(exported).toEqual({
      code: 0,
      out: 'toolgen arazzo export: 3 workflows written to again/pets.arazzo.yaml',
      err: '',
    });
    const document = parse(read('again/pets.arazzo.yaml'));
    expect(document.sourceDescriptions).toEqual([{ name: 'pets', url: '../http-api/openapi.yaml', type: 'openapi' }]);
    const again = await runCli(['arazzo', 'import', 'again/pets.arazzo.yaml', '--out', 'again/tools'], root);
    expect(again.code, again.out).toBe(0);
    for (const file of tools('config/tools'))
      expect(read(`again/tools/${file}`).split('\n').slice(1), file).toEqual(
        read(`config/tools/${file}`).split('\n').slice(1),
      );
  });

  it('writes documents the official Arazzo 1.0 schema accepts: the pets workflows, and the login example imported', async () => {
    cpSync(path.join(FIXTURES, 'arazzo'), path.join(root, 'examples'), { recursive: true });
    expect((await runCli(['arazzo', 'import', 'arazzo-pets/pets.arazzo.yaml'], root)).code).toBe(0);
    expect((await runCli(['arazzo', 'import', 'examples/LoginAndRetrievePets.local.arazzo.yaml'], root)).code).toBe(1);
    expect((await runCli(['api', 'pull'], root)).code).toBe(0);
    for (const tools of [['adopt-new-pet', 'find-or-make', 'until-ok'], ['loginUserRetrievePet']]) {
      const run = await runCli(['arazzo', 'export', ...tools], root);
      expect(run.code, run.err).toBe(0);
      expect(arazzoSchemaErrors(parse(run.out))).toEqual([]);
    }
  });

  it('prints the document on stdout, with the step and its criteria as Arazzo writes them', async () => {
    await runCli(['arazzo', 'import', 'arazzo-pets/pets.arazzo.yaml'], root);
    await runCli(['api', 'pull'], root);
    const run = await runCli(['arazzo', 'export', 'find-or-make'], root);
    expect(run.code).toBe(0);
    expect(await runCli(['arazzo', 'export', 'find-or-make', '--out', 'one.arazzo.yaml'], root)).toEqual({
      code: 0,
      out: 'toolgen arazzo export: 1 workflow written to one.arazzo.yaml',
      err: '',
    });
    expect(read('one.arazzo.yaml')).toBe(`${run.out}\n`);
    const document = parse(run.out);
    expect(document.arazzo).toBe('1.0.1');
    expect(document.workflows[0].steps[0]).toEqual({
      stepId: 'list',
      operationId: 'listPets',
      parameters: [{ name: 'tag', in: 'query', value: ['$inputs.tag'] }],
      successCriteria: [{ condition: '$statusCode == 200' }],
      outputs: { total: '$response.header.x-total-count' },
      onSuccess: [
        {
          name: 'end_1',
          type: 'end',
          criteria: [{ context: '$response.body', condition: '$[?count(@) > 0]', type: 'jsonpath' }],
        },
      ],
    });
  });

  it('refuses a composite with a step Arazzo cannot say, at its file:line:col, and writes nothing (exit 1)', async () => {
    writeFileSync(
      path.join(root, 'toolgen.config.yaml'),
      'apis:\n  pets: { openapi: http-api/openapi.yaml, baseUrl: "${PETS_URL}" }\n',
    );
    await runCli(['api', 'pull'], root);
    mkdirSync(path.join(root, 'config/tools'), { recursive: true });
    writeFileSync(
      path.join(root, 'config/tools/local.yaml'),
      'name: local\ndescription: x\nimplementation: { type: function, module: ./x.ts, export: x }\n',
    );
    writeFileSync(
      path.join(root, 'config/tools/mixed.yaml'),
      [
        'name: mixed',
        'description: An API step, then a local one',
        'implementation:',
        '  type: composite',
        '  composite:',
        '    steps:',
        '      - { id: pets, tool: pets/listPets, when: "true" }',
        '      - { id: mine, tool: local }',
        '      - id: get',
        '        tool: pets/getPet',
        '        inputs: { petId: 1, body: { name: Bo } }',
        '        on_failure: { action: retry, retry_on: [HTTP_503, unmet], no_retry_on: [HTTP_500] }',
        'returns: { type: object, properties: { ghost: { type: string } } }',
        '',
      ].join('\n'),
    );
    const run = await runCli(['arazzo', 'export', 'mixed', '--out', 'mixed.arazzo.yaml'], root);
    expect(run.code).toBe(1);
    expect(run.err.split('\n')).toEqual([
      'config/tools/mixed.yaml:7:42: when: Arazzo has no equivalent',
      'config/tools/mixed.yaml:8:27: local: Arazzo steps call API operations or workflows; a local or MCP tool has no equivalent',
      'config/tools/mixed.yaml:11:29: pets/getPet takes no request body',
      'config/tools/mixed.yaml:12:59: retry_on: unmet: an Arazzo retry chooses what it retries by criteria on $statusCode (retry_on: HTTP_<status>)',
      'config/tools/mixed.yaml:12:81: no_retry_on: HTTP_500: an Arazzo retry chooses what it retries by criteria on $statusCode (retry_on: HTTP_<status>)',
      'config/tools/mixed.yaml:13:40: ghost: no step sets it, and no parameter has its name',
      'toolgen arazzo export: 6 problems (above): nothing was written',
    ]);
    expect(existsSync(path.join(root, 'mixed.arazzo.yaml'))).toBe(false);
    writeFileSync(
      path.join(root, 'config/tools/routes.yaml'),
      [
        'name: routes',
        'description: A criterion, a transform and a route Arazzo cannot say',
        'implementation:',
        '  type: composite',
        '  composite:',
        '    steps:',
        '      - id: list',
        '        tool: pets/listPets',
        '        success_when: "$sum(steps.list.id) > 2"',
        '        on_success:',
        '          transform:',
        '            total: "$count(steps.list)"',
        '      - id: pick',
        '        choose:',
        '          - when: "$sum(steps.list.id) > 2"',
        '            next: end',
        '        default: end',
        '',
      ].join('\n'),
    );
    expect((await runCli(['arazzo', 'export', 'routes'], root)).err.split('\n')).toEqual([
      "config/tools/routes.yaml:9:23: $sum(steps.list.id) > 2: $sum() has no equivalent in Arazzo's conditions",
      "config/tools/routes.yaml:12:20: transform total: $count(steps.list) is not a path into the step's response",
      "config/tools/routes.yaml:15:19: $sum(steps.list.id) > 2: $sum() has no equivalent in Arazzo's conditions",
      'toolgen arazzo export: 3 problems (above): nothing was written',
    ]);

    expect((await runCli(['arazzo', 'export', 'mixd'], root)).err).toContain(
      "no tool is named 'mixd'; did you mean 'mixed'?",
    );
    expect((await runCli(['arazzo', 'export', 'local'], root)).err).toContain("'local' is not a composite");
  });
});
