/**
 * process_results: Summarises a list of results
 *
 * Written by `toolgen migrate` from test/migrate/fixtures/design/library/workspace_tools.yaml.
 * The original ran it as simple, which toolgen does not run:
 * write the handler here. Until then it throws.
 *
 * The original, for reference:
 *
 *   implementation:
 *     type: simple
 *     simple:
 *       code: |
 *         return {"summary": ", ".join(data), "count": len(data)}
 */
export interface ProcessResultsInput {
  readonly data: string[];
}

export function processResults(_input: ProcessResultsInput): { summary?: string; count?: number } {
  throw new Error("process_results is not implemented yet: toolgen migrate wrote a stub (the original was simple)");
}
