/**
 * The package generated code imports the runtime from. Apps install it as a production dependency
 * and toolgen (the CLI and compiler) as a development one, so a production install carries only the
 * runtime. `scripts/pack.mjs` names the runtime package after this constant; in this repository
 * `tsconfig.json` and `vitest.config.ts` map it to `src/runtime/index.ts`.
 */
export const RUNTIME_MODULE = '@toolgen/runtime';
