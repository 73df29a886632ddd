/**
 * `@toolgen/runtime/studio`: the studio's pages as a handler of standard `Request`s, and that handler
 * as a `node:http` listener. No dependencies beyond the runtime's.
 */
export { createStudioHandler, hostAllowed } from './handler.js';
export type { StudioAction, StudioAnswer, StudioHandler, StudioOptions } from './handler.js';
export { toNodeListener } from './node.js';
export type { NodeListener } from './node.js';
