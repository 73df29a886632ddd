/**
 * @toolgen/runtime/mcp-client: the connections through which remote tools (`defineRemoteTool`) call
 * the MCP servers they live on, with the official MCP client (v2), over stdio or Streamable HTTP.
 * The generated `createToolRegistry()` imports it only when the lock pins servers, so an app that
 * calls no remote tool never loads the MCP SDK. It builds on the runtime's public API only.
 */
export { McpServers } from './servers.js';
export type { McpServersOptions } from './servers.js';
export type { McpServerSpec } from '../declare/spec.js';
