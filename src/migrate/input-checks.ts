/**
 * What the original never checked and toolgen does, at build time: that each example's input is
 * valid input for the tool, and that each parameter's default meets its own constraints. The
 * original's generator wrote examples from parameter names (`confirm: sample_confirm` for a
 * boolean) and defaults its constraints refuse; migrate keeps them as they were, since they are
 * the original's, and says where each is, with the words toolgen's checks use.
 */
import { isPlainObject } from '../language/json.js';
import { parametersSchema, shapeSchema } from '../compiler/resolve/parameters.js';
import { schemaErrors } from '../language/validation.js';
import { type Conversion, joinPath } from './conversion.js';

/** A converted parameter, as toolgen's schema builder reads it. */
type Parameter = Parameters<typeof parametersSchema>[0][number];

/** Where each parameter and example was in the old YAML, by output index. */
export interface InputOrigins {
  readonly parameters: readonly string[];
  readonly examples: readonly string[];
}

/**
 * Warns for every example input and parameter default toolgen will refuse.
 *
 * @example checkInputs(tool, conversion, { parameters: ['tool_params[0]'], examples: ['examples[0]'] })
 */
export function checkInputs(
  tool: Readonly<Record<string, unknown>>,
  conversion: Conversion,
  origins: InputOrigins,
): void {
  const parameters = ((tool['parameters'] as unknown[] | undefined) ?? []).filter(
    isPlainObject,
  ) as unknown as Parameter[];
  parameters.forEach((parameter, index) => {
    if (parameter.default === undefined) return;
    const problems = problemsOf(() => schemaErrors(shapeSchema(parameter), parameter.default, parameter.name));
    if (problems.length > 0)
      conversion.note(
        'warning',
        joinPath(origins.parameters[index] ?? `parameters[${index}]`, 'default'),
        `${JSON.stringify(parameter.default)} does not meet the parameter's own constraints (${problems.join('; ')}): a bug of the original, which never checked its defaults, that toolgen reports (TG5010); fix the default or the constraint`,
      );
  });
  const schema = parametersSchema(parameters);
  const examples = ((tool['examples'] as unknown[] | undefined) ?? []).filter(isPlainObject);
  examples.forEach((example, index) => {
    const problems = problemsOf(() => schemaErrors(schema, example['input'] ?? {}));
    if (problems.length > 0)
      conversion.note(
        'warning',
        joinPath(origins.examples[index] ?? `examples[${index}]`, 'input'),
        `not valid input for '${String(tool['name'])}' (${problems.join('; ')}): a bug of the original, which never checked its examples, that toolgen reports (TG5006); fix the input, or make it an error scenario`,
      );
  });
}

/** The problems found, or none when the schema itself cannot be compiled: toolgen reports that on its own. */
function problemsOf(check: () => string[]): string[] {
  try {
    return check();
  } catch {
    return [];
  }
}
