/**
 * echo_tool: Echoes input message back with metadata
 *
 * Written by `toolgen migrate` from test/migrate/fixtures/design/library/echo_tool.yaml.
 * The original ran it as simple, which toolgen does not run:
 * write the handler here. Until then it throws.
 *
 * The original, for reference:
 *
 *   implementation:
 *     type: simple
 *     simple:
 *       logic: |
 *         echoed_messages = [message for _ in range(repeat_count)]
 *         result = {
 *           "data": message,
 *           "original_message": message,
 *           "echoed_messages": echoed_messages,
 *           "total_length": sum(len(m) for m in echoed_messages),
 *         }
 */
export interface EchoToolInput {
  /** Message to echo back */
  readonly message: string;
  readonly repeat_count: number;
  readonly session_id?: string;
}

export function echoTool(_input: EchoToolInput): { data?: string; original_message?: string; echoed_messages?: string[]; total_length?: number } {
  throw new Error("echo_tool is not implemented yet: toolgen migrate wrote a stub (the original was simple)");
}
