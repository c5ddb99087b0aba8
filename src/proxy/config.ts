import type { Logger } from 'pino';
import { z } from 'zod';
import type { ProviderClientConfig } from '../provider/client.js';
import { limitsSchema } from './config-limits.js';
import { redisClusterSchema, redisProblems, redisSentinelSchema } from './config-redis.js';
import { MIN_PRODUCTION_HEARTBEAT_MS, relaySchema } from './config-relay.js';
import { required, serverKeySchema, tokenSecretSchema } from './config-secrets.js';
import { webhooksSchema } from './config-webhooks.js';
import { DEFAULT_OUTBOX_OPTIONS } from './notify/outbox-types.js';
import type { ProxyHooks } from './context.js';
import type { ProxyStore } from './store/types.js';

export { DEFAULT_LIMITS, limitPolicy, type LimitName, type LimitPolicy } from './config-limits.js';
export { MIN_DISTINCT_SECRET_BYTES } from './config-secrets.js';

/** Raised at start-up when the configuration is wrong; `problems` holds one sentence per problem. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid merchant proxy configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).transform((u) => u.replace(/\/+$/, ''));

const origin = z.string().refine(
  (value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
    } catch {
      return false;
    }
  },
  { error: (iss) => `${JSON.stringify(iss.input)} is not an origin (scheme://host[:port], no path or trailing slash)` },
);

const fn = <T>(what: string) => z.custom<T>((v) => typeof v === 'function', { error: `must be a function (${what})` });

const hooksSchema = z
  .strictObject({
    onPaymentUpdate: fn<NonNullable<ProxyHooks['onPaymentUpdate']>>('update handler').optional(),
    onCheckoutUpdate: fn<NonNullable<ProxyHooks['onCheckoutUpdate']>>('update handler').optional(),
    beforeOtpSend: fn<NonNullable<ProxyHooks['beforeOtpSend']>>('human check').optional(),
  })
  .default({});

const storeSchema = z.custom<ProxyStore>(
  (v) => typeof v === 'object' && v !== null && typeof (v as ProxyStore).setIfAbsent === 'function',
  { error: 'must implement the ProxyStore interface' },
);

const loggerSchema = z.custom<Logger>(
  (v) => typeof v === 'object' && v !== null && typeof (v as Logger).child === 'function',
  { error: 'must be a pino logger' },
);

/** The configuration schema of `createMerchantProxy`; strict, so an unknown option is an error. */
export const proxyConfigSchema = z.strictObject({
  provider: z.strictObject({
    env: z.enum(['sandbox', 'staging', 'production']).default('sandbox'),
    messagingBaseUrl: httpUrl,
    paymentBaseUrl: httpUrl,
    /** Defaults to `messagingBaseUrl` (the specification serves both on `{base_url}`). */
    checkoutBaseUrl: httpUrl.optional(),
    messaging: z.strictObject({ apiKey: required(), apiSecret: required() }),
    payment: z.strictObject({ username: required(), password: required() }),
    checkout: z.strictObject({ apiKey: required() }),
    /**
     * Hosts a checkout session's `checkoutUrl` may point at (besides the checkout interface's own host).
     * Any other host, and any scheme but https (http for the sandbox), is refused.
     */
    checkoutUrlHosts: z.array(z.string().min(1)).optional(),
    /**
     * Which reference the provider's payment status path takes (the specification does not say): `either`
     * (read by referenceId, then by referenceNo after a 0404; the sandbox's), `referenceNo`, or `referenceId`
     * (then a try whose answer was lost cannot be read: it stays UNKNOWN until a callback or the operator).
     */
    statusReference: z.enum(['either', 'referenceNo', 'referenceId']).default('either'),
    /**
     * Whether the checkout interface lists sessions by reference (not in the specification; the sandbox does):
     * a session whose creation's answer was lost is then found; otherwise it blocks its order until the
     * operator resolves it. Default: true in the sandbox, false elsewhere.
     */
    checkoutListing: z.boolean().optional(),
  }),
  /**
   * Put before every reference the provider sees (`<prefix><order>-<n>`, the checkout's reference): shops
   * sharing one provider account each set their own, so none ever finds (or adopts) another's payment.
   */
  referencePrefix: z
    .string()
    .regex(/^[A-Za-z0-9._-]{0,32}$/, 'must be at most 32 letters, digits and . _ - (for example SHOP-A-)')
    .default(''),
  tokenSecret: tokenSecretSchema(),
  /**
   * Other token secrets that verify tokens and proofs and never sign: during a rotation, the new secret
   * before any instance signs with it, then the old one until the last token it signed has expired
   * (docs/tokens.md, Rotating the secret).
   */
  acceptedTokenSecrets: z.array(tokenSecretSchema()).max(4, 'takes at most 4 secrets').default([]),
  /**
   * Token secrets that verify no token any more and are kept only so that what was hashed under them (the
   * number a token locked in an order's terms, for the record's seven days) is still recognised: the old
   * secret, from the rotation's last step until seven days later (docs/tokens.md, Rotating the secret).
   */
  retiredTokenSecrets: z.array(tokenSecretSchema()).max(4, 'takes at most 4 secrets').default([]),
  /**
   * The merchant backend's key for the server API (`/server/...` under the mount path): at least 32 bytes,
   * never sent to a browser. Without it the server API answers 503 SERVER_API_DISABLED.
   */
  serverKey: serverKeySchema().optional(),
  audience: z.string().min(1).default('merchant-elements'),
  allowedOrigins: z.array(origin).default([]),
  /**
   * Express's `trust proxy` for the router when it runs outside an Express app (Fastify's middie, Connect,
   * node:http), where no app of the merchant's sets it: false, true, a hop count, or addresses and subnets.
   * Inside an Express app, the app's own setting applies.
   */
  trustProxy: z.union([z.boolean(), z.number().int().min(0).max(100), z.string().min(1)]).default(false),
  /** How long a request body may take to arrive (408 after; a trickled body held a socket for 300 s). */
  bodyTimeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  /** Per-address limits count an IPv6 client by this prefix (/64: what one home or phone is given). */
  ipv6PrefixLength: z.number().int().min(32).max(128).default(64),
  redisUrl: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
  /** Redis through a Sentinel group instead of `redisUrl` (REDIS_SENTINELS, REDIS_MASTER_NAME). */
  redisSentinel: redisSentinelSchema.optional(),
  /** Redis Cluster instead of `redisUrl` (REDIS_CLUSTER_NODES): every key under one hash tag. */
  redisCluster: redisClusterSchema.optional(),
  /**
   * Prefix of every Redis key and channel (default `me:`), rate limits included: shops, or staging and
   * production, sharing one Redis never read each other's orders when their prefixes differ.
   */
  redisPrefix: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,64}$/, 'must be 1 to 64 letters, digits and . _ : - (for example shop-a:prod:)')
    .optional(),
  /**
   * Where the Redis master has replicas (DESIGN: replicas): how many must acknowledge each commit
   * (`acknowledge`, REDIS_WAIT_REPLICAS; 0: replication stays asynchronous), how long a commit waits for them
   * (`timeoutMs`, REDIS_WAIT_TIMEOUT_MS; a commit not acknowledged in time fails as a lost answer), and the
   * lag beyond which a replica is behind and `/ready` says so (`maxLagSeconds`, REDIS_MAX_REPLICA_LAG_SECONDS).
   */
  redisReplicas: z
    .strictObject({
      acknowledge: z.number().int().min(0).max(16).default(0),
      timeoutMs: z.number().int().min(10).max(1_500, 'must be at most 1500 (a commit behind a WAIT waits for it, under the 2 s command timeout)').default(1_000),
      maxLagSeconds: z.number().int().min(1).max(3_600).default(10),
    })
    .default({ acknowledge: 0, timeoutMs: 1_000, maxLagSeconds: 10 }),
  /**
   * Where the mode needs durability, accept the memory store anyway (ALLOW_MEMORY_STORE=true): a restart of
   * the process loses every record, and can then charge twice. Without it `/ready` fails on it.
   */
  allowMemoryStore: z.boolean().default(false),
  store: storeSchema.optional(),
  otp: z
    .strictObject({
      sender: z.string().min(1).max(11, 'must be at most 11 characters (an SMS sender ID)').default('Verify'),
      template: z
        .string()
        .min(1)
        .refine((t) => t.includes('{code}'), 'must contain the {code} placeholder')
        .default('Your verification code is {code}. It expires in {amount} {duration}.'),
      pinLength: z.number().int().min(4).max(10).default(6),
      pinType: z.enum(['NUMERIC', 'ALPHANUMERIC', 'ALPHABETIC']).default('NUMERIC'),
      expiryMinutes: z.number().int().min(1).max(10, 'must be at most 10 (minutes)').default(5),
      maxRetries: z.number().int().min(1).max(10).default(5),
    })
    .default({
      sender: 'Verify',
      template: 'Your verification code is {code}. It expires in {amount} {duration}.',
      pinLength: 6,
      pinType: 'NUMERIC',
      expiryMinutes: 5,
      maxRetries: 5,
    }),
  defaultCountry: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be an ISO 3166 alpha-2 country code such as GH')
    .default('GH'),
  payeeName: required(),
  accountNameDisplay: z.enum(['masked', 'full']).default('masked'),
  /** What the proxy knows of the provider's mobile-money networks, to tell the customer before and while paying. */
  payments: z
    .strictObject({
      /** The charge the provider adds, in percent of the amount (rounded half-up to the pesewa): shown before Pay. */
      chargePercent: z.number().min(0).max(100).optional(),
      /** How long a prompt can be approved on each network (by the account lookup's network name), in seconds. */
      promptLifetimeSeconds: z.record(z.string().min(1), z.number().int().positive().max(86_400)).optional(),
    })
    .default({}),
  limits: limitsSchema,
  relay: relaySchema,
  hooks: hooksSchema,
  webhooks: webhooksSchema.optional(),
  receipts: z
    .strictObject({
      sms: z.boolean().optional(),
      email: z.strictObject({ from: z.string().min(1), to: z.string().min(1) }).optional(),
    })
    .optional(),
  logger: loggerSchema.optional(),
  /** How often an outage still going on is summarised in the log, one line per kind (60 s by default). */
  outageSummaryIntervalMs: z.number().int().positive().default(60_000),
  fetch: fn<typeof fetch>('fetch').optional(),
  timeouts: z
    .strictObject({ connectMs: z.number().int().positive(), totalMs: z.number().int().positive() })
    .optional(),
  /** The provider client's circuit breaker (`false` disables it); its defaults follow DESIGN. */
  circuitBreaker: z
    .custom<ProviderClientConfig['circuitBreaker']>((v) => v === false || (typeof v === 'object' && v !== null), {
      error: 'must be false or the circuit breaker options',
    })
    .optional(),
});

/** What `createMerchantProxy` takes. */
export type ProxyConfig = z.input<typeof proxyConfigSchema>;
/** The configuration after validation, every default filled in. */
export type ResolvedProxyConfig = z.output<typeof proxyConfigSchema> & {
  provider: { checkoutBaseUrl: string };
};

/** Validates the configuration, fills in defaults, or throws a `ConfigError` naming every problem at once. */
export function resolveConfig(config: ProxyConfig): ResolvedProxyConfig {
  const parsed = proxyConfigSchema.safeParse(config);
  if (!parsed.success) {
    // The checks across fields below read parsed values: run them on the options that parse on their own,
    // so that one start-up names every problem, not the schema's first and the rest on the next try.
    throw new ConfigError([...parsed.error.issues.map(describeIssue), ...crossChecks(parsedOptions(config))]);
  }
  const out = parsed.data;
  const problems = crossChecks(out);
  if (problems.length > 0) throw new ConfigError(problems);
  return { ...out, provider: { ...out.provider, checkoutBaseUrl: out.provider.checkoutBaseUrl ?? out.provider.messagingBaseUrl } };
}

type Resolved = z.output<typeof proxyConfigSchema>;

/** Each top-level option that parses on its own; `provider.env` on its own too (the checks need it). */
function parsedOptions(config: ProxyConfig): Partial<Resolved> & { env?: Resolved['provider']['env'] } {
  const input = (typeof config === 'object' && config !== null ? config : {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(proxyConfigSchema.shape)) {
    const result = (schema as z.ZodType).safeParse(input[key]);
    if (result.success) out[key] = result.data;
  }
  const env = proxyConfigSchema.shape.provider.shape.env.safeParse((input.provider as { env?: unknown } | undefined)?.env);
  return { ...out, ...(env.success ? { env: env.data } : {}) };
}

/** The rules that span options; each reads only what parsed. */
function crossChecks(out: Partial<Resolved> & { env?: Resolved['provider']['env'] }): string[] {
  const problems: string[] = [];
  const env = out.provider?.env ?? out.env;
  problems.push(...redisProblems(out));
  if (out.relay && out.relay.minIntervalMs > out.relay.maxIntervalMs) problems.push('relay.minIntervalMs: must not exceed relay.maxIntervalMs');
  if (env === 'production' && out.relay?.heartbeatMs !== undefined && out.relay.heartbeatMs < MIN_PRODUCTION_HEARTBEAT_MS) {
    // Each heartbeat is bytes on every open stream, paid for by the customer's phone plan and written by the proxy.
    problems.push(`relay.heartbeatMs: must be at least ${MIN_PRODUCTION_HEARTBEAT_MS} (ms) in production`);
  }
  if (out.webhooks) {
    const url = new URL(out.webhooks.url);
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    if (url.protocol === 'http:' && env !== undefined && env !== 'sandbox' && !loopback) {
      problems.push(`webhooks.url: must be https when provider.env is ${env} (http only in the sandbox or to a loopback host)`);
    }
    const leaseMs = out.relay?.outboxLeaseMs ?? DEFAULT_OUTBOX_OPTIONS.leaseMs;
    if (out.webhooks.timeoutMs >= leaseMs) {
      // Past the lease another instance would take the message over while this try still waits: two at once.
      problems.push(`webhooks.timeoutMs: must be less than relay.outboxLeaseMs (${leaseMs})`);
    }
    if (env === 'production' && out.webhooks.maxAgeMs < 24 * 60 * 60_000) {
      problems.push('webhooks.maxAgeMs: must be at least a day (86400000) in production');
    }
  }
  return problems;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const where = path ? ` in ${path}` : '';
    return issue.keys.map((k) => `unknown option '${k}'${where}`).join('; ');
  }
  // Never quote a secret back: messages are our own sentences about the field, not its value.
  return `${path || '(config)'}: ${issue.message}`;
}
