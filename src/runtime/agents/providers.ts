/**
 * What OpenAI, Anthropic and Ollama accept in tool calls and tool definitions, checked before a call
 * is run or a definition is sent, so a bad name fails here with a sentence instead of as a 400 later.
 */
import { RuntimeUsageError } from '../errors.js';
import { ToolRegistry } from '../registry.js';
import { closestName, didYouMean } from '../../language/suggest.js';
import type { ToolDefinition } from '../tool.js';

export type Provider = 'openai' | 'anthropic' | 'ollama';

export interface ValidationReport {
  readonly valid: boolean;
  /** One sentence per problem, naming the call or tool by index. */
  readonly errors: readonly string[];
}

interface ProviderRules {
  readonly title: string;
  /** OpenAI and Anthropic reject names outside ^[a-zA-Z0-9_-]{1,64}$ with a 400; Ollama takes any name. */
  readonly strictNames: boolean;
  readonly ids: 'free-form' | 'restricted' | 'optional';
  /** OpenAI sends `arguments` as JSON text; the others send an object. */
  readonly argumentsAsJson: boolean;
  readonly requiresDescription: boolean;
}

const RULES: Readonly<Record<Provider, ProviderRules>> = {
  openai: { title: 'OpenAI', strictNames: true, ids: 'free-form', argumentsAsJson: true, requiresDescription: true },
  anthropic: {
    title: 'Anthropic',
    strictNames: true,
    ids: 'restricted',
    argumentsAsJson: false,
    requiresDescription: true,
  },
  ollama: { title: 'Ollama', strictNames: false, ids: 'optional', argumentsAsJson: false, requiresDescription: false },
};

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const NAME_RULE = 'name must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, _ and -, at most 64)';
const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * Checks tool calls, in the `{ id?, name, arguments }` shape of `callMany`, against a provider's
 * rules; with `known`, also that every name is a tool you have. Calls are numbered from 0.
 *
 * @example
 * validateToolCalls([{ id: 'call_1', name: 'get weather', arguments: '{}' }], 'openai')
 * // { valid: false, errors: ["call 0 ('get weather', id 'call_1'): name must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, _ and -, at most 64)"] }
 */
export function validateToolCalls(
  calls: readonly unknown[],
  provider: Provider,
  known?: ReadonlySet<string> | ToolRegistry,
): ValidationReport {
  const rules = rulesFor(provider);
  const knownNames = known instanceof ToolRegistry ? new Set(known.names()) : known;
  const errors: string[] = [];
  const firstWithId = new Map<string, number>();
  calls.forEach((call, index) => {
    if (!isPlainRecord(call)) {
      errors.push(`call ${index}: must be an object with a name and arguments, got ${kindOf(call)}`);
      return;
    }
    const { id, name } = call;
    const label = `call ${index}${describe([typeof name === 'string' && name !== '' ? `'${name}'` : '', typeof id === 'string' && id !== '' ? `id '${id}'` : ''])}`;
    const problems = [
      ...nameProblems(name, rules),
      ...idProblems(id, rules),
      ...argumentProblems(call['arguments'], rules),
    ];
    if (typeof name === 'string' && name !== '' && knownNames && !knownNames.has(name)) {
      const suggestion = closestName(name, [...knownNames]);
      problems.push(`no tool named '${name}' is known${suggestion ? ` (${didYouMean(suggestion)})` : ''}`);
    }
    if (rules.ids !== 'optional' && typeof id === 'string' && id !== '') {
      const first = firstWithId.get(id);
      if (first === undefined) firstWithId.set(id, index);
      else problems.push(`id '${id}' is also used by call ${first}; ids must be unique within the batch`);
    }
    for (const problem of problems) errors.push(`${label}: ${problem}`);
  });
  return { valid: errors.length === 0, errors };
}

/**
 * Checks tool definitions before they are sent to a provider: names, descriptions, a parameter
 * schema with `type: 'object'` at the root, and no name twice. Tools are numbered from 0.
 *
 * @example
 * validateToolDefinitions([weatherTool, weatherTool], 'anthropic')
 * // { valid: false, errors: ["tool 1 ('get_weather'): name 'get_weather' is also used by tool 0; tool names must be unique"] }
 */
export function validateToolDefinitions(definitions: readonly ToolDefinition[], provider: Provider): ValidationReport {
  const rules = rulesFor(provider);
  const errors: string[] = [];
  const firstWithName = new Map<string, number>();
  definitions.forEach((definition, index) => {
    const { name, description, parameters } = definition as Partial<Record<keyof ToolDefinition, unknown>>;
    const label = `tool ${index}${describe([typeof name === 'string' && name !== '' ? `'${name}'` : ''])}`;
    const problems = nameProblems(name, rules);
    if (typeof name === 'string' && name !== '') {
      const first = firstWithName.get(name);
      if (first === undefined) firstWithName.set(name, index);
      else problems.push(`name '${name}' is also used by tool ${first}; tool names must be unique`);
    }
    // The APIs accept an empty description, but the model picks tools by it: treat it as a mistake.
    if (rules.requiresDescription && (typeof description !== 'string' || description.trim() === '')) {
      problems.push('description must be non-empty; the model chooses tools by their description');
    }
    if (!isPlainRecord(parameters)) problems.push(`parameters must be a JSON Schema object, got ${kindOf(parameters)}`);
    else if (parameters['type'] !== 'object') {
      const root = parameters['type'];
      problems.push(
        `parameters must have type 'object' at the root, got ${root === undefined ? 'no type' : JSON.stringify(root)}`,
      );
    }
    for (const problem of problems) errors.push(`${label}: ${problem}`);
  });
  return { valid: errors.length === 0, errors };
}

/**
 * The definitions in the provider's `tools` request format. Does not validate: call
 * `validateToolDefinitions` first.
 *
 * @example
 * toProviderTools([weatherTool], 'anthropic')
 * // [{ name: 'get_weather', description: 'Current weather', input_schema: { type: 'object', … } }]
 */
export function toProviderTools(definitions: readonly ToolDefinition[], provider: Provider): unknown[] {
  rulesFor(provider);
  return definitions.map(({ name, description, parameters }) =>
    provider === 'anthropic'
      ? { name, description, input_schema: parameters }
      : { type: 'function', function: { name, description, parameters } },
  );
}

function rulesFor(provider: Provider): ProviderRules {
  // Callers in plain JavaScript can pass anything; a typo here is a programmer error, not a bad call.
  const rules = Object.hasOwn(RULES, provider) ? RULES[provider] : undefined;
  if (!rules)
    throw new RuntimeUsageError(`unknown provider '${String(provider)}'; expected 'openai', 'anthropic' or 'ollama'`);
  return rules;
}

function nameProblems(name: unknown, rules: ProviderRules): string[] {
  if (typeof name !== 'string' || name === '') return [`name must be a non-empty string, got ${kindOf(name)}`];
  // One rule for calls and definitions alike: the names a provider accepts.
  if (rules.strictNames) return NAME.test(name) ? [] : [NAME_RULE];
  return /\s/.test(name) ? ['name must not contain whitespace'] : [];
}

function idProblems(id: unknown, rules: ProviderRules): string[] {
  switch (rules.ids) {
    case 'optional':
      return id === undefined || typeof id === 'string' ? [] : [`id must be a string when given, got ${kindOf(id)}`];
    case 'free-form':
      return typeof id === 'string' && id !== '' ? [] : [`id is required: a non-empty string, got ${kindOf(id)}`];
    case 'restricted':
      if (typeof id !== 'string' || id === '')
        return [`id is required: a string matching ^[a-zA-Z0-9_-]+$, got ${kindOf(id)}`];
      return ANTHROPIC_ID.test(id) ? [] : ['id must match ^[a-zA-Z0-9_-]+$ (letters, digits, _ and -)'];
  }
}

function argumentProblems(args: unknown, rules: ProviderRules): string[] {
  if (isPlainRecord(args)) return [];
  if (typeof args !== 'string') {
    return [
      `arguments must be an object${rules.argumentsAsJson ? ' or a JSON string of one' : ''}, got ${kindOf(args)}`,
    ];
  }
  if (!rules.argumentsAsJson) return [`arguments must be an object, not a string; ${rules.title} sends them parsed`];
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return [`arguments is a string but not valid JSON; it must be a JSON object, e.g. '{"city":"Paris"}'`];
  }
  return isPlainRecord(parsed) ? [] : [`arguments is JSON for ${kindOf(parsed)}; it must be a JSON object`];
}

/** ` ('name', id 'x')` from the parts that are present, or nothing. */
function describe(parts: readonly string[]): string {
  const present = parts.filter((part) => part !== '');
  return present.length > 0 ? ` (${present.join(', ')})` : '';
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** How a wrong value reads in a message: `nothing`, `null`, `an array`, `a number`, `a Date`. */
function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (value === '') return 'an empty string';
  if (Array.isArray(value)) return 'an array';
  if (typeof value !== 'object') return `a ${typeof value}`;
  if (isPlainRecord(value)) return 'an object';
  const constructorName: unknown = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof constructorName === 'string' && constructorName !== '' ? `a ${constructorName}` : 'an object';
}
