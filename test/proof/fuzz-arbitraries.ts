import { gzipSync } from 'node:zlib';
import fc, { type Arbitrary } from 'fast-check';

/**
 * Generic hostile input for the fuzz suites: strings, JSON texts, bodies with their transport, header
 * values and path segments. Route tables (fuzz-proxy-routes.ts, fuzz-sandbox-routes.ts) combine these
 * with valid values so most requests get past the first check.
 */

/** Ghanaian mobile prefixes by network (MTN, Telecel, AirtelTigo). */
const GHANA_PREFIXES = ['24', '25', '53', '54', '55', '59', '20', '50', '26', '27', '56', '57'];

/** A valid Ghanaian mobile number as national digits after the country code (`240000001`). */
export const ghanaNational: Arbitrary<string> = fc
  .tuple(fc.constantFrom(...GHANA_PREFIXES), fc.stringMatching(/^\d{7}$/))
  .map(([prefix, rest]) => `${prefix}${rest}`);

/** encodeURIComponent that never throws: lone surrogates become U+FFFD first, as UTF-8 would carry them. */
export function percentEncode(value: string): string {
  return encodeURIComponent(Buffer.from(value, 'utf8').toString('utf8'));
}

/** Keys that have broken JavaScript servers: prototype pollution, and names of Object.prototype. */
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

/** Strings with a history: number-ish text, unicode of every plane, controls, markup, lone surrogates. */
const NASTY_STRINGS = [
  '', ' ', '\t\n', 'NaN', 'Infinity', '-Infinity', '-0', '0', '1e308', '-1e308', '1e999', '0x10', '1_000', '٠٢٤٠٠٠٠٠٠٠١',
  '０２４０００００００１', 'null', 'undefined', 'true', '[]', '{}', ...PROTO_KEYS, '<script>alert(1)</script>', '${7*7}', '{{7*7}}',
  '../../etc/passwd', '%00', '\u0000', '\u0000\u0001\u001f', '\ud800', '\udfff\ud800', '🙂👍🏽', 'ꦏ꧀', 'e\u0301', '\u202e0240000001',
  'Robert"); DROP TABLE x;--', "' OR '1'='1", '\r\nX-Injected: 1', 'a\u2028b\u2029c',
];

/** Any string, biased to the kinds above, and sometimes huge. */
export const junkString: Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('a', '9', 'é', '🙂'), fc.integer({ min: 100, max: 12_000 })).map(([c, n]) => c.repeat(n)) },
);

/** Numbers written as JSON can write them, and as JSON cannot (`NaN` makes the text invalid on purpose). */
const numberText: Arbitrary<string> = fc.oneof(
  fc.double().map((n) => JSON.stringify(n)),
  fc.integer().map(String),
  fc.constantFrom('-0', '1e308', '-1e308', '1e999', '5e-324', '0.1e-400', '123456789012345678901234567890', '9007199254740993', 'NaN', '-', '01', '1.', '.5', '+1'),
);

/** An object key: anything, often a prototype key. */
export const junkKey: Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...PROTO_KEYS) },
  { weight: 3, arbitrary: junkString.filter((s) => s.length < 200) },
);

/** JSON text of a nested junk value; objects are written by hand so `__proto__` stays an own key. */
export const jsonText: Arbitrary<string> = fc.letrec<{ value: string; array: string; object: string; leaf: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('array'), tie('object')),
  leaf: fc.oneof(fc.constantFrom('null', 'true', 'false'), numberText, junkString.map((s) => JSON.stringify(s))),
  array: fc.array(tie('value'), { maxLength: 5 }).map((items) => `[${items.join(',')}]`),
  object: fc
    .array(fc.tuple(junkKey, tie('value')), { maxLength: 5 })
    .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
})).value;

/** Valid JSON texts for each field of a route, by name. */
export type FieldValues = Record<string, Arbitrary<string>>;

/**
 * A JSON object text shaped like a route's body: each field usually valid, sometimes of a wrong type or
 * missing, with extra fields and duplicate keys now and then.
 */
export function shapedJson(fields: FieldValues): Arbitrary<string> {
  const names = Object.keys(fields);
  const value = (name: string) => fc.oneof({ weight: 8, arbitrary: fields[name]! }, { weight: 1, arbitrary: jsonText });
  return fc
    .record({
      present: fc.oneof({ weight: 8, arbitrary: fc.constant(names) }, { weight: 1, arbitrary: fc.subarray(names) }),
      values: fc.tuple(...names.map(value)),
      extras: fc.oneof({ weight: 6, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(fc.tuple(junkKey, jsonText), { minLength: 1, maxLength: 3 }) }),
      duplicate: fc.oneof({ weight: 10, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: jsonText }),
    })
    .map(({ present, values, extras, duplicate }) => {
      const entries: [string, string][] = names.map((n, i) => [n, values[i]!] as [string, string]).filter(([n]) => present.includes(n));
      if (duplicate !== undefined && entries[0]) entries.unshift([entries[0][0], duplicate]);
      entries.push(...extras);
      return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
    });
}

/** A request body: the bytes, the transport, and how its Content-Encoding is claimed. */
export interface BodyPlan {
  bytes: Uint8Array;
  chunks?: number | undefined;
  contentEncoding?: string | undefined;
}

/** Bytes that are not UTF-8: lone continuation bytes, overlongs, surrogates, truncated sequences. */
const INVALID_UTF8 = [[0xff], [0xc3, 0x28], [0x80], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0xfe, 0xfe, 0xff, 0xff]];

/** Turns a text into bytes, sometimes with invalid UTF-8 spliced in or in another encoding. */
const encodeText = (text: Arbitrary<string>): Arbitrary<Uint8Array> =>
  fc.oneof(
    { weight: 8, arbitrary: text.map((t) => new Uint8Array(Buffer.from(t, 'utf8'))) },
    {
      weight: 2,
      arbitrary: fc.tuple(text, fc.constantFrom(...INVALID_UTF8), fc.nat()).map(([t, bad, at]) => {
        const bytes = Buffer.from(t, 'utf8');
        const cut = bytes.length === 0 ? 0 : at % bytes.length;
        return new Uint8Array(Buffer.concat([bytes.subarray(0, cut), Buffer.from(bad), bytes.subarray(cut)]));
      }),
    },
    { weight: 1, arbitrary: text.map((t) => new Uint8Array(Buffer.from(t, 'utf16le'))) },
    { weight: 1, arbitrary: text.map((t) => new Uint8Array(Buffer.from(t, 'latin1'))) },
  );

/** Content-Encoding claims: mostly none; else a claim the (plain) body does not honour, or a real gzip. */
const ENCODING_CLAIMS = ['gzip', 'deflate', 'br', 'zstd', 'identity', 'GZIP', 'gzip, gzip', 'x-junk', 'compress', ''];

/** Any body for a route whose valid bodies are `valid`: valid-shaped text mostly, else junk of every kind. */
export function bodyPlan(valid: Arbitrary<string>): Arbitrary<BodyPlan> {
  const text = fc.oneof(
    { weight: 10, arbitrary: valid },
    { weight: 2, arbitrary: jsonText },
    { weight: 1, arbitrary: junkString },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', 'null', '""', '[]', '{', '{"a":', '\ufeff{}', '{}garbage', 'a=1&b=2') },
  );
  const bytes = fc.oneof({ weight: 10, arbitrary: encodeText(text) }, { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }) });
  return fc
    .record({
      bytes,
      chunks: fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 6 }) }),
      encoding: fc.oneof(
        { weight: 20, arbitrary: fc.constant<string | undefined>(undefined) },
        { weight: 2, arbitrary: fc.constantFrom(...ENCODING_CLAIMS) },
        { weight: 1, arbitrary: fc.constant('gzip (real)') },
      ),
    })
    .map(({ bytes: b, chunks, encoding }) =>
      encoding === 'gzip (real)'
        ? { bytes: new Uint8Array(gzipSync(b)), chunks, contentEncoding: 'gzip' }
        : { bytes: b, chunks, contentEncoding: encoding },
    );
}

/** A header value Node will send: tab, printable ASCII and latin1 bytes, sometimes long. */
export const headerJunk: Arbitrary<string> = fc.oneof(
  fc.string({
    unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09)).map((c) => String.fromCharCode(c)),
    maxLength: 60,
  }),
  fc.constantFrom('', ' ', 'null', 'undefined', '-1', '99999999999999999999', 'a'.repeat(4000), '\u00ff\u00fe', '%00'),
);

/** Content-Type values: JSON with charset variants, near misses, others, garbage, or none. */
export const contentType: Arbitrary<string | undefined> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'APPLICATION/JSON', 'application/json; charset="utf-8"',
      'application/json; charset=utf-16', 'application/json; charset=utf-16le', 'application/json; charset=latin1', 'application/json; charset=utf-42',
      'application/json; charset=', 'application/json; charset', 'application/json;', 'application/json; foo', 'application/json; a=b; a=c',
      'application/json ;charset=utf-8', 'application/json; charset=utf-8; charset=latin1', 'application/jsonx', 'application/json-patch+json',
      'application/vnd.api+json', 'text/plain', 'text/json', 'text/html; charset=utf-8', 'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded; charset=latin1', 'application/x-www-form-urlencoded; charset=utf-7', 'multipart/form-data; boundary=x',
      'application/octet-stream', '*/*', 'json', '/', ';', '',
    ),
  },
  { weight: 1, arbitrary: headerJunk },
  { weight: 2, arbitrary: fc.constant(undefined) },
);

/** A path segment that should be taken as data, never as structure. */
export const junkSegment: Arbitrary<string> = fc.oneof(
  fc.constantFrom('.', '..', '%2e', '%2E%2E', '%2F', '..%2F..%2F', 'a%2Fb', '%5C', '%00', '%', '%%', '%zz', '%E0%A4%A', '%C3%28', '%FF', '%uD800', '~', '@', ';x=1', 'a;b', '*', '__proto__', 'constructor', 'prototype', 'null', '0', '-1', 'NaN'),
  fc.webSegment(),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map(percentEncode),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 10 }).map(percentEncode),
  fc.integer({ min: 200, max: 6_000 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 50, max: 1_500 }).map((n) => '%41'.repeat(n)),
);

/** A query string, usually none. */
export const querySuffix: Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom('?', '?a=1&a=2', '?__proto__[x]=1', '?constructor[prototype][x]=1', '?%zz=%', '?a[b][c][d][e][f]=1', '#frag') },
  { weight: 1, arbitrary: fc.webQueryParameters().map((q) => `?${q}`) },
);

/** Values of a header that means "where the request comes from". */
export const originJunk = (own: string, allowed: string): Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.constantFrom(own, allowed) },
    { weight: 1, arbitrary: fc.constantFrom('null', 'https://evil.example', `${own}.evil.example`, own.toUpperCase(), `${allowed}/`, 'file://', '') },
    { weight: 1, arbitrary: headerJunk },
  );

export const fetchSiteJunk: Arbitrary<string | undefined> = fc.oneof(
  { weight: 8, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.constantFrom('same-origin', 'same-site', 'cross-site', 'none', 'CROSS-SITE') },
  { weight: 1, arbitrary: headerJunk },
);

/** Headers a client may add for no reason: each sometimes, with junk values. */
export const strayHeaders: Arbitrary<[string, string][]> = fc.array(
  fc.tuple(
    fc.constantFrom(
      'x-api-key', 'x-api-secret', 'x-api-version', 'accept', 'accept-charset', 'accept-encoding', 'cookie', 'x-forwarded-for',
      'x-forwarded-proto', 'x-forwarded-host', 'forwarded', 'x-request-id', 'if-none-match', 'range', 'expect-ct', 'x-http-method-override',
      'x-junk', 'last-event-id', 'user-agent', 'referer', 'authorization', 'host',
    ),
    headerJunk,
  ),
  { maxLength: 3 },
);
