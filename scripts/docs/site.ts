// The docs site: one Storybook docs page per page of the README and docs/, under "Guides", beside the
// elements' own pages (their reference from custom-elements.json, their stories as live examples). Writes
// .storybook/guides/ (not committed): an MDX file per page, which renders the Markdown itself (so a page is
// never copied), pages.json, each page's Storybook id, and api/openapi.json, the server package's OpenAPI
// document, which the site serves at /api/openapi.json and its OpenAPI page links to. `npm run storybook`
// and `build-storybook` run it.
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT = `${ROOT}.storybook/guides/`;

/** The sidebar's names for the pages; a page not named here is shown by its first heading. */
export const LABELS: Record<string, string> = {
  'README.md': 'Start here',
  'docs/script-tag.md': 'Any page: a script tag',
  'docs/php.md': 'PHP',
  'docs/python.md': 'Python',
  'docs/express.md': 'Express',
  'docs/nextjs.md': 'Next.js',
  'docs/webhooks.md': 'Webhooks',
  'docs/tokens.md': 'Tokens',
  'docs/server-api.md': 'Server API',
  'docs/openapi.md': 'OpenAPI reference',
  'docs/elements.md': 'Elements',
  'docs/operations.md': 'Operations',
  'docs/troubleshooting.md': 'Troubleshooting',
  'docs/csp.md': 'Content-Security-Policy',
  'docs/sandbox.md': 'Sandbox',
  'docs/cli.md': 'Command line',
  'docs/provider-client.md': 'Provider client',
  'docs/provider-api.md': 'The provider’s API',
  'docs/design.md': 'Design',
  'docs/benchmarks.md': 'Benchmarks',
  'docs/development.md': 'Development',
};

/** Where the site serves the OpenAPI document (`.storybook/main.ts` serves OUT/api there). */
export const OPENAPI_URL = 'api/openapi.json';

/** What a page shows above its Markdown: the OpenAPI page a link to the document itself. */
const BEFORE: Record<string, string> = {
  'docs/openapi.md': `<p><a href="${OPENAPI_URL}" download="openapi.json">Download openapi.json</a> (OpenAPI 3.1, this version’s).</p>`,
};

/** Storybook's id of a docs page titled `title` (its own sanitising: lower case, runs of other characters to `-`). */
export const docsId = (title: string) =>
  `${title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')}--docs`;

/** Every page of the site: the file, its sidebar title and its id. */
export async function sitePages(): Promise<{ file: string; title: string; id: string }[]> {
  const docs = (await readdir(`${ROOT}docs`)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  const files = ['README.md', ...Object.keys(LABELS).filter((f) => docs.includes(f)), ...docs.filter((f) => !(f in LABELS)).sort()];
  return Promise.all(
    files.map(async (file) => {
      const heading = /^# (.+)$/m.exec(await readFile(`${ROOT}${file}`, 'utf8'))?.[1] ?? file;
      const title = `Guides/${LABELS[file] ?? heading.replace(/[`*_]/g, '')}`;
      return { file, title, id: docsId(title) };
    }),
  );
}

async function run(): Promise<void> {
  const pages = await sitePages();
  await rm(OUT, { recursive: true, force: true });
  await mkdir(`${OUT}api`, { recursive: true });
  await copyFile(`${ROOT}packages/merchant-elements-server/openapi.json`, `${OUT}${OPENAPI_URL}`);
  await writeFile(`${OUT}pages.json`, `${JSON.stringify(Object.fromEntries(pages.map((p) => [p.file, p.id])), null, 2)}\n`);
  for (const [i, page] of pages.entries()) {
    const mdx = [
      "import { Meta } from '@storybook/addon-docs/blocks';",
      "import { Guide } from '../guide.tsx';",
      "import pages from './pages.json';",
      `import source from '../../${page.file}?raw';`,
      '',
      `<Meta title=${JSON.stringify(page.title)} />`,
      '',
      ...(BEFORE[page.file] ? [BEFORE[page.file]!, ''] : []),
      `<Guide source={source} page=${JSON.stringify(page.file)} pages={pages} />`,
      '',
    ].join('\n');
    await writeFile(`${OUT}${String(i).padStart(2, '0')}-${page.file.replace(/\W+/g, '-')}.mdx`, mdx);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await run();
