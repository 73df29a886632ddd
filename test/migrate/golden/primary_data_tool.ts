/**
 * primary_data_tool: Reads results from the primary source
 *
 * Written by `toolgen migrate` from test/migrate/fixtures/design/library/workspace_tools.yaml.
 * The original ran it as api_call, which toolgen does not run:
 * write the handler here. Until then it throws.
 *
 * The original, for reference:
 *
 *   implementation:
 *     type: api_call
 *     api_call:
 *       endpoint: https://primary.example.com/search?q={query}
 */
export interface PrimaryDataToolInput {
  readonly query: string;
}

export function primaryDataTool(_input: PrimaryDataToolInput): { results?: string[] } {
  throw new Error("primary_data_tool is not implemented yet: toolgen migrate wrote a stub (the original was api_call)");
}
