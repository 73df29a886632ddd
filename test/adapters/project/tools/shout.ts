import type { ToolCallContext } from '@toolgen/runtime';

/** The handler of `shout_tool`. */
export function shout(input: { text: string; times?: number }, context: ToolCallContext) {
  context.signal.throwIfAborted();
  const loud = Array.from({ length: input.times ?? 1 }, () => input.text.toUpperCase()).join(' ');
  return { loud, length: loud.length };
}
