// The analyzer ships no types for its programmatic CLI entry.
declare module '@custom-elements-manifest/analyzer/cli.js' {
  export function cli(options: { argv: string[]; cwd: string; noWrite: boolean }): Promise<unknown>;
}
