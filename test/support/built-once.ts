// Something several test files need and one run builds once: the first file to ask builds it into the run's
// folder (test/support/run-folder.ts) while the others wait for it; a failed build fails every file that
// asked, with the build's own error.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inject } from 'vitest';

/**
 * The folder `name` of this run, built by `build(folder)` in the first file to ask. Resolves once it is
 * complete; `waitMs` bounds the wait of the others.
 */
export async function builtOnce(name: string, build: (folder: string) => Promise<void>, waitMs = 300_000): Promise<string> {
  const folder = join(inject('runFolder'), name);
  const done = `${folder}.done`;
  let mine = true;
  try {
    await mkdir(`${folder}.lock`);
  } catch {
    mine = false;
  }
  if (mine) {
    try {
      await build(folder);
      await writeFile(done, 'ok');
    } catch (err) {
      await writeFile(done, `failed: ${err instanceof Error ? err.stack : String(err)}`);
      throw err;
    }
    return folder;
  }
  for (const end = Date.now() + waitMs; ; ) {
    const state = await readFile(done, 'utf8').catch(() => undefined);
    if (state === 'ok') return folder;
    if (state !== undefined) throw new Error(`${name} was built by another test file and its build failed:\n${state}`);
    if (Date.now() > end) throw new Error(`${name} is still being built by another test file after ${waitMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
