/** Graph algorithms the compiler and the runtime both need. */

/**
 * A cycle among dependencies, as the path that goes round it (`a → b → a`), or null. Iterative, so a
 * long chain of dependencies cannot overflow the stack.
 *
 * @example findDependencyCycle(new Map([['a', ['b']], ['b', ['a']]])) // ['a', 'b', 'a']
 */
export function findDependencyCycle(dependsOn: ReadonlyMap<string, readonly string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  for (const start of dependsOn.keys()) {
    if (state.has(start)) continue;
    const path: string[] = [];
    const stack: { id: string; next: number }[] = [{ id: start, next: 0 }];
    state.set(start, 'open');
    path.push(start);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const deps = dependsOn.get(top.id) ?? [];
      if (top.next >= deps.length) {
        state.set(top.id, 'done');
        stack.pop();
        path.pop();
        continue;
      }
      const dep = deps[top.next++]!;
      if (state.get(dep) === 'open') return [...path.slice(path.indexOf(dep)), dep];
      if (state.has(dep) || !dependsOn.has(dep)) continue;
      state.set(dep, 'open');
      path.push(dep);
      stack.push({ id: dep, next: 0 });
    }
  }
  return null;
}
