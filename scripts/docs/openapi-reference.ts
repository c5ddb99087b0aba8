// docs/openapi.md's reference, read from the OpenAPI document as `npm run docs` writes it: one row per
// operation (its operationId, route, caller, body and answers) and one table per named schema of
// `components.schemas` (each field's type, whether it is required). The docs site shows it as a page.
import { openApiDocument } from '../../src/protocol/openapi.js';

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: Schema | boolean;
};
interface Operation {
  operationId: string;
  summary: string;
  tags: string[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema; 'x-event-data'?: Schema }> }>;
}

/** The schema name a `$ref` names, as a link to its table below. */
const named = (ref: string) => {
  const name = ref.split('/').pop()!;
  return `[${name}](#${name.toLowerCase()})`;
};

/** A short type: `string`, `"a" \| "b"`, `PaymentSnapshot \| null`, `array of …`, `object` (fields below it). */
function typeOf(schema: Schema): string {
  if (schema.$ref) return named(schema.$ref);
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.enum) return schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' \\| ');
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.map(typeOf).join(' \\| ');
  if (Array.isArray(schema.type)) return schema.type.join(' \\| ');
  if (schema.type === 'array') return `array of ${schema.items ? typeOf(schema.items) : 'anything'}`;
  if (schema.type === 'object' && schema.properties) return `{ ${Object.keys(schema.properties).join(', ')} }`;
  if (schema.format) return `${schema.type} (${schema.format})`;
  return schema.type ?? 'any JSON';
}

/** A named schema's fields, one row each (an object nested in a field is written out beside it, `a.b`). */
function fieldRows(schema: Schema, prefix = ''): string[] {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && !prefix) return alternatives.flatMap((s, i) => fieldRows(s, `(${i + 1}) `));
  return Object.entries(schema.properties ?? {}).flatMap(([name, field]) => {
    const path = `${prefix}${name}`;
    const row = `| \`${path}\` | ${typeOf(field)} | ${schema.required?.includes(name) ? 'yes' : ''} |`;
    const nested = field.type === 'object' && field.properties ? field : field.type === 'array' && field.items?.properties ? field.items : undefined;
    return [row, ...(nested ? fieldRows(nested, `${path}${field.type === 'array' ? '[]' : ''}.`) : [])];
  });
}

/** The whole generated part of docs/openapi.md. */
export function openApiReference(): string {
  const document = openApiDocument('reference') as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
  const rows = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const [type, media] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
      const body = media?.schema;
      const answers = Object.entries(op.responses).map(([status, r]) => {
        const media = Object.values(r.content ?? {})[0];
        const ref = media?.['x-event-data']?.$ref ?? media?.schema.$ref;
        if (status.startsWith('2') || !media?.schema.allOf) return `${status}${ref ? ` ${named(ref)}` : ''}`;
        return `${status} ${r.description.split(', ').map((code) => `\`${code}\``).join(' ')}`;
      });
      return `| \`${op.operationId}\` | ${method.toUpperCase()} \`${path}\` | ${op.tags.join(', ')} | ${body?.$ref ? named(body.$ref) + (type === 'application/json' ? '' : ` (\`${type}\`)`) : ''} | ${answers.join('; ')} |`;
    }),
  );
  const schemas = Object.entries(document.components.schemas).map(([name, schema]) => {
    const alternatives = schema.anyOf ?? schema.oneOf;
    const lead = alternatives ? `One of ${alternatives.length} shapes, numbered below.\n\n` : '';
    return `### ${name}\n\n${lead}| field | type | required |\n|---|---|---|\n${fieldRows(schema).join('\n')}`;
  });
  return [
    '## Operations',
    '',
    '| operationId | route | caller | body | answers (errors: `ErrorBody` with these codes) |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    '## Schemas',
    '',
    schemas.join('\n\n'),
  ].join('\n');
}
