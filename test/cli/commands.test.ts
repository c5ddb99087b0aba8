import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the real command (bin/merchant-elements.js) and answers the modules it imported (paths under the checkout). */
async function importsOf(args: string[]): Promise<{ code: number | null; imported: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'cli-imports-'));
  const record = join(dir, 'imports.txt');
  try {
    const child = spawn(process.execPath, ['--import', join(ROOT, 'test/support/import-recorder.mjs'), join(ROOT, 'bin/merchant-elements.js'), ...args], {
      env: { PATH: process.env.PATH, IMPORT_RECORD: record },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const text = await readFile(record, 'utf8').catch(() => '');
    const imported = [...new Set(text.split('\n').filter((u) => u.startsWith('file://')).map((u) => fileURLToPath(u).slice(ROOT.length)))];
    return { code, imported };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('the command table', () => {
  it("lists each command's name, synopsis and summary as its module has them", async () => {
    for (const entry of COMMANDS) {
      const command = await entry.load();
      expect({ name: command.name, synopsis: command.synopsis, summary: command.summary }, entry.name).toEqual({
        name: entry.name,
        synopsis: entry.synopsis,
        summary: entry.summary,
      });
    }
  });

  it('is documented: docs/cli.md shows every command', async () => {
    const doc = await readFile(join(ROOT, 'docs/cli.md'), 'utf8');
    const shown = [...doc.matchAll(/^npx merchant-elements-server ([a-z]+(?: [a-z]+)?)/gm)].map((m) => m[1]!);
    const missing = COMMANDS.filter((c) => c.name !== 'demo' && !shown.some((s) => s === c.name || s.startsWith(`${c.name} `)));
    expect(missing.map((c) => c.name)).toEqual([]);
  });
});

describe('what a command imports', () => {
  it('help imports no command module: not the proxy, the provider client or Express', async () => {
    const { code, imported } = await importsOf(['help']);
    expect(code).toBe(0);
    expect(imported).toContain('src/cli/main.ts');
    const heavy = imported.filter((path) => /^(src\/(proxy|provider|sandbox)\/|node_modules\/(express|zod|pino|jose|ioredis|libphonenumber-js)\/|src\/cli\/.*-commands?\.ts$)/.test(path));
    expect(heavy).toEqual([]);
  }, 60_000);

  it('a server API command imports its own module and the HTTP client, not the proxy (and serve does import Express: the record sees it)', async () => {
    const list = await importsOf(['webhooks', 'list', '--help']);
    expect(list.code).toBe(0);
    expect(list.imported).toContain('src/cli/webhook-commands.ts');
    expect(list.imported.filter((path) => /^src\/(proxy|provider)\/|node_modules\/express\//.test(path))).toEqual([]);
    const serve = await importsOf(['serve', '--help']);
    expect(serve.code).toBe(0);
    expect(serve.imported.some((path) => path.startsWith('node_modules/express/'))).toBe(true);
  }, 60_000);
});
