// Parsed flags, read by every command (kept apart from operation.ts, which loads the provider client).

/** What `parseArgs` gives for the flags. */
export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** The flag's value as a string, or undefined when absent. */
export function stringFlag(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** Every value of a `multiple` flag. */
export function listFlag(values: OptionValues, name: string): string[] {
  const value = values[name];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

