/**
 * The runtime's long messages, worded in one place: each a function of what varies, so a call site
 * reads as what went wrong (`messages.planChanged(tool, runId, then, now)`) and the words users read,
 * and the README quotes, are found and kept together.
 */
export const messages = {
  /** A remote tool's output no longer fits the outputSchema the lock pinned. */
  remoteOutputMismatch: (tool: string, server: string, remoteTool: string) =>
    `'${tool}' returned output that does not match the outputSchema pinned for it: the server '${server}' broke the output schema of '${remoteTool}' that \`toolgen mcp pull\` pinned (\`toolgen mcp diff\` shows whether the server changed that schema since)`,

  /** A remote tool called through a registry made without connections. */
  noServerConnections: (server: string, tool: string) =>
    `'${server}/${tool}' is a tool of the MCP server '${server}', and the registry has no connections to servers: build it with createToolRegistry() from the generated index (or pass \`servers\` to new ToolRegistry)`,

  /** What resuming a run anyway takes, after `planChanged`. (The CLI words its own flag instead.) */
  planChangeAnyway: 'resume with { allowPlanChange: true } to replay it anyway',

  /** What to do with a run whose wait expired, after `waitExpired`. */
  resumeExpired: "resume it to follow the wait's failure policy",

  /** What to do when the caller may not continue a run, after `callerRefused`. */
  continueAsAllowed: 'continue it as a caller the tool allows',

  /** A signal for a run whose wait's deadline passed. */
  waitExpired: (runId: string, signal: string, deadline: string) =>
    `run '${runId}' stopped waiting for '${signal}' at ${deadline}; ${messages.resumeExpired}`,

  /** A run its tool's policy refuses to this caller. */
  callerRefused: (runId: string, refusal: string) =>
    `run '${runId}' cannot go on as this caller: ${refusal}; ${messages.continueAsAllowed}`,

  /** A durable run whose tool's plan is not the one it started with. */
  planChanged: (tool: string, runId: string, then: string, now: string) =>
    `the plan of '${tool}' changed since run '${runId}' started (${then}… then, ${now}… now): its journal may not fit it; ${messages.planChangeAnyway}`,

  /** A wait step outside a durable run. */
  waitNeedsDurableRun: (step: string, signal: string) =>
    `step '${step}' waits for signal '${signal}', which only a durable run can do: give the ChainExecutor a store, and run the composite itself (not as a step of another)`,

  /** A suspended run's journal whose last line is bad: damage, since that line was whole when it suspended. */
  journalDamagedAtEnd: (runId: string) =>
    `the journal of run '${runId}' is damaged at its last line, which was whole when the run was marked suspended: it is not a torn write, and nothing was cut`,

  /** A journal path that is a link, a folder or a device. */
  journalNotRegular: (runId: string) =>
    `the journal of run '${runId}' is not a regular file (a symbolic link, a folder, a device): the store reads and writes only files of its own, so it is left as it is`,

  /** An expression past its nesting budget. */
  expressionTooDeep: (depth: number) =>
    `the expression nested deeper than its budget of ${depth} levels (expressionBudget.depth): does a function call itself without end?`,
};
