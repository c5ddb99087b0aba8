import { z } from 'zod';

const MAKE_ONE = `node -e "console.log('whsec_' + require('crypto').randomBytes(32).toString('base64'))"`;

/** One Standard Webhooks secret: `whsec_` then the base64 of 24 to 64 random bytes (the specification's range). */
function isWebhookSecret(s: string): boolean {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(s);
  if (!match) return false;
  const bytes = Buffer.from(match[1]!, 'base64');
  return bytes.length >= 24 && bytes.length <= 64 && bytes.toString('base64') === match[1];
}

/**
 * The secrets of a `webhooks.secret` (`WEBHOOK_SECRET`): one, or several separated by spaces or commas,
 * newest first, during a rotation (every webhook then carries one signature per secret).
 */
export function webhookSecrets(secret: string): string[] {
  return secret.split(/[\s,]+/).filter(Boolean);
}

/** Most secrets signed at once: a rotation needs two; a few more cover an overlap of rotations. */
export const MAX_WEBHOOK_SECRETS = 4;

const webhookSecret = z
  .string()
  .refine((s) => webhookSecrets(s).length > 0 && webhookSecrets(s).every(isWebhookSecret), `must be whsec_ followed by the base64 of 24 to 64 random bytes (several separated by spaces, newest first, while rotating); make one with: ${MAKE_ONE}`)
  .refine((s) => webhookSecrets(s).length <= MAX_WEBHOOK_SECRETS, `takes at most ${MAX_WEBHOOK_SECRETS} secrets at once (the new one first, then those being retired)`);

/** Signed webhooks of every payment and checkout state change (Standard Webhooks), from the outbox. */
export const webhooksSchema = z.strictObject({
  /** Where they are POSTed: https (http only in the sandbox environment or to a loopback host). */
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  /**
   * The signing secret, or several separated by spaces (newest first) while one is rotated: each webhook
   * carries one signature per secret, so a receiver verifying with the old or the new one accepts it.
   */
  secret: webhookSecret,
  /** How long one try waits for the receiver's answer (10 s). */
  timeoutMs: z.number().int().min(100).max(60_000).default(10_000),
  /** How long a webhook is retried before it is dead-lettered (3 days; at least 1 day in production). */
  maxAgeMs: z.number().int().positive().default(3 * 24 * 60 * 60_000),
});

/** The webhook settings after validation. */
export type WebhookSettings = z.output<typeof webhooksSchema>;
