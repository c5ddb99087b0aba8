import { randomBytes } from 'node:crypto';
import type { Request, Router } from 'express';
import {
  PROXY_PATHS,
  type OtpDeliveryResponse,
  type OtpSendResponse,
  type OtpVerifyResponse,
  otpSendRequest,
  otpVerifyRequest,
} from '../../protocol/index.js';
import {
  isProviderError,
  ProviderNotFoundError,
  ProviderUnavailableError,
  ProviderValidationError,
} from '../../provider/errors.js';
import type { ProxyContext } from '../context.js';
import { parseInput, ProxyError } from '../errors.js';
import { consume, enforce, peek, refund } from '../limits.js';
import { logRequest } from '../logger.js';
import { withToken } from '../middleware/require-token.js';
import { numberKeysOf } from '../number-keys.js';
import { maskForLog, maskPhone, normaliseLocalPhone, normalisePhone, phonePrefix } from '../phone.js';
import { sendJson } from '../respond.js';
import { clientIp, clientKey } from '../client-address.js';

export { clientIp } from '../client-address.js';

/**
 * What the proxy keeps of an OTP it sent (the same text under both of its keys). Not the number: a
 * verification reads the record by the number it is given, and nothing else needs it.
 */
interface OtpRecord {
  otpId: string;
  /** The provider's uuid of the generation. */
  providerId: string;
  /** The OTP SMS's sequenceNo, for the delivery receipt. */
  sequenceNo: string;
  purpose: string;
  /** The jti of the token that asked for it (delivery status is read with the same token). */
  jti: string;
  expiresAt: number;
  maxRetries: number;
}

/** How long the record of a sent OTP is kept for delivery reads, beyond the code's own life. */
const RECORD_TTL_MS = 60 * 60_000;

/**
 * The store's keys. A sent code's record is written twice: by its id for delivery reads (an hour), and as
 * the number's live code (until it expires, or is used), so that a verification reads the live code in
 * one get, not an id and then the record (one store round trip fewer on every code typed). The number's
 * key holds its keyed hash, not the number (number-keys.ts).
 */
const keys = {
  record: (otpId: string) => `otp:${otpId}`,
  latest: (numberKey: string) => `otp-latest:${numberKey}`,
  failures: (otpId: string) => `otp-fails:${otpId}`,
};

/**
 * The number's live code: under the signing secret's hash, or, while a rotation is rolled out, another
 * configured secret's (a code sent by an instance still signing with the old secret), or, during a rolling
 * upgrade, under the number itself (as versions before the hash wrote it; read, never written).
 */
async function liveCode(ctx: ProxyContext, digits: string): Promise<{ key: string; record: OtpRecord } | null> {
  const candidates = [...numberKeysOf(ctx.config).all(digits), digits].map(keys.latest);
  const found = await Promise.all(candidates.map((key) => ctx.store.get(key)));
  for (const [i, raw] of found.entries()) {
    const record = readRecord(raw);
    if (record) return { key: candidates[i]!, record };
  }
  return null;
}

/** A stored record, or null when absent or not a record of this version (never a throw). */
function readRecord(raw: string | null): OtpRecord | null {
  if (raw === null || !raw.startsWith('{')) return null;
  try {
    return JSON.parse(raw) as OtpRecord;
  } catch {
    return null;
  }
}

/** Refuses a number other than the one the token is bound to. */
function checkBound(bound: string | undefined, digits: string, field: string): void {
  if (bound !== undefined && bound !== digits) {
    throw new ProxyError('INVALID_INPUT', 'Some fields are not valid.', {
      fields: [{ path: field, message: 'must be the number this page was opened for' }],
    });
  }
}

/** Runs the merchant's human check; fails closed (false, anything but true, or a throw refuses). */
async function humanCheck(ctx: ProxyContext, req: Request, recipient: string, purpose: string): Promise<void> {
  const hook = ctx.hooks.beforeOtpSend;
  if (!hook) return;
  let passed = false;
  try {
    passed = (await hook({ recipient, ip: clientIp(req), purpose, headers: { ...req.headers } })) === true;
  } catch (err) {
    ctx.logger.warn({ reason: err instanceof Error ? err.message : 'non-error thrown' }, 'human check threw: refusing');
  }
  if (!passed) throw new ProxyError('HUMAN_CHECK_FAILED', 'We could not confirm this request came from a person.');
}

const codeDead = () =>
  new ProxyError('OTP_EXPIRED', 'This code has expired or was already used. Request a new code.');

/** The OTP routes: send, verify, delivery status (DESIGN: protocol table and OTP policies). */
export function otpRoutes(router: Router, ctx: ProxyContext): void {
  const { otp, defaultCountry, limits } = ctx.config;

  router.post(PROXY_PATHS.otpSend, withToken(ctx, 'otp', async (req, res, claims) => {
    const body = parseInput(otpSendRequest, req.body);
    const typed = normalisePhone(body.recipient, defaultCountry);
    checkBound(claims.recipient, typed.digits, 'recipient');
    await humanCheck(ctx, req, typed.digits, claims.purpose);
    const { digits } = normaliseLocalPhone(body.recipient, defaultCountry);
    // A number locked for wrong codes gets no new code until the lock ends: it could not be checked.
    const lock = await peek(ctx, 'otpVerifyFailuresPerNumber', digits);
    if (lock && lock.consumedPoints >= limits.otpVerifyFailuresPerNumber.points) throw numberLocked(lock.msBeforeNext);
    const counted = [
      ['otpSendPerToken', claims.jti],
      ['otpSendPerIp', clientKey(req, ctx.config.ipv6PrefixLength)],
      ['otpSendPerNumberShort', digits],
      ['otpSendPerNumberDay', digits],
      ['otpSendCooldown', digits],
      ['otpSendPerPrefix', phonePrefix(digits)],
    ] as const;
    await enforce(ctx, counted);

    let generated;
    try {
      generated = await ctx.client.otp.generate({
        recipient: digits,
        from: otp.sender,
        message: otp.template,
        pinLength: otp.pinLength,
        pinType: otp.pinType,
        expiry: { amount: otp.expiryMinutes, duration: 'minutes' },
        maxAmountOfValidationRetries: otp.maxRetries,
      });
    } catch (err) {
      if (err instanceof ProviderUnavailableError && !err.outcomeUnknown) {
        // Refused before the provider took it (an open circuit, no connection) or refused by a provider that
        // is failing: no SMS went out, and the customer did nothing wrong. None of their limits keeps the try:
        // after an outage, sign-ins counted against them ended 429 once the provider was back (issue 35).
        await Promise.all(counted.map(([policy, key]) => refund(ctx, policy, key)));
      } else if (!(err instanceof ProviderUnavailableError)) {
        // No SMS went out for sure: let the person try again at once rather than after the cooldown.
        await refund(ctx, 'otpSendCooldown', digits);
      }
      throw err;
    }

    const now = ctx.now();
    const otpId = randomBytes(16).toString('base64url');
    const expiresAt = now + otp.expiryMinutes * 60_000;
    const record: OtpRecord = {
      otpId,
      providerId: generated.data.uuid,
      sequenceNo: generated.sequenceNo,
      purpose: claims.purpose,
      jti: claims.jti,
      expiresAt,
      maxRetries: otp.maxRetries,
    };
    const stored = JSON.stringify(record);
    await ctx.store.set(keys.record(otpId), stored, Math.max(RECORD_TTL_MS, expiresAt - now));
    await ctx.store.set(keys.latest(numberKeysOf(ctx.config).of(digits)), stored, expiresAt - now);
    logRequest(ctx.logger, req, 'info', { otpId, recipient: maskForLog(digits) }, 'otp sent');

    const answer: OtpSendResponse = {
      otpId,
      recipient: maskPhone(digits),
      expiresAt: new Date(expiresAt).toISOString(),
      resendAt: new Date(now + limits.otpSendCooldown.durationSec * 1000).toISOString(),
      attemptsLeft: otp.maxRetries,
      pinLength: otp.pinLength,
      pinType: otp.pinType,
    };
    sendJson(res, 200, answer);
  }));

  router.post(PROXY_PATHS.otpVerify, withToken(ctx, 'otp', async (req, res, claims) => {
    const body = parseInput(otpVerifyRequest, req.body);
    const { digits } = normaliseLocalPhone(body.recipient, defaultCountry);
    checkBound(claims.recipient, digits, 'recipient');

    // Both reads at once: one store round trip, not two, before the code goes upstream.
    const [lock, live] = await Promise.all([peek(ctx, 'otpVerifyFailuresPerNumber', digits), liveCode(ctx, digits)]);
    if (lock && lock.consumedPoints >= limits.otpVerifyFailuresPerNumber.points) throw numberLocked(lock.msBeforeNext);

    const record = live?.record;
    if (!live || !record || record.purpose !== claims.purpose) {
      throw new ProxyError('OTP_EXPIRED', 'No code is waiting for this number. Request a new code.');
    }
    const { otpId } = record;
    if (ctx.now() >= record.expiresAt) throw codeDead();
    const failures = Number((await ctx.store.get(keys.failures(otpId))) ?? 0);
    if (failures >= record.maxRetries) throw codeLocked();

    try {
      await ctx.client.otp.validate({ code: body.code, recipient: digits });
    } catch (err) {
      if (!(err instanceof ProviderValidationError) || !err.sent || err.code === 'INVALID_PHONE_NUMBER') throw err;
      const reason = err.details?.['reason'];
      if (reason === 'RETRIES_EXHAUSTED') throw codeLocked();
      if (reason === 'EXPIRED' || reason === 'USED' || reason === 'NOT_FOUND') throw codeDead();
      // A wrong code: count it against this code and against the number.
      const spent = await ctx.store.incr(keys.failures(otpId), Math.max(record.expiresAt - ctx.now(), 1_000));
      const numberState = await consume(ctx, 'otpVerifyFailuresPerNumber', digits).catch((refusal: unknown) => {
        if (refusal instanceof ProxyError && refusal.code === 'RATE_LIMITED') return null;
        throw refusal;
      });
      logRequest(ctx.logger, req, 'info', { otpId, recipient: maskForLog(digits) }, 'otp wrong code');
      if (!numberState || numberState.remainingPoints <= 0) {
        throw numberLocked(numberState?.msBeforeNext ?? limits.otpVerifyFailuresPerNumber.durationSec * 1000);
      }
      const upstreamLeft = err.details?.['attemptsLeft'];
      const attemptsLeft = Math.max(
        0,
        Math.min(record.maxRetries - spent, typeof upstreamLeft === 'number' ? upstreamLeft : Infinity),
      );
      throw new ProxyError('OTP_INVALID', attemptsLeft > 0 ? 'The code is not correct.' : 'The code is not correct. Request a new code.', {
        attemptsLeft,
      });
    }

    await ctx.store.del(live.key);
    const proof = await ctx.tokens.proof({ recipient: digits, purpose: claims.purpose });
    logRequest(ctx.logger, req, 'info', { otpId, recipient: maskForLog(digits) }, 'otp verified');
    const answer: OtpVerifyResponse = { verified: true, proof };
    sendJson(res, 200, answer);
  }));

  router.get('/otp/:otpId/delivery', withToken(ctx, 'otp', async (req, res, claims) => {
    const otpId = String(req.params.otpId ?? '');
    const record = readRecord(await ctx.store.get(keys.record(otpId)));
    if (!record || record.jti !== claims.jti) throw new ProxyError('NOT_FOUND', 'There is no such code.');
    let deliveryStatus: OtpDeliveryResponse['deliveryStatus'];
    try {
      deliveryStatus = (await ctx.client.sms.receipt(record.sequenceNo)).data.deliveryStatus;
    } catch (err) {
      // No receipt yet: the message was accepted and has no final status.
      if (!(isProviderError(err) && err instanceof ProviderNotFoundError)) throw err;
      deliveryStatus = 'ACCEPTED';
    }
    const answer: OtpDeliveryResponse = { deliveryStatus };
    sendJson(res, 200, answer);
  }));

}

function codeLocked(): ProxyError {
  return new ProxyError('OTP_LOCKED', 'Too many wrong codes: this code can no longer be used. Request a new code.', {
    reason: 'code',
  });
}

function numberLocked(msBeforeNext: number): ProxyError {
  return new ProxyError('OTP_LOCKED', 'Too many wrong codes for this number. Try again later.', {
    reason: 'number',
    retryAfter: Math.max(1, Math.ceil(msBeforeNext / 1000)),
  });
}
