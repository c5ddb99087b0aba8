// The figures the guides quote about limits, deadlines and retention, read from the constants the proxy
// runs with: docs/operations.md's defaults table and docs/webhooks.md's delivery sentence.
import { SERVICE_TIMEOUTS } from '../../src/cli/proxy-service.js';
import { DEFAULT_PRE_STOP_SECONDS } from '../../src/cli/serve-command.js';
import { providerClientConfigSchema } from '../../src/provider/client.js';
import { resolveConfig, type ResolvedProxyConfig } from '../../src/proxy/config.js';
import { DEFAULT_LIMITS, type LimitName } from '../../src/proxy/config-limits.js';
import { MIN_PRODUCTION_HEARTBEAT_MS, relayOptions } from '../../src/proxy/config-relay.js';
import { BODY_TIMEOUT_MS, MAX_BODY_BYTES } from '../../src/proxy/middleware/body.js';
import { DEFAULT_OUTBOX_OPTIONS } from '../../src/proxy/notify/outbox-types.js';
import { RECORD_TTL_MS } from '../../src/proxy/order/keys.js';
import { MOVED_BACK_NOTE_MS } from '../../src/proxy/store/store-checker.js';
import { HISTORY_INTERVAL_MS } from '../../src/proxy/store/store-history.js';
import { RECHECK_CEILING_MS } from '../../src/proxy/reconcile/reconcile-plan.js';
import { DEFAULT_TOKEN_TTL_SEC } from '../../src/proxy/tokens/service.js';
import { DEFAULT_MAX_ATTEMPTS } from '../../src/protocol/server-schemas.js';
import { SSE_HEARTBEAT_MS } from '../../src/protocol/paths.js';

/** A duration in words: `900 ms`, `10 s`, `15 min`, `24 h`, `3 days`. */
export function duration(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, ' days'],
    [3_600_000, ' h'],
    [60_000, ' min'],
    [1_000, ' s'],
  ];
  for (const [size, unit] of units) {
    if (ms >= size && ms % size === 0) return `${ms / size}${ms / size === 1 && unit === ' days' ? ' day' : unit}`;
  }
  return `${ms} ms`;
}

/** A configuration as the proxy resolves it from the least a shop must give (its defaults everywhere else). */
function resolvedDefaults(): ResolvedProxyConfig {
  return resolveConfig({
    provider: {
      env: 'sandbox',
      messagingBaseUrl: 'http://127.0.0.1:4010',
      paymentBaseUrl: 'http://127.0.0.1:4010/gateway',
      messaging: { apiKey: 'k', apiSecret: 's' },
      payment: { username: 'u', password: 'p' },
      checkout: { apiKey: 'c' },
    },
    tokenSecret: 'a-secret-of-at-least-32-bytes-0123456789',
    payeeName: 'Shop',
    webhooks: { url: 'http://127.0.0.1:8000/webhooks', secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
  });
}

/** `per hour`, `per day`, `per 10 min`: a window in words. */
const per = (ms: number) => (ms === 3_600_000 ? 'per hour' : ms === 86_400_000 ? 'per day' : `per ${duration(ms)}`);

const policy = (name: LimitName) => {
  const { points, durationSec } = DEFAULT_LIMITS[name];
  return `${points} ${per(durationSec * 1000)}`;
};

/** The defaults table of docs/operations.md. */
export function defaultsTable(): string {
  const config = resolvedDefaults();
  const relay = relayOptions(config);
  const webhooks = config.webhooks!;
  const breaker = providerClientConfigSchema.shape.circuitBreaker.parse(undefined);
  if (!breaker) throw new Error('the circuit breaker is on by default');
  const rows: [string, string, string][] = [
    ['element token lifetime', `${duration(DEFAULT_TOKEN_TTL_SEC * 1000)}`, '`expiresIn` when minting'],
    ['payment attempts per order', String(DEFAULT_MAX_ATTEMPTS), '`maxAttempts` when minting'],
    ['OTP code', `${config.otp.pinLength} characters, lives ${duration(config.otp.expiryMinutes * 60_000)}, ${config.otp.maxRetries} wrong tries`, '`otp`'],
    ['OTP sends per number', `${policy('otpSendPerNumberShort')} and ${policy('otpSendPerNumberDay')}, ${duration(DEFAULT_LIMITS.otpSendCooldown.durationSec * 1000)} apart`, '`limits.otpSendPerNumberShort`, `…Day`, `…Cooldown`'],
    ['OTP sends per address, per token, per number prefix', `${policy('otpSendPerIp')}; ${DEFAULT_LIMITS.otpSendPerToken.points} per token; ${policy('otpSendPerPrefix')}`, '`limits.otpSendPerIp`, `…PerToken`, `…PerPrefix`'],
    ['failed OTP checks per number', `${policy('otpVerifyFailuresPerNumber')}, then locked for the rest of it`, '`limits.otpVerifyFailuresPerNumber`'],
    ['account lookups', `${DEFAULT_LIMITS.accountLookupPerToken.points} per token, ${policy('accountLookupPerIp')} per address`, '`limits.accountLookupPerToken`, `…PerIp`'],
    ['payment prompts per number', `${DEFAULT_LIMITS.paymentsInFlightPerNumber.points} waiting at once, ${policy('paymentPromptsPerNumber')}`, '`limits.paymentsInFlightPerNumber`, `…PromptsPerNumber`'],
    ['event streams', `${DEFAULT_LIMITS.streamsPerClient.points} per token and address, ${DEFAULT_LIMITS.streamsPerAddress.points} per address`, '`limits.streamsPerClient`, `…PerAddress`'],
    ['event stream heartbeat', `every ${duration(relay.heartbeatMs)}; at most ${duration(SSE_HEARTBEAT_MS)} (an element takes three of its ${duration(SSE_HEARTBEAT_MS)} without a byte for a dead connection), at least ${duration(MIN_PRODUCTION_HEARTBEAT_MS)} in production`, '`relay.heartbeatMs`'],
    ['wrong server keys per address', policy('serverKeyFailuresPerIp'), '`limits.serverKeyFailuresPerIp`'],
    ['status reads of a pending payment', `every ${duration(relay.minIntervalMs)} backing off to ${duration(relay.maxIntervalMs)}`, '`relay.minIntervalMs`, `relay.maxIntervalMs`'],
    ['status reads in flight per instance', `${relay.maxReadsInFlight} at once, a read someone waits for (a callback, a look, a new payment) first; after a read the provider could not answer, a payment's next waits twice as long each time, up to ${duration(relay.lateIntervalMs)}`, '`relay.maxReadsInFlight`'],
    ['the page stops waiting (`TIMED_OUT`)', `after ${duration(relay.deadlineMs)}`, '`relay.deadlineMs`'],
    ['reads after that', `every ${duration(relay.lateIntervalMs)} for ${duration(relay.reconcileWindowMs)}`, '`relay.lateIntervalMs`, `relay.reconcileWindowMs`'],
    ['a payment read failed or cancelled, a session failed, cancelled or expired', `read again for ${duration(relay.reconcileWindowMs)}, each time after half the time since it was read so (${duration(relay.lateIntervalMs)} to ${duration(RECHECK_CEILING_MS)})`, '`relay.lateIntervalMs`, `relay.reconcileWindowMs`'],
    ['each instance sweeps unsettled payments', `every ${duration(relay.sweepIntervalMs)}`, '`relay.sweepIntervalMs`'],
    ['hooks retried', `for ${duration(DEFAULT_OUTBOX_OPTIONS.maxAgeMs)}, backing off from ${duration(DEFAULT_OUTBOX_OPTIONS.backoffMs)} to ${duration(DEFAULT_OUTBOX_OPTIONS.maxBackoffMs)}; a delivery's lease ${duration(DEFAULT_OUTBOX_OPTIONS.leaseMs)}`, '`relay.outbox*`'],
    ['webhooks: each try, retried', `${duration(webhooks.timeoutMs)} per try; retried for ${duration(webhooks.maxAgeMs)}`, '`webhooks.timeoutMs`, `webhooks.maxAgeMs`'],
    ['a provider interface failing: its circuit opens', `at ${breaker.threshold * 100} % failures over at least ${breaker.minimumCalls} calls in ${duration(breaker.windowMs)}; a trial call ${duration(breaker.halfOpenAfterMs)} later, then twice as long after each failed trial, at most ${duration(breaker.maxHalfOpenAfterMs)}`, '`circuitBreaker`'],
    ['an outage in the log', `told once, then a line with its count every ${duration(config.outageSummaryIntervalMs)}, and one when it ends`, '`outageSummaryIntervalMs`'],
    ['records, webhooks and their state kept', duration(RECORD_TTL_MS), ''],
    ["each instance looks at the store's history", `every ${duration(HISTORY_INTERVAL_MS)}; a move back stays in \`/ready\`'s notes for ${duration(MOVED_BACK_NOTE_MS)}`, ''],
    [
      'commits wait for replicas',
      `${config.redisReplicas.acknowledge === 0 ? 'no' : config.redisReplicas.acknowledge}; when they do, at most ${duration(config.redisReplicas.timeoutMs)} a \`WAIT\`; a replica is behind when it last acknowledged over ${duration(config.redisReplicas.maxLagSeconds * 1000)} ago`,
      '`REDIS_WAIT_REPLICAS`, `REDIS_WAIT_TIMEOUT_MS`, `REDIS_MAX_REPLICA_LAG_SECONDS`',
    ],
    ['request bodies', `JSON, at most ${MAX_BODY_BYTES / 1024} kB, arriving within ${duration(BODY_TIMEOUT_MS)}`, '`bodyTimeoutMs`'],
    ['`serve`: headers, whole request, idle keep-alive', `${duration(SERVICE_TIMEOUTS.headersTimeoutMs)}, ${duration(SERVICE_TIMEOUTS.requestTimeoutMs)}, ${duration(SERVICE_TIMEOUTS.keepAliveTimeoutMs)}`, ''],
    ['`serve`: on SIGTERM, `/ready` answers 503 first for', DEFAULT_PRE_STOP_SECONDS === 0 ? 'no time (no pre-stop window)' : duration(DEFAULT_PRE_STOP_SECONDS * 1000), '`PRE_STOP_SECONDS`'],
    ['`serve`: on SIGTERM, requests in flight get', duration(SERVICE_TIMEOUTS.shutdownGraceMs), ''],
    ['`serve`: start-up waits for the store', duration(SERVICE_TIMEOUTS.readyTimeoutMs), ''],
  ];
  return ['| what | default | set with |', '|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** docs/webhooks.md's sentence on tries, retries and retention. */
export function webhookDelivery(): string {
  const webhooks = resolvedDefaults().webhooks!;
  return (
    `Each try waits ${duration(webhooks.timeoutMs)} for your answer (\`webhooks.timeoutMs\`). A webhook is tried again, ` +
    `backing off from about ${duration(DEFAULT_OUTBOX_OPTIONS.backoffMs)} to every ${duration(DEFAULT_OUTBOX_OPTIONS.maxBackoffMs)}, ` +
    `for ${duration(webhooks.maxAgeMs)} (\`webhooks.maxAgeMs\`; at least a day in production), then dead-lettered and logged as an error. ` +
    `Delivered and dead webhooks are kept ${duration(RECORD_TTL_MS)}, for listing and replay.`
  );
}
