/**
 * The toolgen binary tunes its own process's garbage collection for builds; an app that runs `main`
 * itself (as these tests do) keeps its own settings.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProject, type TestProject } from '../helpers/project.js';
import { runCli } from '../helpers/cli.js';

const setFlagsFromString = vi.hoisted(() => vi.fn());
vi.mock('node:v8', async (original) => ({ ...(await original<typeof import('node:v8')>()), setFlagsFromString }));

let project: TestProject | null = null;
afterEach(() => project?.dispose());

describe("a build's garbage collection", () => {
  it('is left as it is when an app runs main itself, and tuned once the process is toolgen’s own', async () => {
    project = createProject();
    expect((await runCli(['validate', '--no-cache'], project.root)).code).toBe(0);
    expect(setFlagsFromString).not.toHaveBeenCalled();
    const { tuneThisProcess } = await import('../../src/cli/heap.js');
    tuneThisProcess();
    expect((await runCli(['validate', '--no-cache'], project.root)).code).toBe(0);
    expect(setFlagsFromString).toHaveBeenCalledWith('--heap-growing-percent=10');
  });
});
