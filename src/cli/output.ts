/** A value shown in human output; null and undefined rows are left out, except as `-` where kept. */
export type FieldValue = string | number | boolean | null | undefined;

/**
 * Aligned `key  value` lines. Entries whose value is undefined are left out (a field the provider did not
 * send); null is shown as `-`.
 */
export function formatFields(entries: readonly (readonly [string, FieldValue])[]): string {
  const shown = entries.filter(([, value]) => value !== undefined);
  const width = Math.max(0, ...shown.map(([key]) => key.length));
  return shown.map(([key, value]) => `${key.padEnd(width)}  ${value === null ? '-' : String(value)}`).join('\n');
}

/** A table with a header row, columns padded to their widest cell (the last one is not padded). */
export function formatTable(headers: readonly string[], rows: readonly (readonly FieldValue[])[]): string {
  const body = rows.map((row) => row.map((value) => (value == null ? '-' : String(value))));
  const cells = [headers, ...body];
  const widths = headers.map((header, i) => Math.max(header.length, ...body.map((row) => row[i]?.length ?? 0)));
  return cells
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Machine output: the value as indented JSON, one trailing newline. */
export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
