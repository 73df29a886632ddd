/**
 * @toolgen/runtime/mcp: serves a registry's tools (atomic and composite) as an MCP server, over stdio or
 * Streamable HTTP, with the official SDK. It builds on the runtime's public API only.
 */
export { toolServerFactory } from './tools.js';
export type { McpCaller, ToolServerOptions } from './tools.js';
export { toolResult } from './results.js';
export { serveHttp, serveStdio } from './serve.js';
export type { HttpServerHandle, HttpServerOptions, StdioServerHandle } from './serve.js';
export { sha256, staticTokens } from './auth.js';
export type { HttpAuthOptions, StaticToken } from './auth.js';
