import { z } from 'zod';

/**
 * A Standard Webhooks secret: `whsec_` then the base64 of 24 to 64 random bytes (the specification's
 * range). Make one with: node -e "console.log('whsec_' + require('crypto').randomBytes(32).toString('base64'))"
 */
const webhookSecret = z.string().refine((s) => {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(s);
  if (!match) return false;
  const bytes = Buffer.from(match[1]!, 'base64');
  return bytes.length >= 24 && bytes.length <= 64 && bytes.toString('base64') === match[1];
}, `must be whsec_ followed by the base64 of 24 to 64 random bytes; make one with: node -e "console.log('whsec_' + require('crypto').randomBytes(32).toString('base64'))"`);

/** Signed webhooks of every payment and checkout state change (Standard Webhooks), from the outbox. */
export const webhooksSchema = z.strictObject({
  /** Where they are POSTed: https (http only in the sandbox environment or to a loopback host). */
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  secret: webhookSecret,
  /** How long one try waits for the receiver's answer (10 s). */
  timeoutMs: z.number().int().min(100).max(60_000).default(10_000),
  /** How long a webhook is retried before it is dead-lettered (3 days; at least 1 day in production). */
  maxAgeMs: z.number().int().positive().default(3 * 24 * 60 * 60_000),
});

/** The webhook settings after validation. */
export type WebhookSettings = z.output<typeof webhooksSchema>;
