// A page of docs/ (or the README) in Storybook, beside the elements' stories: the Markdown as GitHub shows
// it, its links made the site's. A link to another page becomes that page's (Storybook navigates it), an
// image of docs/screenshots is served from /screenshots, an anchor stays on the page, and a link to a file
// of the repository that is no page (a source file) keeps its text without the link: the site holds pages.
import { Markdown } from '@storybook/addon-docs/blocks';

/** `a/b/../c.md` as `a/c.md`. */
function normalise(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '..') out.pop();
    else if (part !== '.' && part !== '') out.push(part);
  }
  return out.join('/');
}

/**
 * `markdown` of the repository file `page` with its links made the site's. `pages` maps each file that has
 * a page (`docs/php.md`) to its Storybook docs id.
 */
export function forSite(markdown: string, page: string, pages: Record<string, string>): string {
  const dir = page.includes('/') ? page.slice(0, page.lastIndexOf('/') + 1) : '';
  return markdown.replace(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g, (whole, bang: string, text: string, target: string) => {
    if (/^(https?:|mailto:|#)/.test(target)) return whole;
    const [path = '', anchor] = target.split('#');
    const file = normalise(dir + path);
    if (bang && file.startsWith('docs/screenshots/')) return `![${text}](${file.slice('docs/'.length)})`;
    const id = pages[file];
    if (id) return `[${text}](?path=/docs/${id}${anchor ? `#${anchor}` : ''})`;
    return text;
  });
}

/** A heading's anchor as GitHub makes it (`### \`INVALID_INPUT\`` → `invalid_input`), so the pages' own anchors hold here too. */
export const githubSlug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** A repository page rendered for the site. */
export function Guide({ source, page, pages }: { source: string; page: string; pages: Record<string, string> }) {
  return <Markdown options={{ slugify: githubSlug }}>{forSite(source, page, pages)}</Markdown>;
}
