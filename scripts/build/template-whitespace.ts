import { parseAst, type Plugin } from 'vite';

/** The tags of Lit's templates. */
const TAGS = new Set(['html', 'css']);

interface Node {
  type?: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

/** The static parts of every `html` and `css` tagged template in `program`, as [start, end) offsets of `code`. */
function templateTexts(program: unknown, code: string): [number, number][] {
  const found: [number, number][] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!value || typeof value !== 'object') return;
    const node = value as Node;
    if (node.type === 'TaggedTemplateExpression') {
      const tag = node['tag'] as Node & { name?: string };
      if (tag.type === 'Identifier' && TAGS.has(tag.name!)) {
        for (const quasi of (node['quasi'] as { quasis: (Node & { value: { raw: string } })[] }).quasis) {
          if (code.slice(quasi.start, quasi.end) !== quasi.value.raw) throw new Error(`a template's text is not where the parser says (${quasi.start})`);
          found.push([quasi.start, quasi.end]);
        }
      }
    }
    for (const key in node) if (key !== 'type') visit(node[key]);
  };
  visit(program);
  return found;
}

/**
 * Makes each run of white space that holds a line break, in the static text of the elements' `html` and
 * `css` templates, one space: the indentation of the source, which a minifier leaves in template literals.
 * What the page shows does not change (HTML and CSS collapse such a run to one space; no element of ours
 * renders white space as it is written), only the bytes: about 70 B gzip of the three elements in one file.
 */
export function templateWhitespace(): Plugin {
  return {
    name: 'merchant-elements:template-whitespace',
    // After TypeScript is compiled away: the code is JavaScript.
    enforce: 'post',
    transform: {
      filter: { id: /[\\/]src[\\/]elements[\\/].*\.ts$/ },
      handler(code, id) {
        const texts = templateTexts(parseAst(code, { lang: 'js' }, id), code);
        if (texts.length === 0) return null;
        let out = '';
        let at = 0;
        for (const [start, end] of texts.sort((a, b) => a[0] - b[0])) {
          out += code.slice(at, start) + code.slice(start, end).replace(/\s*\n\s*/g, ' ');
          at = end;
        }
        return { code: out + code.slice(at), map: null };
      },
    },
  };
}
