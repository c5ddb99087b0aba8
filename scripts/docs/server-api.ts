// docs/server-api.md's table of routes, read from the OpenAPI document itself (as `npm run docs` writes it),
// so the two cannot disagree: method and path, what the body holds (its named schema and its fields, `?`
// when optional; each shape of a body that takes one of several), and the success answer.
import { openApiDocument } from '../../src/protocol/openapi.js';

type Schema = { $ref?: string; properties?: Record<string, Schema>; required?: string[]; anyOf?: Schema[]; oneOf?: Schema[]; const?: unknown };
interface Operation {
  operationId: string;
  summary: string;
  tags: string[];
  parameters: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

/** `{ a, b?, c: true }` of an object schema's fields (a constant shown with its value). */
function fields(schema: Schema): string {
  const names = Object.keys(schema.properties ?? {});
  if (names.length === 0) return '{}';
  const field = (n: string) => {
    const constant = schema.properties![n]!.const;
    return `${n}${schema.required?.includes(n) ? '' : '?'}${constant === undefined ? '' : `: ${JSON.stringify(constant)}`}`;
  };
  return `{ ${names.map(field).join(', ')} }`;
}

/** A named schema's name and shapes: `Name` `{ a, b }`, or each alternative of a union, with "or". */
function shapes(ref: Schema, components: Record<string, Schema>): string {
  const name = ref.$ref!.split('/').pop()!;
  const schema = components[name]!;
  const alternatives = schema.anyOf ?? schema.oneOf;
  const text = alternatives ? alternatives.map((s) => `\`${fields(s)}\``).join(' or ') : `\`${fields(schema)}\``;
  return `${name}: ${text}`;
}

/** The Markdown table of the server API's routes. */
export function serverApiTable(): string {
  const document = openApiDocument('table') as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
  const components = document.components.schemas;
  const rows = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, op]) => op.tags.includes('server'))
      .map(([method, op]) => {
        const body = op.requestBody?.content['application/json']?.schema;
        const query = op.parameters.filter((p) => p.in === 'query').map((p) => `${p.name}?`);
        const what = body ? shapes(body, components) : query.length ? `query \`{ ${query.join(', ')} }\`` : '';
        const [status, ok] = Object.entries(op.responses).find(([s]) => s.startsWith('2'))!;
        const answer = ok.content?.['application/json'] ? shapes(ok.content['application/json'].schema, components) : '(no body)';
        return `| ${method.toUpperCase()} \`${path}\` | ${op.summary} (\`${op.operationId}\`) | ${what} | ${status} ${answer} |`;
      }),
  );
  return ['| route | what (operationId) | body | answer |', '|---|---|---|---|', ...rows].join('\n');
}
