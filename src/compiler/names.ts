/**
 * Names derived from a tool's `name` for the generated code: `gmail_search_messages` becomes the
 * function `gmailSearchMessages`, the types `GmailSearchMessages…` and the file `gmail_search_messages.ts`.
 * Tool names may hold any character; what cannot appear in an identifier becomes a word break.
 */
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in ' +
    'instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package ' +
    'private protected public await arguments eval undefined NaN Infinity ' +
    // What the generated module, index and test declare or import themselves: a tool's function of the same name would clash or be shadowed.
    'defineTool plan executor params options generatedTools remoteTools apiOperations httpApis createToolRegistry describe expect it createTestExecutor result output context first history audited'
  ).split(' '),
);

function words(name: string): string[] {
  const parts = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  if (parts.length > 0) return parts.flatMap((part) => part.split(/(?<=[a-z0-9])(?=[A-Z])/));
  // Nothing ASCII to go on: spell the code points so the name is still stable and unique.
  return ['tool', ...[...name].map((char) => char.codePointAt(0)!.toString(16))];
}

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();

export interface DerivedNames {
  /** The tool's function: `gmailSearchMessages`. */
  readonly functionName: string;
  /** Prefix of its types and definition: `GmailSearchMessages`. */
  readonly typeName: string;
  /** File name without extension: `gmail_search_messages`. */
  readonly fileSlug: string;
}

/** @example deriveNames('gmail_search_messages').functionName // 'gmailSearchMessages' */
export function deriveNames(name: string): DerivedNames {
  const parts = words(name);
  let typeName = parts.map(capitalize).join('');
  if (/^\d/.test(typeName)) typeName = `Tool${typeName}`;
  let functionName = typeName.charAt(0).toLowerCase() + typeName.slice(1);
  if (RESERVED.has(functionName)) functionName = `${functionName}Tool`;
  const fileSlug = parts.map((part) => part.toLowerCase()).join('_');
  return { functionName, typeName, fileSlug };
}

/** What a tool's module exports after its type name: a local tool's `Params`, `Result`, `Input`, `State`; a remote one's `Input`, `Output`. */
const TYPE_SUFFIXES = ['Params', 'Result', 'Input', 'State', 'Output'] as const;

/**
 * Every identifier the generated code may export for a tool (its function, its definition, its types),
 * which no other tool may have: the index re-exports every module, so two of one name break it.
 *
 * @example identifiersOf(deriveNames('b')) // ['b', 'bDefinition', 'BParams', 'BResult', 'BInput', 'BState', 'BOutput']
 */
export function identifiersOf(names: DerivedNames): string[] {
  const { functionName, typeName } = names;
  return [functionName, `${functionName}Definition`, ...TYPE_SUFFIXES.map((suffix) => typeName + suffix)];
}
