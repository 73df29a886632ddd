/** The handler of `echo_tool`: returns its message, for demos and tests. */
export interface EchoInput {
  message: string;
  session_id?: string;
}

export function echo(input: EchoInput): { message: string; data: string; session_id: string | null } {
  return { message: input.message, data: input.message, session_id: input.session_id ?? null };
}
