export function shout(input: { txt: string }) {
  return { loud: input.txt.toUpperCase() };
}

export const whisper = (input: { text: string }): { quiet: number } => ({ quiet: input.text.length });
