/**
 * What a build refuses in a lock, each at its place there with a code and a hint, never a crash or a
 * thrown error: schemas nested deeper than toolgen pins (at any depth), schemas ajv cannot compile, and
 * names with control characters.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pinnedLock, remoteProject, type ListedTool, type RemoteProject } from '../helpers/mcp.js';
import { seededRandom } from '../helpers/random.js';

let project: RemoteProject | null = null;
afterEach(() => project?.dispose());

const CONFIG = 'mcpServers:\n  srv: { command: srv }\n';
const FLOW = 'config/tools/flow.yaml';
const flow = (tool: string) =>
  `name: flow\ndescription: calls a remote tool\nimplementation:\n  type: composite\n  composite:\n    steps:\n      - { tool: ${JSON.stringify(tool)} }\n`;

/** The diagnostics of a build of a project calling `srv/<first tool>`, with the lock pinning these tools. */
async function diagnose(tools: readonly ListedTool[]) {
  project = remoteProject(
    { [FLOW]: flow(`srv/${tools[0]!.name}`) },
    { config: CONFIG, lock: pinnedLock({ srv: tools }) },
  );
  const { all } = await project.diagnoseRemote();
  return all.map((d) => ({
    at: d.location ? `${d.location.file}:${d.location.line}:${d.location.column}` : '-',
    code: d.code,
    message: d.message,
    hint: d.hint,
  }));
}

/** A schema nested `levels` deep, each level a property of the one before (levels odd). */
const nested = (levels: number): Record<string, unknown> => {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let level = 1; level < levels; level += 2) schema = { type: 'object', properties: { x: schema } };
  return schema;
};

/**
 * A lock on one line pinning `srv/deep`, whose inputSchema nests `levels` deep (each `not` in the one
 * before), and the column where its 65th level starts. Written as text: a pull could not write it, nor
 * JSON.stringify; its hash is not checked before its depth.
 */
function deepLock(levels: number): { lock: string; column: number } {
  const level = '{"type":"object","not":';
  const schema = `${level.repeat(levels - 1)}{"type":"object"}${'}'.repeat(levels - 1)}`;
  const head =
    '{"lockfileVersion":1,"servers":{"srv":{"serverInfo":{"name":"srv","version":"1"},"tools":{"deep":{"hash":"sha256:0","name":"deep","inputSchema":';
  return { lock: `${head}${schema}}}}}}\n`, column: head.length + 64 * level.length + 1 };
}

const TOO_DEEP = {
  code: 'TG1012',
  message: "the pin of 'srv/deep' nests its inputSchema more than 64 levels deep",
  hint: 'toolgen pins schemas at most 64 levels deep (npx toolgen mcp pull refuses deeper ones): ask for a flatter schema, or remove the server from mcpServers',
};

describe('a pin nested too deep', () => {
  it('63 levels deep, one property in another, is built, its types printed', async () => {
    project = remoteProject(
      { [FLOW]: flow('srv/deep') },
      { config: CONFIG, lock: pinnedLock({ srv: [{ name: 'deep', inputSchema: nested(63) }] }) },
    );
    const result = await (await project.remoteCompiler()).build();
    expect(result.diagnostics).toEqual([]);
    const module = result.files.find((file) => file.path.endsWith('srv.ts'))!.content;
    expect(module.match(/x\?: \{/g)).toHaveLength(30);
  });

  it('65 levels deep is TG1012 at the object that goes past 64', async () => {
    const lock = pinnedLock({ srv: [{ name: 'deep', inputSchema: nested(65) }] });
    const found = await diagnose([{ name: 'deep', inputSchema: nested(65) }]);
    // The 65th level: the 32nd nested `x` (the inputSchema is the first level, each property two more).
    let offset = -1;
    for (let n = 0; n < 32; n += 1) offset = lock.indexOf('"x": {', offset + 1);
    const before = lock.slice(0, offset + '"x": '.length).split('\n');
    expect(found).toEqual([{ at: `toolgen.mcp-lock.json:${before.length}:${before.at(-1)!.length + 1}`, ...TOO_DEEP }]);
  });

  it.each([65, 1000, 10_000])(
    '%i levels deep, written by hand, is TG1012 where it goes past 64, never a crash',
    async (levels) => {
      const { lock, column } = deepLock(levels);
      project = remoteProject({ [FLOW]: flow('srv/deep') }, { config: CONFIG, lock });
      const { all } = await project.diagnoseRemote();
      expect(
        all.map((d) => ({
          at: `${d.location?.file}:${d.location?.line}:${d.location?.column}`,
          code: d.code,
          message: d.message,
          hint: d.hint,
        })),
      ).toEqual([{ at: `toolgen.mcp-lock.json:1:${column}`, ...TOO_DEEP }]);
    },
  );
});

describe('a pinned schema ajv cannot compile', () => {
  const property = (schema: Record<string, unknown>) => ({
    type: 'object',
    properties: { q: schema },
  });
  it.each([
    [
      'a type no JSON Schema has',
      { inputSchema: property({ type: 'strin' }) },
      '"strin"',
      "the inputSchema pinned for 'srv/odd' is not a schema toolgen can compile: properties.q.type must be equal to one of the allowed values",
    ],
    [
      'a pattern that is no regular expression',
      { inputSchema: property({ type: 'string', pattern: '(' }) },
      '"("',
      "the inputSchema pinned for 'srv/odd' is not a schema toolgen can compile: properties.q.pattern: Invalid regular expression: /(/u: Unterminated group",
    ],
    [
      'a pattern the linear-time engine cannot run, in the outputSchema',
      {
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object', patternProperties: { '^(?=a)': { type: 'string' } } },
      },
      '"^(?=a)"',
      "the outputSchema pinned for 'srv/odd' is not a schema toolgen can compile: patternProperties.^(?=a): error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
    ],
  ])('%s is TG1013 where it is in the lock', async (_, schemas, needle, message) => {
    const tool = { name: 'odd', ...schemas } as ListedTool;
    const lock = pinnedLock({ srv: [tool] });
    const found = await diagnose([tool]);
    const before = lock.slice(0, lock.indexOf(needle)).split('\n');
    expect(found).toEqual([
      {
        at: `toolgen.mcp-lock.json:${before.length}:${before.at(-1)!.length + 1}`,
        code: 'TG1013',
        message,
        hint: 'every call of the tool is checked against it, so none could run: ask for the schema to be fixed and pull again, or remove the server from mcpServers',
      },
    ]);
  });
});

describe('a pinned name with a control character', () => {
  const HINT =
    'names become identifiers, types and messages, and such a character would drive a terminal or disguise code: ask for the name to be changed and pull again, or remove the server from mcpServers';
  it.each([
    ['a tool name with ESC', { name: 'wipe\u001b[2J', inputSchema: { type: 'object' } }, 'the tool', 'wipe\\u001b[2J'],
    [
      'a property name with a right-to-left override',
      { name: 'odd', inputSchema: { type: 'object', properties: { ['admin\u202e']: { type: 'string' } } } },
      'a property',
      'admin\\u202e',
    ],
    [
      'a nested property name of the output with CR',
      {
        name: 'odd',
        inputSchema: { type: 'object' },
        outputSchema: {
          type: 'object',
          properties: { a: { type: 'array', items: { type: 'object', properties: { ['ok\rno']: {} } } } },
        },
      },
      'a property',
      'ok\\rno',
    ],
  ])('%s is TG1014 at the name in the lock, shown escaped', async (_, tool, what, shown) => {
    const lock = pinnedLock({ srv: [tool as ListedTool] });
    const found = await diagnose([tool as ListedTool]);
    // JSON writes the name with its escapes: that is where it is in the lock's text.
    const escaped = JSON.stringify(
      shown.replaceAll('\\u001b', '\u001b').replaceAll('\\u202e', '\u202e').replaceAll('\\r', '\r'),
    );
    const offset = lock.indexOf(escaped, lock.indexOf('"tools"'));
    const before = lock.slice(0, offset).split('\n');
    expect(found).toEqual([
      {
        at: `toolgen.mcp-lock.json:${before.length}:${before.at(-1)!.length + 1}`,
        code: 'TG1014',
        message: `the pin of 'srv/${tool.name.replaceAll('\u001b', '\\u001b')}' names ${what} '${shown}', which holds a control character or a bidirectional override`,
        hint: HINT,
      },
    ]);
  });
});

describe('names a server gives its tools', () => {
  // What a derived identifier is made of: words the generated code adds, and what an identifier drops.
  const PARTS = [
    'b',
    '_definition',
    '_input',
    '_output',
    '_params',
    '_result',
    '_state',
    'Definition',
    '-',
    '_',
    '2',
    '_2',
    'delete',
    '_tool',
    'remote_tool',
    'run_options',
    'chain_executor',
  ];

  it('never make one module, or the index that re-exports them all, export an identifier twice (seeded)', async () => {
    const next = seededRandom(30_4);
    const names = new Set<string>();
    while (names.size < 60) {
      let name = '';
      for (let n = 1 + Math.floor(next() * 4); n > 0; n -= 1) name += PARTS[Math.floor(next() * PARTS.length)];
      if (/^[A-Za-z]/.test(name)) names.add(name);
    }
    const tools = [...names].map((name): ListedTool => ({ name, inputSchema: { type: 'object' } }));
    // Two servers whose names run into their tools' (`hostile` + `b_x`, `hostile_b` + `x`).
    const half = Math.floor(tools.length / 2);
    project = remoteProject(
      { [FLOW]: flow(`hostile/${tools[0]!.name}`) },
      {
        config: 'mcpServers:\n  hostile: { command: h }\n  hostile_b: { command: h }\n',
        lock: pinnedLock({ hostile: tools.slice(0, half), hostile_b: tools.slice(half) }),
      },
    );
    const result = await (await project.remoteCompiler()).build();
    expect(result.diagnostics).toEqual([]);
    const exported = result.files
      .filter((file) => /servers[\\/][^\\/]+\.ts$|tools[\\/][^\\/]+\.ts$/.test(file.path))
      .flatMap((file) =>
        [...file.content.matchAll(/^export (?:const|function|type) (\w+)/gm)].map((match) => match[1]!),
      );
    const twice = exported.filter((name, index) => exported.indexOf(name) !== index);
    expect(twice).toEqual([]);
    expect(exported.length).toBeGreaterThan(4 * 60);
  });
});
