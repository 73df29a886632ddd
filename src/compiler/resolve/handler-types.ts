/**
 * Whether a function tool's handler takes and returns what its YAML says, asked of TypeScript's type
 * checker (ts-morph): a probe module beside the handler assigns it to the handler type the generated
 * module will need. A pure function of the handler's text (and what it imports) and the signature, so
 * results are cached by `handlerCheckKey`; ts-morph is imported only when something must be checked.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** One handler to check: where it is, its text, and the types the YAML gives it (declarations of `inputName` and `outputName`). */
export interface HandlerSignature {
  readonly file: string;
  readonly text: string;
  readonly exportName: string;
  readonly inputName: string;
  readonly outputName: string;
  readonly declarations: string;
}

/** A mismatch, with the deepest line of TypeScript's explanation and where in the handler it is. */
export interface HandlerTypeProblem {
  readonly part: 'input' | 'output';
  readonly detail: string;
  /** 1-based, in `file`. */
  readonly line: number;
  readonly column: number;
  readonly length: number;
}

/** What a check found, and the files (other than the handler) it read: a change to one makes the result stale. */
export interface HandlerCheck {
  readonly problems: readonly HandlerTypeProblem[];
  /** Paths relative to the handler's folder. */
  readonly dependencies: readonly { readonly file: string; readonly hash: string }[];
}

/** Results by `handlerCheckKey`; a build cache may hold them across runs. */
export type HandlerCheckCache = Map<string, HandlerCheck>;

const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/**
 * The cache key of a check: the handler's path and text, its export, and the types it is held to.
 *
 * @example handlerCheckKey(signature) // '3f1c…' (32 hex digits)
 */
export function handlerCheckKey(signature: HandlerSignature): string {
  // Not the path: the same handler text checks the same anywhere, as long as what it imports (relative to it) is the same.
  return hash(JSON.stringify([path.basename(signature.file), signature.text, signature.exportName, signature.declarations]));
}

/** Results shared by every compiler in the process: they depend only on contents, never on which build asked. */
export const sharedHandlerChecks: HandlerCheckCache = new Map();

/** How many results a cache keeps: every handler edit in a long watch makes a new key. */
export const MAX_HANDLER_CHECKS = 500;

/**
 * Keeps a result, least recently used first, forgetting the oldest past `max`.
 *
 * @example remember(cache, key, check) // cache.size <= MAX_HANDLER_CHECKS
 */
export function remember(cache: HandlerCheckCache, key: string, check: HandlerCheck, max = MAX_HANDLER_CHECKS): void {
  cache.delete(key);
  cache.set(key, check);
  for (const oldest of cache.keys()) {
    if (cache.size <= max) break;
    cache.delete(oldest);
  }
}

/** Whether a cached result still holds for this handler: the files it imports are as they were. */
function fresh(check: HandlerCheck, handlerFile: string): boolean {
  return check.dependencies.every((dependency) => {
    try {
      return hash(readFileSync(path.resolve(path.dirname(handlerFile), dependency.file), 'utf8')) === dependency.hash;
    } catch {
      return false;
    }
  });
}

/**
 * Checks handlers against their signatures, reusing cached results; one TypeScript program for all the
 * handlers that need checking.
 *
 * @example (await checkHandlerTypes([signature], new Map())).get(handlerCheckKey(signature))?.problems
 */
export async function checkHandlerTypes(signatures: readonly HandlerSignature[], cache: HandlerCheckCache): Promise<Map<string, HandlerCheck>> {
  const results = new Map<string, HandlerCheck>();
  const pending: { key: string; signature: HandlerSignature }[] = [];
  for (const signature of signatures) {
    const key = handlerCheckKey(signature);
    const cached = cache.get(key);
    if (cached && fresh(cached, signature.file)) {
      remember(cache, key, cached);
      results.set(key, cached);
    } else if (!pending.some((p) => p.key === key)) pending.push({ key, signature });
  }
  if (pending.length === 0) return results;
  const morph = await import('ts-morph');
  const project = new morph.Project({
    useInMemoryFileSystem: false,
    skipAddingFilesFromTsConfig: true,
    compilerOptions: {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      allowJs: true,
      target: morph.ts.ScriptTarget.ES2022,
      module: morph.ts.ModuleKind.ESNext,
      moduleResolution: morph.ts.ModuleResolutionKind.Bundler,
      allowImportingTsExtensions: true,
      types: [],
      // No DOM: a handler runs in Node, and the DOM's declarations are most of a program's load time.
      lib: ['lib.es2022.d.ts'],
    },
  });
  const probes = pending.map(({ key, signature }, index) => {
    project.createSourceFile(signature.file, signature.text, { overwrite: true });
    const specifier = `./${path.basename(signature.file)}`;
    const probe = project.createSourceFile(path.join(path.dirname(signature.file), `__toolgen_handler_check_${index}__.ts`), probeText(signature, specifier), { overwrite: true });
    return { key, signature, probe };
  });
  const program = project.getProgram();
  for (const { key, signature, probe } of probes) {
    const problems: HandlerTypeProblem[] = [];
    const handler = project.getSourceFileOrThrow(signature.file);
    for (const found of program.getSemanticDiagnostics(probe)) {
      const line = found.getLineNumber();
      const part = line === INPUT_LINE ? 'input' : line === OUTPUT_LINE ? 'output' : null;
      if (!part) continue;
      const messages = morph.ts.flattenDiagnosticMessageText(found.compilerObject.messageText, '\n').split('\n');
      problems.push({ part, detail: messages[messages.length - 1]!.trim().replace(/\.$/, ''), ...placeOf(morph, handler, signature.exportName, part) });
    }
    const dependencies = importedFiles(handler).map((file) => ({ file: path.relative(path.dirname(signature.file), file), hash: hash(readFileSync(file, 'utf8')) }));
    const check = { problems, dependencies };
    remember(cache, key, check);
    results.set(key, check);
  }
  return results;
}

/** The project's own files a handler imports, directly or not (not its packages'). */
function importedFiles(handler: import('ts-morph').SourceFile): string[] {
  const seen = new Set<string>([handler.getFilePath()]);
  const queue = [handler];
  while (queue.length > 0) {
    for (const file of queue.pop()!.getReferencedSourceFiles()) {
      const name = file.getFilePath();
      if (seen.has(name) || name.includes('/node_modules/')) continue;
      seen.add(name);
      queue.push(file);
    }
  }
  seen.delete(handler.getFilePath());
  return [...seen].sort();
}

/** Lines of the probe whose errors say the input, or the output, does not match. */
const INPUT_LINE = 2;
const OUTPUT_LINE = 3;

function probeText(signature: HandlerSignature, specifier: string): string {
  return [
    `import { ${signature.exportName} as handler } from ${JSON.stringify(specifier)};`,
    `export const takes: (input: ${signature.inputName}, context: any) => unknown = handler;`,
    `export const gives: (input: any, context: any) => ${signature.outputName} | PromiseLike<${signature.outputName}> = handler;`,
    signature.declarations,
    '',
  ].join('\n');
}

type Morph = typeof import('ts-morph');
type Node = import('ts-morph').Node;

/** Where in the handler a mismatch is: its first parameter (for the input), its return type (for the output), or else its name. */
function placeOf(morph: Morph, file: import('ts-morph').SourceFile, exportName: string, part: 'input' | 'output'): { line: number; column: number; length: number } {
  const declaration = file.getExportedDeclarations().get(exportName)?.[0];
  let fn: Node | undefined = declaration;
  if (declaration && morph.Node.isVariableDeclaration(declaration)) fn = declaration.getInitializer();
  let at: Node | undefined;
  if (fn && (morph.Node.isFunctionDeclaration(fn) || morph.Node.isArrowFunction(fn) || morph.Node.isFunctionExpression(fn))) {
    if (part === 'input') at = fn.getParameters()[0]?.getTypeNode() ?? fn.getParameters()[0];
    else at = fn.getReturnTypeNode();
  }
  at ??= declaration && 'getNameNode' in declaration ? (declaration as unknown as { getNameNode(): Node | undefined }).getNameNode() : undefined;
  at ??= declaration;
  if (!at) return { line: 1, column: 1, length: 1 };
  const start = file.getLineAndColumnAtPos(at.getStart());
  const text = at.getText();
  const firstLine = text.split('\n')[0]!;
  return { line: start.line, column: start.column, length: Math.max(1, firstLine.length) };
}
