import { describe, expect, it } from 'vitest';
import {
  toProviderTools,
  validateToolCalls,
  validateToolDefinitions,
  type Provider,
} from '../../src/runtime/agents/providers.js';
import { defineTool, RuntimeUsageError, ToolRegistry, type ToolDefinition } from '../../src/runtime/index.js';

const NAME_RULE = 'name must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, _ and -, at most 64)';
const WEATHER_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

function definition(
  overrides: Partial<Pick<ToolDefinition, 'name' | 'description' | 'parameters'>> = {},
): ToolDefinition {
  return defineTool({
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: WEATHER_SCHEMA,
    implementation: { kind: 'function', handler: () => ({ celsius: 21 }) },
    ...overrides,
  });
}

describe('validateToolCalls: batches that pass', () => {
  it.each<[Provider, string, unknown[]]>([
    [
      'openai',
      'arguments as JSON text and as an object',
      [
        { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'call_2', name: 'get-time', arguments: {} },
      ],
    ],
    ['openai', 'a free-form id and a 64-character name', [{ id: 'call.1:x', name: 'a'.repeat(64), arguments: '{}' }]],
    [
      'anthropic',
      'ids of letters, digits, _ and -',
      [
        { id: 'toolu_01A-b', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'toolu_01B', name: 'get_time', arguments: {} },
      ],
    ],
    [
      'ollama',
      'no ids and any non-empty name',
      [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'weather.get', arguments: {} },
      ],
    ],
    ['ollama', 'an id when given', [{ id: 'call_1', name: 'get_weather', arguments: Object.create(null) }]],
    ['openai', 'an empty batch', []],
    ['anthropic', 'an empty batch', []],
    ['ollama', 'an empty batch', []],
  ])('%s accepts %s', (provider, _case, calls) => {
    expect(validateToolCalls(calls, provider)).toEqual({ valid: true, errors: [] });
  });
});

describe('validateToolCalls: each rule', () => {
  it.each<[Provider, string, unknown[], string[]]>([
    // every provider: the shape of a call
    [
      'openai',
      'a call that is not an object',
      [null],
      ['call 0: must be an object with a name and arguments, got null'],
    ],
    [
      'anthropic',
      'a call that is a string',
      ['get_weather'],
      ['call 0: must be an object with a name and arguments, got a string'],
    ],
    [
      'ollama',
      'a call that is an array',
      [[{ name: 'get_weather' }]],
      ['call 0: must be an object with a name and arguments, got an array'],
    ],
    [
      'openai',
      'a missing name',
      [{ id: 'call_1', arguments: {} }],
      ["call 0 (id 'call_1'): name must be a non-empty string, got nothing"],
    ],
    [
      'anthropic',
      'an empty name',
      [{ id: 'toolu_1', name: '', arguments: {} }],
      ["call 0 (id 'toolu_1'): name must be a non-empty string, got an empty string"],
    ],
    [
      'ollama',
      'a name that is a number',
      [{ name: 42, arguments: {} }],
      ['call 0: name must be a non-empty string, got a number'],
    ],

    // openai and anthropic: the name pattern
    [
      'openai',
      'a name with a space',
      [{ id: 'call_1', name: 'get weather', arguments: '{}' }],
      [`call 0 ('get weather', id 'call_1'): ${NAME_RULE}`],
    ],
    [
      'openai',
      'a 65-character name',
      [{ id: 'call_1', name: 'a'.repeat(65), arguments: {} }],
      [`call 0 ('${'a'.repeat(65)}', id 'call_1'): ${NAME_RULE}`],
    ],
    [
      'anthropic',
      'a name with a dot',
      [{ id: 'toolu_1', name: 'functions.get_weather', arguments: {} }],
      [`call 0 ('functions.get_weather', id 'toolu_1'): ${NAME_RULE}`],
    ],

    // openai: ids
    [
      'openai',
      'a missing id',
      [{ name: 'get_weather', arguments: '{}' }],
      ["call 0 ('get_weather'): id is required: a non-empty string, got nothing"],
    ],
    [
      'openai',
      'an empty id',
      [{ id: '', name: 'get_weather', arguments: '{}' }],
      ["call 0 ('get_weather'): id is required: a non-empty string, got an empty string"],
    ],
    [
      'openai',
      'an id that is a number',
      [{ id: 7, name: 'get_weather', arguments: '{}' }],
      ["call 0 ('get_weather'): id is required: a non-empty string, got a number"],
    ],
    [
      'openai',
      'an id used twice',
      [
        { id: 'call_1', name: 'get_weather', arguments: '{}' },
        { id: 'call_2', name: 'get_time', arguments: '{}' },
        { id: 'call_1', name: 'get_time', arguments: '{}' },
      ],
      ["call 2 ('get_time', id 'call_1'): id 'call_1' is also used by call 0; ids must be unique within the batch"],
    ],

    // anthropic: ids
    [
      'anthropic',
      'a missing id',
      [{ name: 'get_weather', arguments: {} }],
      ["call 0 ('get_weather'): id is required: a string matching ^[a-zA-Z0-9_-]+$, got nothing"],
    ],
    [
      'anthropic',
      'an id with a dot and a colon',
      [{ id: 'functions.get_weather:0', name: 'get_weather', arguments: {} }],
      [
        "call 0 ('get_weather', id 'functions.get_weather:0'): id must match ^[a-zA-Z0-9_-]+$ (letters, digits, _ and -)",
      ],
    ],
    [
      'anthropic',
      'an id used twice',
      [
        { id: 'toolu_1', name: 'get_weather', arguments: {} },
        { id: 'toolu_1', name: 'get_time', arguments: {} },
      ],
      ["call 1 ('get_time', id 'toolu_1'): id 'toolu_1' is also used by call 0; ids must be unique within the batch"],
    ],

    // ollama: ids are optional, but strings
    [
      'ollama',
      'an id that is a number',
      [{ id: 3, name: 'get_weather', arguments: {} }],
      ["call 0 ('get_weather'): id must be a string when given, got a number"],
    ],
    [
      'ollama',
      'a name with a blank',
      [{ name: 'get weather', arguments: {} }],
      ["call 0 ('get weather'): name must not contain whitespace"],
    ],

    // arguments
    [
      'openai',
      'arguments that are not JSON',
      [{ id: 'call_1', name: 'get_weather', arguments: '{city: Paris' }],
      [
        `call 0 ('get_weather', id 'call_1'): arguments is a string but not valid JSON; it must be a JSON object, e.g. '{"city":"Paris"}'`,
      ],
    ],
    [
      'openai',
      'arguments that are a JSON array',
      [{ id: 'call_1', name: 'get_weather', arguments: '["Paris"]' }],
      ["call 0 ('get_weather', id 'call_1'): arguments is JSON for an array; it must be a JSON object"],
    ],
    [
      'openai',
      'arguments that are JSON null',
      [{ id: 'call_1', name: 'get_weather', arguments: 'null' }],
      ["call 0 ('get_weather', id 'call_1'): arguments is JSON for null; it must be a JSON object"],
    ],
    [
      'openai',
      'missing arguments',
      [{ id: 'call_1', name: 'get_weather' }],
      ["call 0 ('get_weather', id 'call_1'): arguments must be an object or a JSON string of one, got nothing"],
    ],
    [
      'anthropic',
      'arguments as JSON text',
      [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      ["call 0 ('get_weather', id 'toolu_1'): arguments must be an object, not a string; Anthropic sends them parsed"],
    ],
    [
      'anthropic',
      'arguments that are an array',
      [{ id: 'toolu_1', name: 'get_weather', arguments: ['Paris'] }],
      ["call 0 ('get_weather', id 'toolu_1'): arguments must be an object, got an array"],
    ],
    [
      'ollama',
      'arguments as JSON text',
      [{ name: 'get_weather', arguments: '{"city":"Paris"}' }],
      ["call 0 ('get_weather'): arguments must be an object, not a string; Ollama sends them parsed"],
    ],
    [
      'ollama',
      'arguments that are a Date',
      [{ name: 'get_weather', arguments: new Date(0) }],
      ["call 0 ('get_weather'): arguments must be an object, got a Date"],
    ],

    // several problems: every one reported, call by call, in order
    [
      'openai',
      'three problems in one call and one in the next',
      [
        { name: 'get weather', arguments: 'nope' },
        { id: 'call_2', name: 'get_time', arguments: 5 },
      ],
      [
        `call 0 ('get weather'): ${NAME_RULE}`,
        "call 0 ('get weather'): id is required: a non-empty string, got nothing",
        `call 0 ('get weather'): arguments is a string but not valid JSON; it must be a JSON object, e.g. '{"city":"Paris"}'`,
        "call 1 ('get_time', id 'call_2'): arguments must be an object or a JSON string of one, got a number",
      ],
    ],
  ])('%s reports %s', (provider, _case, calls, errors) => {
    expect(validateToolCalls(calls, provider)).toEqual({ valid: false, errors });
  });
});

describe('validateToolCalls: known tools', () => {
  const registry = new ToolRegistry([definition(), definition({ name: 'get_time' })]);
  const names = new Set(['get_weather', 'get_time']);

  it.each<[Provider, string, ReadonlySet<string> | ToolRegistry, unknown, string[]]>([
    [
      'openai',
      'a misspelled name, from a set',
      names,
      { id: 'call_1', name: 'get_wether', arguments: '{}' },
      ["call 0 ('get_wether', id 'call_1'): no tool named 'get_wether' is known (did you mean 'get_weather'?)"],
    ],
    [
      'ollama',
      'a misspelled name, from a registry',
      registry,
      { name: 'get_tme', arguments: {} },
      ["call 0 ('get_tme'): no tool named 'get_tme' is known (did you mean 'get_time'?)"],
    ],
    [
      'anthropic',
      'a name like none of them',
      registry,
      { id: 'toolu_1', name: 'send_email', arguments: {} },
      ["call 0 ('send_email', id 'toolu_1'): no tool named 'send_email' is known"],
    ],
    ['anthropic', 'a known name', registry, { id: 'toolu_1', name: 'get_time', arguments: {} }, []],
  ])('%s: %s', (provider, _case, known, call, errors) => {
    expect(validateToolCalls([call], provider, known)).toEqual({ valid: errors.length === 0, errors });
  });
});

describe('validateToolDefinitions', () => {
  const long = (length: number) => 'd'.repeat(length);

  it.each<[Provider, string, ToolDefinition[], string[]]>([
    // definitions that pass
    ['openai', 'two distinct tools', [definition(), definition({ name: 'get-time' })], []],
    ['openai', 'a 1024-character description', [definition({ description: long(1024) })], []],
    ['anthropic', 'a 2000-character description', [definition({ description: long(2000) })], []],
    ['ollama', 'a dotted name and no description', [definition({ name: 'weather.get', description: '' })], []],

    // names
    ['openai', 'a name with a space', [definition({ name: 'get weather' })], [`tool 0 ('get weather'): ${NAME_RULE}`]],
    [
      'anthropic',
      'a 65-character name',
      [definition({ name: 'n'.repeat(65) })],
      [`tool 0 ('${'n'.repeat(65)}'): ${NAME_RULE}`],
    ],
    [
      'ollama',
      'a name with a space',
      [definition({ name: 'get weather' })],
      ["tool 0 ('get weather'): name must not contain whitespace"],
    ],
    [
      'openai',
      'an empty name',
      [definition({ name: '' })],
      ['tool 0: name must be a non-empty string, got an empty string'],
    ],
    [
      'ollama',
      'an empty name',
      [definition({ name: '' })],
      ['tool 0: name must be a non-empty string, got an empty string'],
    ],

    // duplicates, for every provider
    ...(['openai', 'anthropic', 'ollama'] as const).map((provider): [Provider, string, ToolDefinition[], string[]] => [
      provider,
      'a name used twice',
      [definition(), definition({ name: 'get_time' }), definition()],
      ["tool 2 ('get_weather'): name 'get_weather' is also used by tool 0; tool names must be unique"],
    ]),

    // descriptions
    [
      'openai',
      'an empty description',
      [definition({ description: '' })],
      ["tool 0 ('get_weather'): description must be non-empty; the model chooses tools by their description"],
    ],
    [
      'anthropic',
      'a blank description',
      [definition({ description: '   ' })],
      ["tool 0 ('get_weather'): description must be non-empty; the model chooses tools by their description"],
    ],
    [
      'openai',
      'a long description (OpenAI dropped its 1024-character limit)',
      [definition({ description: long(5000) })],
      [],
    ],

    // parameters
    [
      'openai',
      'parameters for an array',
      [definition({ parameters: { type: 'array', items: { type: 'string' } } })],
      [`tool 0 ('get_weather'): parameters must have type 'object' at the root, got "array"`],
    ],
    [
      'anthropic',
      'parameters without a type',
      [definition({ parameters: { properties: {} } })],
      ["tool 0 ('get_weather'): parameters must have type 'object' at the root, got no type"],
    ],
    [
      'ollama',
      'parameters that are null',
      [definition({ parameters: null as never })],
      ["tool 0 ('get_weather'): parameters must be a JSON Schema object, got null"],
    ],

    // several problems at once
    [
      'anthropic',
      'a bad name, no description and a string schema',
      [definition({ name: 'get.weather', description: '', parameters: { type: 'string' } })],
      [
        `tool 0 ('get.weather'): ${NAME_RULE}`,
        "tool 0 ('get.weather'): description must be non-empty; the model chooses tools by their description",
        `tool 0 ('get.weather'): parameters must have type 'object' at the root, got "string"`,
      ],
    ],
  ])('%s: %s', (provider, _case, definitions, errors) => {
    expect(validateToolDefinitions(definitions, provider)).toEqual({ valid: errors.length === 0, errors });
  });
});

describe('toProviderTools', () => {
  const weather = definition();
  const functionTool = {
    type: 'function',
    function: { name: 'get_weather', description: 'Current weather for a city', parameters: WEATHER_SCHEMA },
  };

  it.each<[Provider, unknown]>([
    ['openai', functionTool],
    ['anthropic', { name: 'get_weather', description: 'Current weather for a city', input_schema: WEATHER_SCHEMA }],
    ['ollama', functionTool],
  ])('%s gets its own tool format', (provider, expected) => {
    expect(toProviderTools([weather], provider)).toEqual([expected]);
  });

  it('keeps the order of the definitions', () => {
    const tools = toProviderTools([definition({ name: 'b' }), definition({ name: 'a' })], 'anthropic') as {
      name: string;
    }[];
    expect(tools.map((tool) => tool.name)).toEqual(['b', 'a']);
  });
});

describe('providers: an unknown provider', () => {
  it.each([
    ['validateToolCalls', () => validateToolCalls([], 'gemini' as Provider)],
    ['validateToolDefinitions', () => validateToolDefinitions([], 'gemini' as Provider)],
    ['toProviderTools', () => toProviderTools([], 'gemini' as Provider)],
  ])('%s throws a usage error naming the providers it knows', (_name, run) => {
    expect(run).toThrow(new RuntimeUsageError("unknown provider 'gemini'; expected 'openai', 'anthropic' or 'ollama'"));
  });
});
