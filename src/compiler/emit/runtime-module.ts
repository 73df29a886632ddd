/**
 * The package generated code imports the runtime from. Apps install it as a production dependency
 * and toolgen (the CLI and compiler) as a development one, so a production install carries only the
 * runtime. `scripts/pack.mjs` names the runtime package after this constant; in this repository
 * `tsconfig.json` and `vitest.config.ts` map it to `src/runtime/index.ts`.
 */
export const RUNTIME_MODULE = '@toolgen/runtime';

/** Where generated code finds the MCP client that reaches other servers: only an app whose lock pins some imports it. */
export const MCP_CLIENT_MODULE = `${RUNTIME_MODULE}/mcp-client`;

/** Where generated code finds the connections to HTTP APIs: only an app whose API lock pins some imports it. */
export const HTTP_MODULE = `${RUNTIME_MODULE}/http`;
