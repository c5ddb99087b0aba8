// The name the user runs the command by, for the hints and usage lines that tell them what to type next: a
// checkout and an application with both packages have `merchant-elements`; the server package alone (and
// `npx merchant-elements-server`) has only `merchant-elements-server`, where a hint naming the other would fail.

/** The command's name when nothing says otherwise. */
export const DEFAULT_PROGRAM = 'merchant-elements';

let current = DEFAULT_PROGRAM;

/** The command's name as the user runs it (set by `main`). */
export function program(): string {
  return current;
}

/** Sets the name `program()` answers; `main` calls it once per run. */
export function setProgram(name: string): void {
  current = name;
}

/** The name from the script that started the process: `…/.bin/merchant-elements-server` or the server package's bin. */
export function programOfScript(script: string | undefined): string {
  return /merchant-elements-server(\.js)?$/.test(script ?? '') ? 'merchant-elements-server' : DEFAULT_PROGRAM;
}

/** `text` with its usage lines naming the command as the user runs it. */
export function withProgram(text: string): string {
  return current === DEFAULT_PROGRAM ? text : text.replace(/^Usage: merchant-elements(?![\w-])/gm, `Usage: ${current}`);
}
