/**
 * fallback_data_tool: Reads results from the archive
 *
 * Written by `toolgen migrate` from test/migrate/fixtures/design/library/workspace_tools.yaml.
 * The original ran it as data_transform, which toolgen does not run:
 * write the handler here. Until then it throws.
 *
 * The original, for reference:
 *
 *   implementation:
 *     type: data_transform
 *     data_transform:
 *       source: casefile.archive.entries
 *       transform_logic: |
 *         result = {"results": [e["text"] for e in source_data if query in e["text"]]}
 */
export interface FallbackDataToolInput {
  readonly query: string;
}

export function fallbackDataTool(_input: FallbackDataToolInput): { results?: string[] } {
  throw new Error("fallback_data_tool is not implemented yet: toolgen migrate wrote a stub (the original was data_transform)");
}
