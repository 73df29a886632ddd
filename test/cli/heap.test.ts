/**
 * The toolgen binary tunes its own process's garbage collection for builds; an app that runs `main`
 * itself (as these tests do) keeps its own settings.
 *
 * The unit project shares modules between files (`isolate: false`), so this file loads the CLI afresh,
 * over the mocked `node:v8`, and drops it again: the process it marks as toolgen's own stays here.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestProject } from '../helpers/project.js';

const setFlagsFromString = vi.hoisted(() => vi.fn());
vi.mock('node:v8', async (original) => ({ ...(await original<typeof import('node:v8')>()), setFlagsFromString }));

beforeAll(() => vi.resetModules());
afterAll(() => vi.resetModules());

let project: TestProject | null = null;
afterEach(() => project?.dispose());

describe("a build's garbage collection", () => {
  it('is left as it is when an app runs main itself, and tuned once the process is toolgen’s own', async () => {
    const { createProject } = await import('../helpers/project.js');
    const { runCli } = await import('../helpers/cli.js');
    project = createProject();
    expect((await runCli(['validate', '--no-cache'], project.root)).code).toBe(0);
    expect(setFlagsFromString).not.toHaveBeenCalled();
    const { tuneThisProcess } = await import('../../src/cli/heap.js');
    tuneThisProcess();
    expect((await runCli(['validate', '--no-cache'], project.root)).code).toBe(0);
    expect(setFlagsFromString).toHaveBeenCalledWith('--heap-growing-percent=10');
  });
});
