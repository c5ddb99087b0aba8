// docs/server-api.md's table of routes, from the route table the OpenAPI document is built from: method and
// path, what the body holds (its fields, `?` when optional), and the success answer.
import { z } from 'zod';
import { API_ROUTES, type ApiRoute } from '../../src/protocol/openapi.js';

/** `{ a, b?, c }` of an object schema's fields, as the body's JSON Schema gives them. */
function fields(schema: z.ZodType | undefined, io: 'input' | 'output'): string {
  if (!schema) return '';
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as { properties?: Record<string, unknown>; required?: string[] };
  const names = Object.keys(json.properties ?? {});
  if (names.length === 0) return '`{}`';
  return `\`{ ${names.map((n) => (json.required?.includes(n) ? n : `${n}?`)).join(', ')} }\``;
}

function answer(route: ApiRoute): string {
  const ok = route.ok;
  if (ok.events) return `${ok.status} event stream`;
  return `${ok.status} ${ok.json ? fields(ok.json, 'output') : '(no body)'}`;
}

/** The Markdown table of the server API's routes. */
export function serverApiTable(): string {
  const rows = API_ROUTES.filter((r) => r.caller === 'server').map((r) => {
    const query = r.query ? `query ${fields(r.query, 'input')}` : '';
    return `| ${r.method.toUpperCase()} \`${r.path}\` | ${r.summary} | ${r.body ? fields(r.body, 'input') : query} | ${answer(r)} |`;
  });
  return ['| route | what | body | answer |', '|---|---|---|---|', ...rows].join('\n');
}
