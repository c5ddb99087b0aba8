// The OpenAPI 3.1 document of the proxy's HTTP interface (the browser's routes, the server API, health and
// the provider's callback), built from the route table (api-routes.ts) and the zod schemas every route
// parses and answers with, so it cannot say other than the code. Each operation has an `operationId` and
// each body and answer is a `$ref` to a named schema of `components.schemas`, so that a generated client
// has a method and a type per name. `npm run docs` writes it to packages/merchant-elements-server/openapi.json
// (the server package ships it); test/docs/openapi.test.ts checks it against a running proxy, route by route.
import { z } from 'zod';
import { API_ROUTES, REQUEST_SCHEMAS, RESPONSE_SCHEMAS, routeErrors, type ApiRoute } from './api-routes.js';
import { type ProxyErrorCode } from './codes.js';
import { ERROR_STATUS } from './statuses.js';

export { API_ROUTES, REQUEST_SCHEMAS, RESPONSE_SCHEMAS, routeErrors, type ApiRoute };

/** Where a named schema lives in the document. */
export const schemaRef = (name: string) => `#/components/schemas/${name}`;

type JsonSchema = Record<string, unknown>;

/**
 * The named schemas as JSON Schema 2020-12 (OpenAPI 3.1's dialect), each schema of `named` that another
 * holds written as a `$ref` to it; `io` is how they are read (a request as its sender writes it, an answer
 * as the proxy writes it).
 */
function components(named: Record<string, z.ZodType>, io: 'input' | 'output'): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { target: 'draft-2020-12', io, unrepresentable: 'any', uri: schemaRef }) as {
    schemas: Record<string, JsonSchema>;
  };
  return Object.fromEntries(
    Object.keys(named).map((id) => {
      const { $schema: _dialect, $id: _id, ...schema } = schemas[id]!;
      return [id, schema];
    }),
  );
}

/** `{ $ref }` to the name `schema` has in `named`; throws for a schema without one (every body is named). */
function refTo(named: Record<string, z.ZodType>, schema: z.ZodType, route: ApiRoute): JsonSchema {
  const name = Object.entries(named).find(([, s]) => s === schema)?.[0];
  if (!name) throw new Error(`${route.method.toUpperCase()} ${route.path}: its schema has no name in api-routes.ts`);
  return { $ref: schemaRef(name) };
}

/** A zod schema as inline JSON Schema 2020-12 (a query's parameters), without the `$schema` line. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** The error codes a route may answer, by HTTP status (a body that arrives too slowly: 408 INVALID_INPUT). */
function errorsByStatus(route: ApiRoute): Map<number, ProxyErrorCode[]> {
  const byStatus = new Map<number, ProxyErrorCode[]>();
  const add = (status: number, code: ProxyErrorCode) => byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  for (const code of routeErrors(route)) add(route.statusOf?.[code] ?? ERROR_STATUS[code], code);
  if (route.method === 'post') add(408, 'INVALID_INPUT');
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/** One operation of `paths`. */
function operation(route: ApiRoute): JsonSchema {
  const names = (route.path.match(/\{(\w+)\}/g) ?? []).map((p) => p.slice(1, -1));
  const responses: Record<string, unknown> = {};
  const ok = route.ok;
  const content = ok.json
    ? { 'application/json': { schema: refTo(RESPONSE_SCHEMAS, ok.json, route) } }
    : ok.events
      ? { 'text/event-stream': { schema: { type: 'string' }, 'x-event-name': 'status', 'x-event-data': refTo(RESPONSE_SCHEMAS, ok.events, route) } }
      : undefined;
  responses[String(ok.status)] = { description: ok.description, ...(content ? { content } : {}) };
  if (route.alsoAnswers) responses[String(route.alsoAnswers)] = { description: 'Not healthy (the same body)', ...(content ? { content } : {}) };
  for (const [status, codes] of errorsByStatus(route)) {
    // The shared error body, with the codes this status may carry on this route.
    const schema = { allOf: [{ $ref: schemaRef('ErrorBody') }, { properties: { error: { type: 'string', enum: codes } } }] };
    responses[String(status)] = { description: codes.join(', '), content: { 'application/json': { schema } } };
  }
  const query = route.query ? (jsonSchema(route.query, 'input').properties as Record<string, unknown>) : {};
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.caller],
    security: route.form ? [] : route.caller === 'element' ? [{ elementToken: [] }] : route.caller === 'server' ? [{ serverKey: [] }] : [],
    parameters: [
      ...names.map((n) => ({ name: n, in: 'path', required: true, schema: { type: 'string' } })),
      ...Object.entries(query).map(([n, schema]) => ({ name: n, in: 'query', required: false, schema })),
    ],
    ...(route.body ? { requestBody: { required: true, content: { [route.form ? 'application/x-www-form-urlencoded' : 'application/json']: { schema: refTo(REQUEST_SCHEMAS, route.body, route) } } } } : {}),
    responses,
  };
}

/** The whole OpenAPI 3.1 document. */
export function openApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of API_ROUTES) (paths[route.path] ??= {})[route.method] = operation(route);
  const requests = components(REQUEST_SCHEMAS, 'input');
  const answers = components(RESPONSE_SCHEMAS, 'output');
  const shared = Object.keys(requests).filter((name) => name in answers);
  if (shared.length) throw new Error(`a request and an answer schema share a name: ${shared.join(', ')}`);
  return {
    openapi: '3.1.0',
    info: {
      title: 'merchant-elements proxy',
      version,
      description:
        'The merchant proxy of merchant-elements: the routes its elements call with an element token, the server API your backend ' +
        'calls with its server key (under /server/), the provider’s payment callback and /health. Paths are relative to the mount path. ' +
        'Every error answers { error, message, details } with a stable code. Generated from the zod schemas of src/protocol.',
    },
    servers: [{ url: '/merchant-elements', description: 'the default mount path (PROXY_PATH)' }],
    tags: [
      { name: 'element', description: 'Called by the elements, with the token your server minted for the page (Authorization: Bearer)' },
      { name: 'server', description: 'The server API: your backend only, with Authorization: Bearer <PROXY_SERVER_KEY>' },
      { name: 'provider', description: 'Called by the provider' },
      { name: 'operator', description: 'For probes and operators' },
    ],
    paths,
    components: {
      schemas: { ...requests, ...answers },
      securitySchemes: {
        elementToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An element token (docs/tokens.md)' },
        serverKey: { type: 'http', scheme: 'bearer', description: 'PROXY_SERVER_KEY' },
      },
    },
  };
}
