export function note(input: { text: string }): { text: string } {
  return { text: input.text };
}
