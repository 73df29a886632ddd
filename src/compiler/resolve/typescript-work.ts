/**
 * Everything toolgen asks of TypeScript (through ts-morph), in one module that only `typescript.ts`
 * loads: in the compiler's own thread, or in a worker thread that loads it while the YAML is parsed.
 * Inputs and results are plain data, so that they cross between threads as they are.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Node, Project, ts, type SourceFile } from 'ts-morph';
import type { HandlerCheck, HandlerSignature, HandlerTypeProblem, PendingCheck } from './handler-check.js';

const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

let syntaxOnly: Project | null = null;

/**
 * The names a module exports, read from its syntax (no type checker); 'unknown' when it re-exports
 * with `export *`, which only a whole program could list.
 */
export function listExports(file: string, text: string): ReadonlySet<string> | 'unknown' {
  syntaxOnly ??= new Project({
    skipAddingFilesFromTsConfig: true,
    skipFileDependencyResolution: true,
    compilerOptions: { allowJs: true },
  });
  const existing = syntaxOnly.getSourceFile(file);
  if (existing) syntaxOnly.removeSourceFile(existing);
  const source = syntaxOnly.createSourceFile(file, text, { overwrite: true });
  try {
    const names = new Set<string>();
    for (const fn of source.getFunctions()) if (fn.isExported() && fn.getName()) names.add(fn.getName()!);
    for (const statement of source.getVariableStatements()) {
      if (statement.isExported())
        for (const declaration of statement.getDeclarations()) names.add(declaration.getName());
    }
    for (const declaration of source.getExportDeclarations()) {
      if (!declaration.hasNamedExports()) return 'unknown';
      for (const specifier of declaration.getNamedExports())
        names.add(specifier.getAliasNode()?.getText() ?? specifier.getName());
    }
    return names;
  } finally {
    syntaxOnly.removeSourceFile(source);
  }
}

/** A generated module, checked as the app's compiler will check it. */
export interface EmittedModule {
  readonly file: string;
  readonly text: string;
}

/** A TypeScript error in a generated module: 1-based line and column. */
export interface ModuleProblem {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/**
 * Type-checks generated modules under `--strict`, in memory, the package names they import (`paths`)
 * resolved to the declarations this toolgen ships: what an app's `tsc` would say of them.
 */
export function checkModules(
  modules: readonly EmittedModule[],
  paths: Readonly<Record<string, string>>,
): ModuleProblem[] {
  const project = new Project({
    skipAddingFilesFromTsConfig: true,
    compilerOptions: {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      allowImportingTsExtensions: true,
      types: [],
      lib: ['lib.es2022.d.ts'],
      paths: Object.fromEntries(Object.entries(paths).map(([name, file]) => [name, [file]])),
    },
  });
  const sources = modules.map(({ file, text }) => project.createSourceFile(file, text, { overwrite: true }));
  const program = project.getProgram();
  return sources.flatMap((source) =>
    [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((found) => {
      const at = source.getLineAndColumnAtPos(found.getStart() ?? 0);
      return {
        file: source.getFilePath(),
        line: at.line,
        column: at.column,
        message: ts.flattenDiagnosticMessageText(found.compilerObject.messageText, ' '),
      };
    }),
  );
}

/** Lines of the probe whose errors say the input, or the output, does not match. */
const INPUT_LINE = 2;
const OUTPUT_LINE = 3;

/**
 * Checks each handler against its signature in one TypeScript program: a probe module beside the
 * handler assigns it to the handler type the generated module will need.
 */
export function checkSignatures(pending: readonly PendingCheck[]): [string, HandlerCheck][] {
  const project = new Project({
    useInMemoryFileSystem: false,
    skipAddingFilesFromTsConfig: true,
    compilerOptions: {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      allowJs: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      allowImportingTsExtensions: true,
      types: [],
      // No DOM: a handler runs in Node, and the DOM's declarations are most of a program's load time.
      lib: ['lib.es2022.d.ts'],
    },
  });
  const probes = pending.map(({ key, signature }, index) => {
    project.createSourceFile(signature.file, signature.text, { overwrite: true });
    const specifier = `./${path.basename(signature.file)}`;
    const probe = project.createSourceFile(
      path.join(path.dirname(signature.file), `__toolgen_handler_check_${index}__.ts`),
      probeText(signature, specifier),
      { overwrite: true },
    );
    return { key, signature, probe };
  });
  const program = project.getProgram();
  return probes.map(({ key, signature, probe }) => {
    const problems: HandlerTypeProblem[] = [];
    const handler = project.getSourceFileOrThrow(signature.file);
    for (const found of program.getSemanticDiagnostics(probe)) {
      const line = found.getLineNumber();
      const part = line === INPUT_LINE ? 'input' : line === OUTPUT_LINE ? 'output' : null;
      if (!part) continue;
      const messages = ts.flattenDiagnosticMessageText(found.compilerObject.messageText, '\n').split('\n');
      problems.push({
        part,
        detail: detailOf(messages),
        ...placeOf(handler, signature.exportName, part),
      });
    }
    const dependencies = importedFiles(handler).map((file) => ({
      file: path.relative(path.dirname(signature.file), file),
      hash: hash(readFileSync(file, 'utf8')),
    }));
    return [key, { problems, dependencies }];
  });
}

/** The project's own files a handler imports, directly or not (not its packages'). */
function importedFiles(handler: SourceFile): string[] {
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

function probeText(signature: HandlerSignature, specifier: string): string {
  return [
    `import { ${signature.exportName} as handler } from ${JSON.stringify(specifier)};`,
    `export const takes: (input: ${signature.inputName}, context: any) => unknown = handler;`,
    `export const gives: (input: any, context: any) => ${signature.outputName} | PromiseLike<${signature.outputName}> = handler;`,
    signature.declarations,
    '',
  ].join('\n');
}

/** Where in the handler a mismatch is: its first parameter (for the input), its return type (for the output), or else its name. */
function placeOf(
  file: SourceFile,
  exportName: string,
  part: 'input' | 'output',
): { line: number; column: number; length: number } {
  const declaration = file.getExportedDeclarations().get(exportName)?.[0];
  let fn: Node | undefined = declaration;
  if (declaration && Node.isVariableDeclaration(declaration)) fn = declaration.getInitializer();
  let at: Node | undefined;
  if (fn && (Node.isFunctionDeclaration(fn) || Node.isArrowFunction(fn) || Node.isFunctionExpression(fn))) {
    if (part === 'input') at = fn.getParameters()[0]?.getTypeNode() ?? fn.getParameters()[0];
    else at = fn.getReturnTypeNode();
  }
  at ??=
    declaration && 'getNameNode' in declaration
      ? (declaration as unknown as { getNameNode(): Node | undefined }).getNameNode()
      : undefined;
  at ??= declaration;
  if (!at) return { line: 1, column: 1, length: 1 };
  const start = file.getLineAndColumnAtPos(at.getStart());
  const firstLine = at.getText().split('\n')[0]!;
  return { line: start.line, column: start.column, length: Math.max(1, firstLine.length) };
}

/**
 * The last line of TypeScript's message chain, which says what differs, preceded by the field it
 * differs at when the chain went through properties (`'items.price': Type 'string' is not …`).
 */
function detailOf(messages: readonly string[]): string {
  const last = messages[messages.length - 1]!.trim().replace(/\.$/, '');
  const path: string[] = [];
  for (const message of messages) {
    const property = /Types of property '([^']+)' are incompatible/.exec(message);
    const dotted = /The types of '([^']+)' are incompatible/.exec(message);
    if (property) path.push(property[1]!);
    else if (dotted) path.push(dotted[1]!);
  }
  return path.length > 0 ? `at '${path.join('.')}': ${last}` : last;
}
