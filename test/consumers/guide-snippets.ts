// A guide's code as its reader copies it: each fenced TypeScript block that opens with a comment naming its
// file (`// app/sign-in/page.tsx`) is that file, whole; each shell block is commands, one a line.

/** The fenced blocks of `markdown`: language and text. */
function blocks(markdown: string): { lang: string; code: string }[] {
  // The info string's markers (`file=…`, `run`, docs/development.md's convention) follow the language.
  return [...markdown.matchAll(/^```(\w*)[^\n]*\n([\s\S]*?)^```/gm)].map((m) => ({ lang: m[1]!, code: m[2]! }));
}

/** The files a guide shows, by path: every ts or tsx block whose first line is `// <path>`. */
export function guideFiles(markdown: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const { lang, code } of blocks(markdown)) {
    const path = /^\/\/ ([\w@./[\]-]+\.tsx?)\n/.exec(code)?.[1];
    if (!/^tsx?$/.test(lang)) continue;
    if (!path) throw new Error(`a ${lang} block names no file on its first line:\n${code}`);
    if (path in files) throw new Error(`two blocks are ${path}`);
    files[path] = code;
  }
  return files;
}

/** The commands of the guide's shell blocks, in order. */
export function guideCommands(markdown: string): string[] {
  return blocks(markdown)
    .filter((b) => b.lang === 'sh')
    .flatMap((b) => b.code.split('\n'))
    .map((line) => line.trim())
    .filter(Boolean);
}
