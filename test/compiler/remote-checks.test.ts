/**
 * Every check a call to a local tool gets, on calls to tools of other MCP servers (pinned by a real
 * pull of the reference servers), each problem at its line and column; what the checks cannot follow
 * in a pinned schema (a warning, never a false error); the lock's own problems; names; and builds
 * after the lock changes. Expected places are found by searching the YAML's text, not by the compiler.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_LOCK, pinnedLock, remoteProject, type ListedTool, type RemoteProject } from '../helpers/mcp.js';

let project: RemoteProject | null = null;
afterEach(() => project?.dispose());

const FLOW = 'config/tools/flow.yaml';

/** A composite whose steps (and extra top-level fields) are given. */
const flow = (steps: string, extra = '') => `name: flow
description: calls tools of other servers
parameters:
  - { name: path, type: string, required: true }
  - { name: lines, type: string, required: true }
implementation:
  type: composite
  composite:
${extra}    steps:
${steps}`;

/** `file:line:col` of the `nth` occurrence of `needle` in `text`. */
function where(file: string, text: string, needle: string, nth = 0): string {
  let offset = -1;
  for (let n = 0; n <= nth; n += 1) offset = text.indexOf(needle, offset + 1);
  if (offset < 0) throw new Error(`'${needle}' is not in the text`);
  const before = text.slice(0, offset).split('\n');
  return `${file}:${before.length}:${before.at(-1)!.length + 1}`;
}

async function diagnose(yaml: string, options: Parameters<typeof remoteProject>[1] = {}) {
  project = remoteProject({ [FLOW]: yaml }, options);
  return project.diagnoseRemote();
}

const READ = '      - { id: read, tool: files/read_text_file, inputs: { path: << state.path >> } }\n';

describe('a call to a remote tool, checked as a local one is', () => {
  it.each([
    [
      'an unknown server, with a suggestion among the declared ones',
      flow('      - { id: read, tool: filez/read_text_file, inputs: { path: << state.path >> } }\n'),
      [['filez/read_text_file', 'TG2010']],
    ],
    [
      "an unknown tool of a known server, with a suggestion among the server's pinned tools",
      flow('      - { id: read, tool: files/read_txt_file, inputs: { path: << state.path >> } }\n'),
      [['files/read_txt_file', 'TG2011']],
    ],
    [
      'an input it does not take, meant for the one it requires: one mistake, one diagnostic',
      flow('      - { id: read, tool: files/read_text_file, inputs: { paht: << state.path >> } }\n'),
      [['paht', 'TG5001']],
    ],
    [
      'a literal of the wrong type',
      flow('      - { id: read, tool: files/read_text_file, inputs: { path: a.md, head: twenty } }\n'),
      [['twenty', 'TG5003']],
    ],
    [
      'a value its enum does not list',
      flow('      - { tool: everything/get-structured-content, inputs: { location: Boston } }\n'),
      [['Boston', 'TG5003']],
    ],
    [
      'a nested field its items require, left out',
      flow('      - tool: memory/create_entities\n        inputs: { entities: [{ name: a, entityType: note }] }\n'),
      [['[{ name: a', 'TG5003']],
    ],
    [
      "a misspelt field inside an item (remember_note's entityType), at the key, not under the whole mapping",
      flow(
        '      - tool: memory/create_entities\n        inputs:\n          entities:\n            - name: << state.path >>\n              entity_type: note\n              observations: []\n',
      ),
      [['entity_type', 'TG5001']],
    ],
    [
      'a template whose state variable has another type',
      flow('      - { id: read, tool: files/read_text_file, inputs: { path: a.md, head: << state.lines >> } }\n'),
      [['<< state.lines >>', 'TG5003']],
    ],
    [
      'a mapped output its outputSchema does not declare',
      flow(
        '      - id: read\n        tool: files/read_text_file\n        inputs: { path: << state.path >> }\n        on_success: { map_outputs: { contents: text } }\n',
      ),
      [['contents', 'TG5004']],
    ],
    [
      'a field of its output read by a template, that its outputSchema does not declare',
      flow(`${READ}      - { tool: everything/echo, inputs: { message: << steps.read.contnt >> } }\n`),
      [['<< steps.read.contnt >>', 'TG4007']],
    ],
    [
      'an unknown server among the fallbacks, and an unknown tool among the next tools allowed',
      flow(
        '      - { id: read, tool: files/read_text_file, inputs: { path: << state.path >> }, fallbacks: [backup/read_text_file] }\n',
        '    allow_next_tools: [memory/open_node]\n',
      ),
      [
        ['memory/open_node', 'TG2011'],
        ['backup/read_text_file', 'TG2010'],
      ],
    ],
    [
      "a stub whose output is not what the tool's outputSchema says, and a stub of a tool the server does not have",
      `${flow(READ)}examples:
  - description: stubbed
    input: { path: a.md, lines: '3' }
    stubs:
      files/read_text_file: { output: { content: 3 } }
      files/read_fil: { output: {} }
`,
      [
        ['{ content: 3 }', 'TG5014'],
        ['files/read_fil', 'TG2011'],
      ],
    ],
    [
      'a remote tool named without its server',
      flow('      - { id: read, tool: read_text_file, inputs: { path: << state.path >> } }\n'),
      [['read_text_file', 'TG2002']],
    ],
  ])('%s', async (_, yaml, expected) => {
    const { short } = await diagnose(yaml);
    expect(short).toEqual(expected.map(([needle, code]) => `${where(FLOW, yaml, needle!)} ${code}`));
  });

  it('names a misspelt nested field with the field meant, as a misspelt input', async () => {
    const { all } = await diagnose(
      flow(
        '      - tool: memory/create_entities\n        inputs: { entities: [{ name: a, entity_type: note, observations: [] }] }\n',
      ),
    );
    expect(all.map((d) => [d.code, d.message, d.hint])).toEqual([
      [
        'TG5001',
        "'entities[0]' of 'memory/create_entities' has no field 'entity_type'; did you mean 'entityType'?",
        'its fields: entityType, name, observations',
      ],
    ]);
  });

  it('words the suggestions with the names a step writes', async () => {
    const { all } = await diagnose(
      flow(
        '      - { id: a, tool: filez/read_text_file, inputs: { path: << state.path >> } }\n      - { id: b, tool: files/read_txt_file, inputs: { path: << state.path >> } }\n      - { id: c, tool: read_text_file, inputs: { path: << state.path >> } }\n',
      ),
    );
    expect(all.map((d) => d.message)).toEqual([
      "no MCP server named 'filez' (in 'filez/read_text_file'); did you mean 'files/read_text_file'?",
      "server 'files' has no tool named 'read_txt_file'; did you mean 'files/read_text_file'?",
      "no tool named 'read_text_file'; did you mean 'files/read_text_file'?",
    ]);
    expect(all[0]!.hint).toBe(
      'a tool on another MCP server is named <server>/<tool>, the server as mcpServers in toolgen.config.yaml names it (pinned by npx toolgen mcp pull): here everything, files, memory',
    );
  });

  it('reports a server that is not there once, at its first use, however many tools of it are named', async () => {
    const yaml = flow(
      '      - { id: a, tool: filez/read_text_file, inputs: { path: << state.path >> } }\n      - { id: b, tool: filez/get_file_info, inputs: { path: << state.path >> }, fallbacks: [filez/read_file] }\n',
    );
    const { short, all } = await diagnose(yaml);
    expect(short).toEqual([`${where(FLOW, yaml, 'filez/read_text_file')} TG2010`]);
    expect(all[0]!.message).toBe(
      "no MCP server named 'filez' (in 'filez/read_text_file', and 2 more uses of it); did you mean 'files/read_text_file'?",
    );
  });

  it('warns, without an error, when a field is read of an output whose server declares no outputSchema', async () => {
    const yaml = flow(`      - id: echo
        tool: everything/echo
        inputs: { message: << state.path >> }
        on_success: { map_outputs: { text: echoed } }
      - { tool: everything/echo, when: steps.echo.size > 1, inputs: { message: << steps.echo.text >> } }
      - { tool: everything/echo, inputs: { message: << steps.echo >> } }
`);
    const { all } = await diagnose(yaml);
    expect(all.map((d) => [d.severity, d.code, d.message])).toEqual([
      [
        'warning',
        'TG4010',
        "'text' reads the output of 'everything/echo', whose shape is unknown: its server declares no outputSchema",
      ],
      [
        'warning',
        'TG4010',
        "'steps.echo.size' reads the output of 'everything/echo', whose shape is unknown: its server declares no outputSchema",
      ],
      [
        'warning',
        'TG4010',
        "'steps.echo.text' reads the output of 'everything/echo', whose shape is unknown: its server declares no outputSchema",
      ],
    ]);
    expect(all.map((d) => `${d.location!.file}:${d.location!.line}:${d.location!.column}`)).toEqual([
      where(FLOW, yaml, 'text: echoed'),
      where(FLOW, yaml, 'echo.size'),
      where(FLOW, yaml, '<< steps.echo.text >>'),
    ]);
  });
});

/** A made-up server whose schemas use what the checks cannot follow. */
const SEARCH: readonly ListedTool[] = [
  {
    name: 'find',
    inputSchema: {
      type: 'object',
      properties: {
        query: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        limit: { type: ['integer', 'null'] },
        filters: { type: 'object', patternProperties: { '^x-': { type: 'string' } } },
        page: { type: 'integer', exclusiveMinimum: 0 },
      },
      required: ['query'],
    },
    outputSchema: {
      type: 'object',
      properties: { hits: { type: 'array', items: { $ref: '#/definitions/hit' } }, total: { type: 'integer' } },
      required: ['hits', 'total'],
      additionalProperties: false,
      definitions: { hit: { type: 'object', properties: { title: { type: 'string' } } } },
    },
  },
  { name: 'open', inputSchema: { anyOf: [{ type: 'object' }, { type: 'null' }] } },
  { name: 'unused', inputSchema: { type: 'object', properties: { q: { oneOf: [{ type: 'string' }] } } } },
];
const SEARCH_CONFIG = 'mcpServers:\n  search: { url: https://search.example.com/mcp }\n';

describe('what the checks cannot follow in a pinned schema', () => {
  const steps = (mapped: string) => `      - id: find
        tool: search/find
        inputs: { query: 42, limit: null, filters: { x-a: b }, page: 0 }
        on_success: { map_outputs: { "hits[0].title": title, ${mapped}: total } }
      - id: open
        tool: search/open
        inputs: { anything: '<< steps.find.hits[0].url >>', at: << state.total >> }
`;

  it('is taken as any value: a warning once per tool used, at the first such part in the lock, and no error', async () => {
    const lock = pinnedLock({ search: SEARCH });
    const { all } = await diagnose(flow(steps('total')), { config: SEARCH_CONFIG, lock });
    expect(
      all.map((d) => [d.severity, d.code, `${d.location!.file}:${d.location!.line}:${d.location!.column}`]),
    ).toEqual([
      ['warning', 'TG5024', where('toolgen.mcp-lock.json', lock, '"patternProperties"')],
      ['warning', 'TG5024', where('toolgen.mcp-lock.json', lock, '"anyOf"', 1)],
    ]);
    expect(all.map((d) => d.message)).toEqual([
      "the build's checks of 'search/find' skip patternProperties, a list of types, exclusiveMinimum, anyOf, $ref in its pinned schemas (inputSchema.properties.filters.patternProperties, inputSchema.properties.limit.type, inputSchema.properties.page.exclusiveMinimum and 2 more)",
      "the build's checks of 'search/open' skip anyOf in its pinned schemas (inputSchema.anyOf)",
    ]);
  });

  it('still checks what it can follow around them', async () => {
    const yaml = flow(steps('totl'));
    const { short } = await diagnose(yaml, { config: SEARCH_CONFIG, lock: pinnedLock({ search: SEARCH }) });
    expect(short.filter((line) => line.endsWith('TG5004'))).toEqual([`${where(FLOW, yaml, 'totl')} TG5004`]);
  });
});

describe('the lock', () => {
  it('a server declared and never pulled: an error at its entry in the config, and its calls are not reported again', async () => {
    const config =
      'mcpServers:\n  everything: { command: npx }\n  files: { command: npx }\n  memory: { command: npx }\n  search:\n    url: https://search.example.com/mcp\n';
    const yaml = flow(`${READ}      - { tool: search/find, inputs: { query: x } }\n`);
    const { short, all } = await diagnose(yaml, { config });
    expect(short).toEqual([`${where('toolgen.config.yaml', config, 'search')} TG1010`]);
    expect(all[0]!.hint).toContain('run npx toolgen mcp pull search');
  });

  it('no lock at all: each declared server is not pulled', async () => {
    const config = 'mcpServers:\n  files: { command: npx }\n  memory: { command: npx }\n';
    const { short } = await diagnose(flow(READ), { config, lock: null });
    expect(short).toEqual([
      `${where('toolgen.config.yaml', config, 'files')} TG1010`,
      `${where('toolgen.config.yaml', config, 'memory')} TG1010`,
    ]);
  });

  it('a pin edited by hand: an error at its hash, and the calls to it are not checked against it', async () => {
    const edited = FIXTURE_LOCK.replace(
      '"description": "Read the complete contents of a file from the file system as text.',
      '"description": "Reads a file.',
    );
    const start = edited.indexOf('"read_text_file": {');
    const hash = edited.indexOf('"hash": "', start) + '"hash": '.length;
    const { short, all } = await diagnose(flow(READ), { lock: edited });
    expect(short).toEqual([`${where('toolgen.mcp-lock.json', edited.slice(0, hash) + '\u0000', '\u0000')} TG1009`]);
    expect(all[0]!.message).toBe(
      "the pin of 'files/read_text_file' does not match its hash: the lock was edited by hand",
    );
  });

  it('a lock that is not JSON: one error where it stops being JSON, and nothing about the steps that call its servers', async () => {
    const broken = FIXTURE_LOCK.replace('"lockfileVersion": 1,', '"lockfileVersion": 1');
    const yaml = flow(`${READ}      - { tool: memory/read_graph }\n      - { tool: everything/nope }\n`);
    const { short, all } = await diagnose(yaml, { lock: broken });
    expect(short).toEqual([`${where('toolgen.mcp-lock.json', broken, '"servers"')} TG1008`]);
    expect(all[0]!.message).toMatch(/^toolgen\.mcp-lock\.json cannot be read: it is not JSON: /);
  });

  it('a lock from a newer toolgen: one error at its version', async () => {
    const newer = FIXTURE_LOCK.replace('"lockfileVersion": 1,', '"lockfileVersion": 7,');
    const { short, all } = await diagnose(flow(READ), { lock: newer });
    expect(short).toEqual([`${where('toolgen.mcp-lock.json', newer, '7')} TG1008`]);
    expect(all[0]!.message).toContain('its lockfileVersion is 7, written by a newer toolgen');
  });

  it('a pinned server no longer declared: a warning at its pin, and its tools cannot be called', async () => {
    const config = 'mcpServers:\n  files: { command: npx }\n';
    const yaml = flow(`${READ}      - { tool: memory/read_graph }\n`);
    const { short } = await diagnose(yaml, { config });
    expect(short).toEqual([
      `${where(FLOW, yaml, 'memory/read_graph')} TG2010`,
      `${where('toolgen.mcp-lock.json', FIXTURE_LOCK, '"everything"')} TG1011`,
      `${where('toolgen.mcp-lock.json', FIXTURE_LOCK, '"memory"')} TG1011`,
    ]);
  });
});

describe('names', () => {
  it('a local tool whose generated names are a remote tool’s is an identifier clash, at its name', async () => {
    const yaml = `name: files_read_text_file
description: a local tool
parameters:
  - { name: message, type: string, required: true }
implementation: { type: function, module: ./handlers.ts, export: echo }
examples:
  - { description: echoes, input: { message: hi } }
`;
    project = remoteProject({ 'config/tools/local.yaml': yaml });
    const { short, all } = await project.diagnoseRemote();
    expect(short).toEqual(['config/tools/local.yaml:1:7 TG2005']);
    expect(all[0]!.message).toBe(
      "tool 'files_read_text_file' and the tool 'files/read_text_file' of an MCP server would both generate the identifier 'filesReadTextFile'",
    );
  });

  it("two tools of a server that differ only in punctuation are told apart by a number, in the lock's order", async () => {
    const tool = (name: string): ListedTool => ({ name, inputSchema: { type: 'object' } });
    project = remoteProject(
      { [FLOW]: flow('      - { tool: srv/read_file }\n') },
      {
        config: 'mcpServers:\n  srv: { command: srv }\n',
        lock: pinnedLock({ srv: [tool('read_file'), tool('read-file')] }),
      },
    );
    const result = await (await project.remoteCompiler()).build();
    expect(result.diagnostics).toEqual([]);
    const module = result.files.find((file) => file.path.endsWith(path.join('servers', 'srv.ts')))!.content;
    expect(module).toContain(
      "export const srvReadFileDefinition = defineRemoteTool<SrvReadFileInput, SrvReadFileOutput>({\n  server: 'srv',\n  tool: 'read-file',",
    );
    expect(module).toContain(
      "export const srvReadFile2Definition = defineRemoteTool<SrvReadFile2Input, SrvReadFile2Output>({\n  server: 'srv',\n  tool: 'read_file',",
    );
  });

  it("a tool's name that is another's with a suffix the generated code adds (`b`, `b_definition`) is numbered, so no identifier is exported twice", async () => {
    const tool = (name: string): ListedTool => ({ name, inputSchema: { type: 'object' } });
    project = remoteProject(
      { [FLOW]: flow('      - { tool: hostile/b }\n') },
      {
        config: 'mcpServers:\n  hostile: { command: hostile }\n',
        lock: pinnedLock({ hostile: [tool('b'), tool('b_definition'), tool('b_input')] }),
      },
    );
    const result = await (await project.remoteCompiler()).build();
    expect(result.diagnostics).toEqual([]);
    const module = result.files.find((file) => file.path.endsWith(path.join('servers', 'hostile.ts')))!.content;
    const exported = [...module.matchAll(/^export (?:const|function|type) (\w+)/gm)].map((match) => match[1]);
    expect(new Set(exported).size).toBe(exported.length);
    expect(module).toContain(
      "export const hostileBDefinition = defineRemoteTool<HostileBInput, HostileBOutput>({\n  server: 'hostile',\n  tool: 'b',",
    );
    expect(module).toContain(
      'export function hostileBDefinition2(executor: ChainExecutor, params: HostileBDefinition2Input',
    );
  });
});

describe('a build after the lock changed', () => {
  const filesServer = (outputField: string): ListedTool[] => [
    {
      name: 'read_text_file',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      outputSchema: { type: 'object', properties: { [outputField]: { type: 'string' } }, additionalProperties: false },
    },
  ];
  const config = 'mcpServers:\n  files: { command: npx }\n';
  const yaml = flow(
    '      - id: read\n        tool: files/read_text_file\n        inputs: { path: << state.path >> }\n        on_success: { map_outputs: { content: note } }\n',
  );

  it('checks again the composites that call a tool whose pin changed, and only them', async () => {
    project = remoteProject({ [FLOW]: yaml }, { config, lock: pinnedLock({ files: filesServer('content') }) });
    const compiler = await project.remoteCompiler();
    expect((await compiler.build()).diagnostics).toEqual([]);
    project.write('toolgen.mcp-lock.json', pinnedLock({ files: filesServer('text') }));
    const after = await compiler.update([path.join(project.root, 'toolgen.mcp-lock.json')]);
    expect(
      after.diagnostics.map((d) => `${d.location!.file}:${d.location!.line}:${d.location!.column} ${d.code}`),
    ).toEqual([`${where(FLOW, yaml, 'content: note')} TG5004`]);
    project.write('toolgen.mcp-lock.json', pinnedLock({ files: filesServer('content') }));
    const mended = await compiler.update([path.join(project.root, 'toolgen.mcp-lock.json')]);
    expect(mended.diagnostics).toEqual([]);
    expect(mended.rebuilt).toEqual(['flow']);
  });

  it('sees a tool a pull added, that a step already called', async () => {
    const calls = flow('      - { tool: files/write_file, inputs: { path: << state.path >>, content: x } }\n');
    project = remoteProject({ [FLOW]: calls }, { config, lock: pinnedLock({ files: filesServer('content') }) });
    const compiler = await project.remoteCompiler();
    expect((await compiler.build()).diagnostics.map((d) => d.code)).toEqual(['TG2011']);
    const write: ListedTool = {
      name: 'write_file',
      inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } },
    };
    project.write('toolgen.mcp-lock.json', pinnedLock({ files: [...filesServer('content'), write] }));
    const after = await compiler.update([path.join(project.root, 'toolgen.mcp-lock.json')]);
    expect(after.diagnostics).toEqual([]);
    expect(after.files.some((file) => file.content.includes('filesWriteFileDefinition'))).toBe(true);
  });
});
