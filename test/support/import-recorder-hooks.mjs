// Resolve hook of import-recorder.mjs: records each resolved URL, changing nothing.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (process.env.IMPORT_RECORD) appendFileSync(process.env.IMPORT_RECORD, `${result.url}\n`);
  return result;
}
