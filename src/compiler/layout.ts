/**
 * Where generated files go in the out dir: `tools/<slug>.ts`, `tests/<slug>.test.ts`,
 * `graphs/<slug>.md` (a composite's picture), `index.ts`; and, when the lock pins MCP servers,
 * `servers/<server-slug>.ts` (a server's tools) and `mcp-servers.ts` (how to reach them); when the API
 * lock pins APIs, `apis/<api-slug>.ts` (an API's operations) and `apis.ts` (how to reach them); and, for each
 * agent framework `adapters` names, `adapters/<framework>.ts` (every tool as that framework's tool).
 * One place, because lowering, the output plan and the build all need the same paths.
 */
import path from 'node:path';

export interface ToolPaths {
  /** The tool's module: types, definition, typed function. */
  readonly module: string;
  /** Its vitest file. */
  readonly test: string;
  /** Its picture, a Markdown file with a Mermaid flowchart (composites only). */
  readonly graph: string;
}

/** @example toolPaths('/p/generated', 'echo_tool').module // '/p/generated/tools/echo_tool.ts' */
export function toolPaths(outDir: string, fileSlug: string): ToolPaths {
  return {
    module: path.join(outDir, 'tools', `${fileSlug}.ts`),
    test: path.join(outDir, 'tests', `${fileSlug}.test.ts`),
    graph: path.join(outDir, 'graphs', `${fileSlug}.md`),
  };
}

/** @example indexPath('/p/generated') // '/p/generated/index.ts' */
export function indexPath(outDir: string): string {
  return path.join(outDir, 'index.ts');
}

/** @example serverModulePath('/p/generated', 'files') // '/p/generated/servers/files.ts' */
export function serverModulePath(outDir: string, serverSlug: string): string {
  return path.join(outDir, 'servers', `${serverSlug}.ts`);
}

/** @example mcpServersPath('/p/generated') // '/p/generated/mcp-servers.ts' */
export function mcpServersPath(outDir: string): string {
  return path.join(outDir, 'mcp-servers.ts');
}

/** @example apiModulePath('/p/generated', 'pets') // '/p/generated/apis/pets.ts' */
export function apiModulePath(outDir: string, apiSlug: string): string {
  return path.join(outDir, 'apis', `${apiSlug}.ts`);
}

/** @example apisPath('/p/generated') // '/p/generated/apis.ts' */
export function apisPath(outDir: string): string {
  return path.join(outDir, 'apis.ts');
}

/** @example adapterPath('/p/generated', 'ai-sdk') // '/p/generated/adapters/ai-sdk.ts' */
export function adapterPath(outDir: string, framework: string): string {
  return path.join(outDir, 'adapters', `${framework}.ts`);
}

/** A path relative to the project root, with forward slashes, as banners and messages show it. */
export function shownPath(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}
