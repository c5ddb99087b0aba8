// Vitest's global setup: a temporary folder for one run of the suite, shared by its test files (each file
// runs in a process of its own), for what is built once a run and read by several files. Removed at the end.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's shared temporary folder. */
    runFolder: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const folder = await mkdtemp(join(tmpdir(), 'merchant-elements-run-'));
  project.provide('runFolder', folder);
  return () => rm(folder, { recursive: true, force: true });
}
