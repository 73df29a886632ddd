/**
 * The CLI's long messages, worded in one place: each a function of what varies, so a call site reads
 * as what went wrong (`messages.studioNeedsToken(host, userId, MIN_TOKEN_LENGTH)`) and the words
 * users read, and the README quotes, are found and kept together.
 */
export const messages = {
  /** The app's package.json lacks the MCP client the generated index now imports. */
  mcpClientNotListed: (manifest: string, mcpClient: string) =>
    `toolgen: warning: ${manifest} does not list ${mcpClient} in dependencies, and the generated index imports it now that the lock pins servers: the app fails in production (npm install --omit=dev) with Cannot find package '${mcpClient}'; run npm install ${mcpClient}`,

  /** The studio on a host other machines may reach, with no token. */
  studioNeedsToken: (host: string, userId: string, minLength: number) =>
    `--host ${host} is not a loopback address: other machines may reach it, and it acts as '${userId}'; give a token of your own (TOOLGEN_STUDIO_TOKEN, or --token), at least ${minLength} characters, that every browser signs in with`,

  /** Generated code under a package.json that makes Node read it as CommonJS. */
  notModuleType: (file: string, manifest: string) =>
    `${file} is generated code, ES modules, and ${manifest} does not say "type": "module" (so Node reads .ts and .js files in it as CommonJS): the app's package.json needs "type": "module" (npm pkg set type=module)`,

  /** Generated code with no package.json above it. */
  noModulePackage: (file: string) =>
    `${file} is generated code, ES modules, and no package.json above it says "type": "module": the app needs a package.json with "type": "module" (npm init -y && npm pkg set type=module)`,

  /** `toolgen serve` on a host other machines may reach, with no tokens. */
  serveNeedsTokens: (host: string, tokensEnv: string) =>
    `--host ${host} would serve every tool, with the permissions of --permissions, to anyone who reaches the port: give tokens (--tokens FILE or ${tokensEnv}), or --allow-unauthenticated to do it anyway`,

  /** `toolgen serve --allow-unauthenticated` on such a host. */
  servingUnauthenticated: (host: string, userId: string) =>
    `toolgen: warning: serving on ${host} without authentication (--allow-unauthenticated): anyone who reaches the port calls the tools as '${userId}'`,

  /** A served tool with a wait step, served without a store. */
  waitsWithoutStore: (tool: string, step: string) =>
    `toolgen: note: '${tool}' waits for a signal at step '${step}'; without --store DIR such a call reports an error instead of waiting`,
};
