/**
 * gmail_search_messages: Search Gmail messages using advanced query syntax
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
 *       client_module: src.pydantic_ai_integration.integrations.google_workspace.clients
 *       client_class: GmailClient
 *       method_name: search_messages
 *       endpoint: GET /gmail/v1/users/me/messages
 */
export interface GmailSearchMessagesInput {
  readonly query: string;
  readonly max_results: number;
}

export function gmailSearchMessages(_input: GmailSearchMessagesInput): { messages?: Record<string, unknown>[]; message_count?: number; result_size_estimate?: number } {
  throw new Error("gmail_search_messages is not implemented yet: toolgen migrate wrote a stub (the original was api_call)");
}
