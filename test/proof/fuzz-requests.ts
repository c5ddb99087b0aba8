import fc, { type Arbitrary } from 'fast-check';
import {
  type BodyPlan,
  bodyPlan,
  contentType,
  fetchSiteJunk,
  headerJunk,
  jsonText,
  junkSegment,
  originJunk,
  querySuffix,
  strayHeaders,
} from './fuzz-arbitraries.js';
import type { FuzzRequest } from './fuzz-http.js';

/** How one route is fuzzed: its method, path, credentials and body, each an arbitrary. */
export interface RouteSpec {
  /** `POST /otp/send`: the name the suite reports and counts under. */
  name: string;
  method: 'GET' | 'POST';
  /** Request target, mount path included. */
  path: Arbitrary<string>;
  /** Credential headers that pass (a valid token, the right keys). */
  goodAuth: Arbitrary<[string, string][]>;
  /** Credential headers of every kind: usually good, else refused, bent, garbage or absent. */
  auth: Arbitrary<[string, string][]>;
  /** Body texts (valid-shaped, with junk values now and then); GET routes get a stray JSON body rarely. */
  body?: Arbitrary<string> | undefined;
  /** Content-Type of plausible requests; `application/json` by default. */
  goodType?: Arbitrary<string> | undefined;
  /** Content-Type values of hostile requests; the JSON variants, others and none by default. */
  contentType?: Arbitrary<string | undefined> | undefined;
  /** Route-specific headers (Last-Event-ID, x-api-version). */
  extra?: Arbitrary<[string, string][]> | undefined;
}

/** Where requests may claim to come from. */
export interface Origins {
  own: string;
  allowed: string;
}

/** No headers (typed, so it mixes with header arbitraries). */
export const noHeaders = fc.constant<[string, string][]>([]);

const OTHER_METHODS = ['HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH', 'GET', 'POST'];

interface Parts {
  method: string;
  path: string;
  headers: [string, string][];
  type: string | undefined;
  plan: BodyPlan | undefined;
}

function assemble({ method, path, headers, type, plan }: Parts): FuzzRequest {
  const all = [...headers];
  if (plan && type !== undefined) all.push(['content-type', type]);
  if (plan?.contentEncoding !== undefined) all.push(['content-encoding', plan.contentEncoding]);
  return { method, path, headers: all, body: plan?.bytes, chunks: plan?.chunks };
}

/**
 * Plausible requests: the route's method, good credentials, a JSON (or the route's) content type and a
 * UTF-8 body shaped like the route's, whose field values still vary; so they reach the routes' own code.
 */
function plausible(spec: RouteSpec): Arbitrary<FuzzRequest> {
  const text = spec.method === 'POST' && spec.body ? spec.body : fc.constant(undefined);
  return fc
    .record({ path: spec.path, auth: spec.goodAuth, type: spec.goodType ?? fc.constant('application/json'), extra: spec.extra ?? noHeaders, text })
    .map(({ path, auth, type, extra, text: t }) =>
      assemble({ method: spec.method, path, headers: [...auth, ...extra], type, plan: t === undefined ? undefined : { bytes: new Uint8Array(Buffer.from(t)) } }),
    );
}

/** Hostile requests: any method now and then, every header and body varied, transport included. */
function hostile(spec: RouteSpec, origins: Origins): Arbitrary<FuzzRequest> {
  const noBody = fc.constant<BodyPlan | undefined>(undefined);
  const body =
    spec.method === 'POST' && spec.body
      ? bodyPlan(spec.body)
      : fc.oneof({ weight: 12, arbitrary: noBody }, { weight: 1, arbitrary: bodyPlan(jsonText) });
  return fc
    .record({
      method: fc.oneof({ weight: 20, arbitrary: fc.constant(spec.method) }, { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS) }),
      path: spec.path,
      auth: spec.auth,
      type: spec.contentType ?? contentType,
      origin: originJunk(origins.own, origins.allowed),
      fetchSite: fetchSiteJunk,
      extra: spec.extra ?? noHeaders,
      stray: fc.oneof({ weight: 2, arbitrary: noHeaders }, { weight: 1, arbitrary: strayHeaders }),
      plan: body,
    })
    .map(({ method, path, auth, type, origin, fetchSite, extra, stray, plan }) => {
      const headers: [string, string][] = [...auth, ...extra, ...stray];
      if (origin !== undefined) headers.push(['origin', origin]);
      if (fetchSite !== undefined) headers.push(['sec-fetch-site', fetchSite]);
      return assemble({ method, path, headers, type, plan });
    });
}

/**
 * Node answers a head over 16 KB itself (431, no body) before any app sees it: the fuzz stays under it,
 * since what it tests is the app.
 */
function underNodeHeaderLimit(req: FuzzRequest): boolean {
  return req.path.length + req.headers.reduce((n, [name, value]) => n + name.length + value.length + 4, 0) < 14_000;
}

/** The requests of a route: half plausible (to reach deep code), half hostile (to break the edges). */
export function routeRequests(spec: RouteSpec, origins: Origins): Arbitrary<FuzzRequest> {
  return fc.oneof(plausible(spec), hostile(spec, origins)).filter(underNodeHeaderLimit);
}

/**
 * A fixed route path under `mount`, usually exact, sometimes bent below the mount (trailing slash, case,
 * dot segments, an encoded letter) and with a query. The mount itself is never bent: what is outside it is
 * the merchant's app, not the proxy.
 */
export function fixedPath(mount: string, path: string): Arbitrary<string> {
  const bent = fc.constantFrom(
    `${path}/`,
    `/${path}`,
    path.toUpperCase(),
    path.replace(/\/([^/]*)$/, '/./$1'),
    path.replace(/\/([^/]*)$/, '/x/../$1'),
    path.replace(/[a-z]$/, (c) => `%${c.charCodeAt(0).toString(16)}`),
    `${path}%00`,
    `${path};x=1`,
  );
  return fc
    .tuple(fc.oneof({ weight: 12, arbitrary: fc.constant(path) }, { weight: 1, arbitrary: bent }), querySuffix)
    .map(([p, q]) => `${mount}${p}${q}`);
}

/** A path parameter: a real identifier (encoded), a near miss of one, or junk. */
export function pathParam(real: readonly string[]): Arbitrary<string> {
  const known = fc.constantFrom(...real);
  return fc.oneof(
    { weight: 6, arbitrary: known.map(encodeURIComponent) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(known, junkSegment)
        .chain(([id, junk]) => fc.constantFrom(`${encodeURIComponent(id)}${junk}`, `${junk}${encodeURIComponent(id)}`, encodeURIComponent(id.toLowerCase()), encodeURIComponent(`${id} `))),
    },
    { weight: 4, arbitrary: junkSegment },
  );
}

/** A path with parameters: `build(param)` under `mount`, with a query now and then. */
export function paramPath(mount: string, params: Arbitrary<string>, build: (param: string) => string): Arbitrary<string> {
  return fc.tuple(params, querySuffix).map(([p, q]) => `${mount}${build(p)}${q}`);
}

/** An optional header whose value is usually one of `good`, else junk or absent. */
export function sometimes(name: string, good: readonly string[], absentWeight = 4): Arbitrary<[string, string][]> {
  return fc.oneof(
    { weight: absentWeight, arbitrary: noHeaders },
    { weight: 4, arbitrary: fc.constantFrom(...good).map((v) => [[name, v]] as [string, string][]) },
    { weight: 1, arbitrary: headerJunk.map((v) => [[name, v]] as [string, string][]) },
  );
}

/** `Last-Event-ID` as clients send it (a sequence) and as they should not. */
export const lastEventId: Arbitrary<[string, string][]> = fc.oneof(
  { weight: 3, arbitrary: noHeaders },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('0', '1', '2', '999999999999999', '9999999999999999999', '-1', '1e3', '0x1', ' 1 ', '1.5', 'NaN', '')
      .map((v) => [['last-event-id', v]] as [string, string][]),
  },
  { weight: 1, arbitrary: headerJunk.map((v) => [['last-event-id', v]] as [string, string][]) },
);
