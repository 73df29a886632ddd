/**
 * @toolgen/runtime/http: the connections through which API operations (`defineApiOperation`) call
 * the HTTP APIs they belong to, with Node's own fetch. The generated `createToolRegistry()` makes one
 * from `generated/apis.ts` when the project declares APIs. It builds on the runtime's public API only.
 */
export { HttpApis } from './apis.js';
export type { HttpApisOptions } from './apis.js';
export { DEFAULT_MAX_RESPONSE_BYTES } from './body.js';
export type { ApiSpec } from './spec.js';
