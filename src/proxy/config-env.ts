import { randomBytes } from 'node:crypto';
import { ConfigError, resolveConfig, type ProxyConfig } from './config.js';

/** Default base URL of a locally running sandbox. */
export const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:4010';

/** The sandbox's fixed credentials (DESIGN: sandbox). */
const SANDBOX_CREDENTIALS = {
  apiKey: 'test-api-key',
  apiSecret: 'test-api-secret',
  username: 'test-user',
  password: 'test-password',
  checkoutKey: 'test-checkout-key',
};

const PROVIDER_ENVS = ['sandbox', 'staging', 'production'] as const;

/** A configuration read from the environment, what was wrong on the way, and where each field came from. */
interface EnvReading {
  config: ProxyConfig;
  /** One sentence per problem, under the variable's name. */
  problems: string[];
  /** A field's path in the configuration (`provider.messagingBaseUrl`), and the variable the user set for it. */
  sources: Map<string, string>;
}

/**
 * Builds a configuration from DESIGN's environment variables. In the `sandbox` environment base URLs
 * default to `SANDBOX_URL` (or http://127.0.0.1:4010) and credentials to the sandbox's; elsewhere every
 * base URL and credential is required. In the sandbox only, a missing PROXY_TOKEN_SECRET is replaced by a
 * random one (tokens then die with the process).
 *
 * The result is checked in full: every problem is reported at once, each under the variable the user set
 * (a bad SANDBOX_URL as SANDBOX_URL, not as the base URLs made from it; a missing WEBHOOK_SECRET beside a
 * too-short PROXY_TOKEN_SECRET, not instead of it).
 * @throws ConfigError with one sentence per problem, each starting with its variable.
 */
export function configFromEnv(env: NodeJS.ProcessEnv): ProxyConfig {
  const reading = readEnv(env);
  const problems = [...reading.problems, ...checked(reading)];
  if (problems.length > 0) throw new ConfigError(problems);
  return reading.config;
}

/**
 * The provider part of {@link configFromEnv} alone (PROVIDER_ENV, SANDBOX_URL, base URLs, credentials),
 * for tools that call the provider without running a proxy (the CLI).
 * @throws ConfigError naming each missing or wrong provider variable, and only those.
 */
export function providerSettingsFromEnv(env: NodeJS.ProcessEnv): ProxyConfig['provider'] {
  // Stand-ins for the proxy-only variables, so that only provider variables can be reported.
  const reading = readEnv({ ...env, PROXY_TOKEN_SECRET: 'unused', PAYEE_NAME: 'unused', PROXY_SERVER_KEY: undefined });
  const providerOnly = (problem: string) => /^(PROVIDER_ENV|SANDBOX_URL|MESSAGING_|PAYMENT_|CHECKOUT_)/.test(problem);
  const problems = reading.problems.filter(providerOnly);
  if (problems.length > 0) throw new ConfigError(problems);
  return reading.config.provider;
}

/** Reads every variable, collecting problems instead of stopping at the first. */
function readEnv(env: NodeJS.ProcessEnv): EnvReading {
  const problems: string[] = [];
  const sources = new Map<string, string>();
  const given = (name: string) => env[name]?.trim() || undefined;

  const rawEnv = given('PROVIDER_ENV') ?? 'sandbox';
  const known = (PROVIDER_ENVS as readonly string[]).includes(rawEnv);
  if (!known) problems.push('PROVIDER_ENV: must be sandbox, staging or production');
  // An unknown environment is reported once; the rest is read as the sandbox so its defaults add no noise.
  const providerEnv = (known ? rawEnv : 'sandbox') as (typeof PROVIDER_ENVS)[number];
  const sandbox = providerEnv === 'sandbox';

  const sandboxUrl = given('SANDBOX_URL') ?? DEFAULT_SANDBOX_URL;
  const sandboxBase = /^https?:\/\/[^/]/i.test(sandboxUrl) && URL.canParse(sandboxUrl) ? sandboxUrl.replace(/\/+$/, '') : undefined;
  if (sandbox && sandboxBase === undefined) problems.push(`SANDBOX_URL: must be an absolute http(s) URL, such as ${DEFAULT_SANDBOX_URL}`);

  /** A variable's value, or the sandbox's default (recording `defaultFrom` as its source), or a problem. */
  const read = (name: string, path: string, sandboxDefault?: string, defaultFrom?: string): string | undefined => {
    const value = given(name);
    if (value !== undefined) {
      sources.set(path, name);
      return value;
    }
    if (sandbox && sandboxDefault !== undefined) {
      sources.set(path, defaultFrom ?? name);
      return sandboxDefault;
    }
    // Missing because SANDBOX_URL was wrong: already said.
    if (sandbox && defaultFrom === 'SANDBOX_URL') {
      sources.set(path, 'SANDBOX_URL');
      return undefined;
    }
    problems.push(`${name}: is required when PROVIDER_ENV is ${providerEnv}`);
    sources.set(path, name);
    return undefined;
  };
  const messagingBaseUrl = read('MESSAGING_BASE_URL', 'provider.messagingBaseUrl', sandboxBase, 'SANDBOX_URL');
  const paymentBaseUrl = read('PAYMENT_BASE_URL', 'provider.paymentBaseUrl', sandboxBase && `${sandboxBase}/gateway`, 'SANDBOX_URL');
  const apiKey = read('MESSAGING_API_KEY', 'provider.messaging.apiKey', SANDBOX_CREDENTIALS.apiKey);
  const apiSecret = read('MESSAGING_API_SECRET', 'provider.messaging.apiSecret', SANDBOX_CREDENTIALS.apiSecret);
  const username = read('PAYMENT_USERNAME', 'provider.payment.username', SANDBOX_CREDENTIALS.username);
  const password = read('PAYMENT_PASSWORD', 'provider.payment.password', SANDBOX_CREDENTIALS.password);
  const checkoutKey = read('CHECKOUT_API_KEY', 'provider.checkout.apiKey', SANDBOX_CREDENTIALS.checkoutKey);
  const tokenSecret = read('PROXY_TOKEN_SECRET', 'tokenSecret', randomBytes(32).toString('base64url'));
  const payeeName = read('PAYEE_NAME', 'payeeName', 'Sandbox Merchant');

  const config = {
    provider: {
      env: providerEnv,
      messagingBaseUrl,
      paymentBaseUrl,
      messaging: { apiKey, apiSecret },
      payment: { username, password },
      checkout: { apiKey: checkoutKey },
    },
    tokenSecret,
    payeeName,
    allowedOrigins: (env.PROXY_ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  } as ProxyConfig;
  sources.set('provider.env', 'PROVIDER_ENV');
  sources.set('allowedOrigins', 'PROXY_ALLOWED_ORIGINS');

  const webhookUrl = given('WEBHOOK_URL');
  const webhookSecret = given('WEBHOOK_SECRET');
  const webhookMaxAge = given('WEBHOOK_MAX_AGE_MS');
  if (webhookUrl && webhookSecret) {
    config.webhooks = { url: webhookUrl, secret: webhookSecret };
    // Anything but whole digits is left as it is, for the schema to refuse under this variable's name.
    if (webhookMaxAge !== undefined) config.webhooks.maxAgeMs = /^\d+$/.test(webhookMaxAge) ? Number(webhookMaxAge) : (webhookMaxAge as never);
  } else if (webhookMaxAge !== undefined) problems.push('WEBHOOK_MAX_AGE_MS: is used only with WEBHOOK_URL and WEBHOOK_SECRET');
  if (webhookUrl && !webhookSecret) problems.push('WEBHOOK_SECRET: is required when WEBHOOK_URL is set (signed webhooks need both)');
  else if (webhookSecret && !webhookUrl) problems.push('WEBHOOK_URL: is required when WEBHOOK_SECRET is set (signed webhooks need both)');
  sources.set('webhooks.url', 'WEBHOOK_URL');
  sources.set('webhooks.secret', 'WEBHOOK_SECRET');
  sources.set('webhooks.maxAgeMs', 'WEBHOOK_MAX_AGE_MS');

  readSentinel(given, config, problems, sources);
  readCluster(given, config, problems, sources);
  readReplicas(given, config, sources);

  const optional: [name: string, path: string, set: (value: string) => void][] = [
    ['PROXY_SERVER_KEY', 'serverKey', (v) => (config.serverKey = v)],
    // Whitespace-separated (a token secret may hold a comma); the current PROXY_TOKEN_SECRET signs, these only verify.
    ['PROXY_TOKEN_ACCEPTED_SECRETS', 'acceptedTokenSecrets', (v) => (config.acceptedTokenSecrets = v.split(/\s+/))],
    // Verify nothing: kept only to recognise the numbers hashed under them (docs/tokens.md).
    ['PROXY_TOKEN_RETIRED_SECRETS', 'retiredTokenSecrets', (v) => (config.retiredTokenSecrets = v.split(/\s+/))],
    ['REDIS_URL', 'redisUrl', (v) => (config.redisUrl = v)],
    ['REDIS_PREFIX', 'redisPrefix', (v) => (config.redisPrefix = v)],
    // Anything but true or false is left as it is, for the schema to refuse under this variable's name.
    ['ALLOW_MEMORY_STORE', 'allowMemoryStore', (v) => (config.allowMemoryStore = v === 'true' ? true : v === 'false' ? false : (v as never))],
    ['REFERENCE_PREFIX', 'referencePrefix', (v) => (config.referencePrefix = v)],
    ['PROVIDER_STATUS_REFERENCE', 'provider.statusReference', (v) => (config.provider.statusReference = v as 'either')],
    // Anything but true or false is left as it is, for the schema to refuse under this variable's name.
    ['PROVIDER_CHECKOUT_LISTING', 'provider.checkoutListing', (v) => (config.provider.checkoutListing = v === 'true' ? true : v === 'false' ? false : (v as never))],
    ['DEFAULT_COUNTRY', 'defaultCountry', (v) => (config.defaultCountry = v.toUpperCase())],
    ['OTP_SENDER', 'otp.sender', (v) => (config.otp = { ...config.otp, sender: v })],
    ['OTP_TEMPLATE', 'otp.template', (v) => (config.otp = { ...config.otp, template: v })],
  ];
  for (const [name, path, set] of optional) {
    const value = given(name);
    if (value !== undefined) set(value);
    sources.set(path, name);
  }
  return { config, problems, sources };
}

/** REDIS_WAIT_REPLICAS, REDIS_WAIT_TIMEOUT_MS, REDIS_MAX_REPLICA_LAG_SECONDS: `redisReplicas`. */
function readReplicas(given: (name: string) => string | undefined, config: ProxyConfig, sources: Map<string, string>): void {
  const fields = [
    ['REDIS_WAIT_REPLICAS', 'acknowledge'],
    ['REDIS_WAIT_TIMEOUT_MS', 'timeoutMs'],
    ['REDIS_MAX_REPLICA_LAG_SECONDS', 'maxLagSeconds'],
  ] as const;
  const replicas: Record<string, number> = {};
  for (const [name, field] of fields) {
    sources.set(`redisReplicas.${field}`, name);
    const value = given(name);
    // Anything but whole digits is left as it is, for the schema to refuse under this variable's name.
    if (value !== undefined) replicas[field] = /^\d+$/.test(value) ? Number(value) : (value as never);
  }
  if (Object.keys(replicas).length > 0) config.redisReplicas = replicas;
}

/**
 * REDIS_SENTINELS (`host:port` list) and REDIS_MASTER_NAME, with REDIS_PASSWORD and REDIS_SENTINEL_PASSWORD:
 * Redis through a Sentinel group (ioredis documents no URL form for it).
 */
function readSentinel(given: (name: string) => string | undefined, config: ProxyConfig, problems: string[], sources: Map<string, string>): void {
  const list = given('REDIS_SENTINELS');
  const name = given('REDIS_MASTER_NAME');
  sources.set('redisSentinel.name', 'REDIS_MASTER_NAME');
  sources.set('redisSentinel.sentinels', 'REDIS_SENTINELS');
  sources.set('redisSentinel', 'REDIS_SENTINELS');
  if (list === undefined) {
    if (name !== undefined) problems.push('REDIS_MASTER_NAME: applies only with REDIS_SENTINELS');
    if (given('REDIS_SENTINEL_PASSWORD') !== undefined) problems.push('REDIS_SENTINEL_PASSWORD: applies only with REDIS_SENTINELS');
    if (given('REDIS_PASSWORD') !== undefined && given('REDIS_CLUSTER_NODES') === undefined) {
      problems.push('REDIS_PASSWORD: applies only with REDIS_SENTINELS or REDIS_CLUSTER_NODES (with REDIS_URL, put it in the URL)');
    }
    return;
  }
  if (given('REDIS_URL') !== undefined) problems.push('REDIS_SENTINELS: give either REDIS_URL or REDIS_SENTINELS, not both');
  const sentinels = hostPorts(list, 'REDIS_SENTINELS', '10.0.0.5:26379,10.0.0.6:26379', problems);
  if (name === undefined) problems.push("REDIS_MASTER_NAME: is required with REDIS_SENTINELS (the master's name in the Sentinels' configuration)");
  const password = given('REDIS_PASSWORD');
  const sentinelPassword = given('REDIS_SENTINEL_PASSWORD');
  config.redisSentinel = { sentinels, name: name ?? '', ...(password ? { password } : {}), ...(sentinelPassword ? { sentinelPassword } : {}) };
}

/** A `host:port` list (IPv6 in brackets); each entry that is not one is a problem under `name`. */
function hostPorts(list: string, name: string, example: string, problems: string[]): { host: string; port: number }[] {
  const out: { host: string; port: number }[] = [];
  for (const entry of list.split(',').map((e) => e.trim()).filter(Boolean)) {
    const match = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65_535) {
      problems.push(`${name}: "${entry}" is not host:port (for example ${example})`);
      continue;
    }
    out.push({ host: match[1]!.replace(/^\[|\]$/g, ''), port });
  }
  return out;
}

/**
 * REDIS_CLUSTER_NODES (`host:port` list of some of the Cluster's nodes), with REDIS_PASSWORD: Redis Cluster
 * (ioredis documents no URL form for it).
 */
function readCluster(given: (name: string) => string | undefined, config: ProxyConfig, problems: string[], sources: Map<string, string>): void {
  const list = given('REDIS_CLUSTER_NODES');
  sources.set('redisCluster', 'REDIS_CLUSTER_NODES');
  sources.set('redisCluster.nodes', 'REDIS_CLUSTER_NODES');
  sources.set('redisCluster.shards', 'REDIS_CLUSTER_SHARDS');
  const shards = given('REDIS_CLUSTER_SHARDS');
  if (list === undefined) {
    if (shards !== undefined) problems.push('REDIS_CLUSTER_SHARDS: applies only with REDIS_CLUSTER_NODES (one server keeps every key in one place)');
    return;
  }
  if (given('REDIS_URL') !== undefined || given('REDIS_SENTINELS') !== undefined) {
    problems.push('REDIS_CLUSTER_NODES: give one of REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES');
  }
  const nodes = hostPorts(list, 'REDIS_CLUSTER_NODES', '10.0.0.5:7000,10.0.0.6:7000', problems);
  const password = given('REDIS_PASSWORD');
  // Anything but whole digits is left as it is, for the schema to refuse under this variable's name.
  const count = shards === undefined ? {} : { shards: /^\d+$/.test(shards) ? Number(shards) : (shards as never) };
  config.redisCluster = { nodes, ...(password ? { password } : {}), ...count };
}

/**
 * The configuration's own checks, each problem put under the variable behind its field; a variable already
 * reported while reading is not reported twice.
 */
function checked({ config, problems, sources }: EnvReading): string[] {
  try {
    resolveConfig(config);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const said = new Set(problems.map((p) => p.slice(0, p.indexOf(':'))));
    const out: string[] = [];
    for (const problem of err.problems) {
      const named = byVariable(problem, sources);
      const variable = named.slice(0, named.indexOf(':'));
      if (said.has(variable)) continue;
      out.push(named);
    }
    return out;
  }
}

/**
 * `provider.messagingBaseUrl: must be…` → `MESSAGING_BASE_URL: must be…` (the longest known path that
 * starts it).
 */
function byVariable(problem: string, sources: Map<string, string>): string {
  const colon = problem.indexOf(':');
  const path = colon === -1 ? problem : problem.slice(0, colon);
  let best: string | undefined;
  for (const known of sources.keys()) {
    if ((path === known || path.startsWith(`${known}.`)) && (best === undefined || known.length > best.length)) best = known;
  }
  const named = best === undefined ? problem : `${sources.get(best)}${problem.slice(colon)}`;
  // A rule across options names the other one too (`when provider.env is production`): by its variable.
  return named.replace(/\bprovider\.env\b/g, 'PROVIDER_ENV');
}
