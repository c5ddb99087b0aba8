// Every code block of the README and docs/ says what becomes of it (test/docs/markdown.ts), and what says it
// runs is run: a page with `file=` or `run` blocks is followed by a test of test/docs, a `check` block is
// claimed by the test that checks it. And no link of theirs is dead: every relative link reaches a file of
// the repository, every anchor a heading of the page it points into, and none leaves the repository.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, blocksOf, DOCS, kindOf, linksOf, readDoc, ROOT } from './markdown.js';

/** Pages another branch writes, linked before it lands (absent here until then; their links are checked once present). */
const WRITTEN_ELSEWHERE: string[] = [];

/** Which test checks the `check` blocks of each language. */
const CHECKED_BY: Record<string, string> = {
  ts: 'test/docs/fragments.test.ts',
  tsx: 'test/docs/fragments.test.ts',
  js: 'test/docs/fragments.test.ts',
  html: 'test/docs/fragments.test.ts',
  http: 'test/docs/fragments.test.ts',
  json: 'test/docs/webhooks-guide.test.ts',
  php: 'test/docs/php-guide.test.ts',
};

// The guides' tests: test/docs, and the consumer apps that build a guide's files (docs/nextjs.md); and the
// table of shop guides both follow (test/docs/shop-guides.ts).
const testsText = ['test/docs', 'test/consumers'].flatMap((folder) =>
  readdirSync(join(ROOT, folder))
    .filter((f) => f.endsWith('.test.ts') || f === 'shop-guides.ts')
    .map((f) => [`${folder}/${f}`, readFileSync(join(ROOT, folder, f), 'utf8')] as const),
);

describe('the docs’ code blocks', () => {
  it('each say what becomes of them: file=, run, run=, check, not-run, or text', () => {
    const problems = DOCS.flatMap((doc) =>
      blocksOf(doc).flatMap((b) => {
        const kind = kindOf(b);
        return typeof kind === 'object' ? [`${doc}:${b.line}: \`\`\`${b.lang} ${Object.keys(b.attrs).join(' ')} ${kind.problem}`] : [];
      }),
    );
    expect(problems).toEqual([]);
  });

  it('that run are run: each page with file= or run blocks is followed by a test that names it', () => {
    const runnable = DOCS.filter((doc) => blocksOf(doc).some((b) => ['file', 'run', 'terminal'].includes(kindOf(b) as string)));
    expect(runnable.length).toBeGreaterThanOrEqual(10);
    const unfollowed = runnable.filter((doc) => !testsText.some(([file, text]) => file !== 'test/docs/conventions.test.ts' && text.includes(`'${doc}'`)));
    expect(unfollowed).toEqual([]);
  });

  it('that are checked are claimed by the test of their language', () => {
    const unclaimed = DOCS.flatMap((doc) =>
      blocksOf(doc)
        .filter((b) => kindOf(b) === 'check')
        .flatMap((b) => {
          const test = CHECKED_BY[b.lang];
          return test && existsSync(join(ROOT, test)) ? [] : [`${doc}:${b.line} (${b.lang})`];
        }),
    );
    expect(unclaimed).toEqual([]);
  });
});

describe('the docs’ links', () => {
  const files = new Set(DOCS.filter((doc) => existsSync(join(ROOT, doc))));

  it('reach a file of the repository, and an anchor of the page they point into; none leaves the repository', () => {
    const dead: string[] = [];
    for (const doc of files) {
      for (const { target, line } of linksOf(readDoc(doc))) {
        if (/^(https?:|mailto:)/.test(target)) continue;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path ? normalize(join(dirname(doc), decodeURIComponent(path))) : doc;
        const where = `${doc}:${line}: ${target}`;
        if (file.startsWith('..') || relative(ROOT, join(ROOT, file)).startsWith('..')) {
          dead.push(`${where} leaves the repository`);
          continue;
        }
        if (!existsSync(join(ROOT, file))) {
          if (!WRITTEN_ELSEWHERE.includes(file)) dead.push(`${where} is not a file`);
          continue;
        }
        if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(readDoc(file)).has(anchor)) dead.push(`${where}: no heading #${anchor}`);
        if (anchor !== undefined && !file.endsWith('.md')) dead.push(`${where}: an anchor into a file that has no headings`);
        if (anchor === undefined && statSync(join(ROOT, file)).isDirectory()) dead.push(`${where} is a folder`);
      }
    }
    expect(dead).toEqual([]);
  });

  it('the pages written elsewhere are still absent here (once one lands, drop it from WRITTEN_ELSEWHERE)', () => {
    expect(WRITTEN_ELSEWHERE.filter((doc) => existsSync(join(ROOT, doc)))).toEqual([]);
  });
});
