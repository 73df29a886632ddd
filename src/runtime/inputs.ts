/**
 * Step inputs compiled once per plan into resolvers, so a run only walks values and reads state.
 */
import type { JsonValue } from '../language/json.js';
import { parseTemplate } from '../language/template.js';
import { compileTemplate, UnresolvedReference, type TemplateScope } from './references.js';
import { RuntimeUsageError } from './errors.js';

export type InputResolver = (scope: TemplateScope) => unknown;

/**
 * For each resolver of an object, an object made the same way as the ones it makes. V8 keeps a hidden
 * class, and the optimised code that checks it (the tool's handler, its input validator), only while
 * some object has it; a tool's inputs rarely outlive its call, so without this that code would be
 * thrown away and optimised again after full collections.
 */
const shapes = new WeakMap<InputResolver, object>();

/**
 * @example compileInputs({ message: 'Hi << state.name >>' }, 'greet')({ state: { name: 'Ada' }, ... }) // { message: 'Hi Ada' }
 */
export function compileInputs(value: JsonValue, where: string, missing: 'fail' | 'null' = 'fail'): InputResolver {
  if (typeof value === 'string') {
    if (!value.includes('<<')) return () => value;
    const parsed = parseTemplate(value);
    if ('error' in parsed) throw new RuntimeUsageError(`${where}: ${parsed.error.message}`);
    if (parsed.parts.length === 1 && 'text' in parsed.parts[0]!) {
      const text = parsed.parts[0].text;
      return () => text;
    }
    const render = compileTemplate(parsed, where);
    if (missing === 'null' && parsed.whole) {
      return (scope) => {
        try {
          return render(scope);
        } catch (error) {
          if (
            error instanceof UnresolvedReference &&
            error.reference.root === 'steps' &&
            scope.steps.has(error.reference.step)
          )
            return null;
          throw error;
        }
      };
    }
    return render;
  }
  if (Array.isArray(value)) {
    const items = value.map((item, index) => compileInputs(item, `${where}[${index}]`, missing));
    return (scope) => items.map((item) => item(scope));
  }
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value);
    const items = keys.map((key) => compileInputs(value[key]!, `${where}.${key}`, missing));
    // Assigned, a `__proto__` key would replace the object's prototype: it is defined as a field.
    if (keys.includes('__proto__'))
      return (scope) => {
        const out: Record<string, unknown> = {};
        for (let i = 0; i < keys.length; i += 1)
          Object.defineProperty(out, keys[i]!, {
            value: items[i]!(scope),
            writable: true,
            enumerable: true,
            configurable: true,
          });
        return out;
      };
    const resolve = objectResolver(keys, items);
    const shape: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i += 1) shape[keys[i]!] = null;
    shapes.set(resolve, shape);
    return resolve;
  }
  return () => value;
}

/**
 * Makes an object of the keys, each value resolved in key order. One or two keys (most steps' inputs)
 * get a store of their own each, whose inline cache sees one key; more go through an indexed loop.
 */
function objectResolver(keys: readonly string[], items: readonly InputResolver[]): InputResolver {
  if (keys.length === 1) {
    const [key] = keys as [string];
    const [item] = items as [InputResolver];
    return (scope) => {
      const out: Record<string, unknown> = {};
      out[key] = item(scope);
      return out;
    };
  }
  if (keys.length === 2) {
    const [first, second] = keys as [string, string];
    const [one, other] = items as [InputResolver, InputResolver];
    return (scope) => {
      const out: Record<string, unknown> = {};
      out[first] = one(scope);
      out[second] = other(scope);
      return out;
    };
  }
  // Indexed loops, no destructuring: this runs once per attempt of every step.
  return (scope) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i += 1) out[keys[i]!] = items[i]!(scope);
    return out;
  };
}
