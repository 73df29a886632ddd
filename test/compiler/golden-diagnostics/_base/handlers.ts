export function echo(input: { message: string }) {
  return { data: input.message };
}

export function count(input: { n: number }) {
  return { n: input.n + 1, items: [{ id: String(input.n) }] };
}
