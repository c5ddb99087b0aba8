import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deliveryReceiptResponse,
  otpGenerateResponse,
  otpValidateResponse,
  providerErrorBody,
} from '../../src/provider/schemas/index.js';
import type { StartedSandbox } from '../../src/sandbox/index.js';
import type { OutboxSms } from '../../src/sandbox/state.js';
import { call, otpRequest, start } from './messaging-fixtures.js';

const GENERATE = '/v1/external/generate/otp';
const VALIDATE = '/v1/external/validate/otp';

let sandbox: StartedSandbox;
beforeAll(async () => {
  sandbox = await start({ initialCredit: 100_000 });
});
afterAll(() => sandbox.close());

let nextNumber = 1000;
/** A fresh valid Ghanaian number, so tests never share an OTP. */
function freshNumber(): string {
  nextNumber += 1;
  return `23324100${nextNumber}`;
}

/** Generates an OTP and returns the response and the SMS that carried it. */
async function generate(recipient: string, overrides: Record<string, unknown> = {}) {
  const res = await call(sandbox, 'POST', GENERATE, otpRequest(recipient, overrides));
  expect(res.status).toBe(200);
  const body = otpGenerateResponse.parse(res.body);
  const sms = sandbox.app.sandbox.outbox.find((e): e is OutboxSms => e.kind === 'sms' && e.sequenceNo === body.sequenceNo);
  if (!sms) throw new Error('the OTP SMS is not in the outbox');
  return { body, sms };
}

/** The code inside an SMS rendered from the fixture's template. */
function codeIn(sms: OutboxSms): string {
  const match = /^Your code is (\S+)\. It expires/.exec(sms.message);
  if (!match) throw new Error(`no code in "${sms.message}"`);
  return match[1]!;
}

const validate = (recipient: string, code: string) => call(sandbox, 'POST', VALIDATE, { recipient, code });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('POST /v1/external/generate/otp', () => {
  it('sends the rendered template by SMS and answers the masked code', async () => {
    const recipient = freshNumber();
    const { body, sms } = await generate(recipient, {
      message: '{code} is your code ({code}); valid {amount} {duration}.',
      expiry: { amount: 10, duration: 'minutes' },
      pinLength: 6,
    });
    expect(body.statusCode).toBe('200');
    expect(body.data.code).toBe('******');
    const code = /^(\d{6}) is your code \((\d{6})\); valid 10 minutes\.$/.exec(sms.message);
    expect(code).not.toBeNull();
    expect(code![1]).toBe(code![2]);
    expect(sms).toMatchObject({ to: recipient, from: 'SANDBOX', otpId: body.data.uuid, isGlobal: false });
    expect(sandbox.app.sandbox.otps.get(recipient)?.uuid).toBe(body.data.uuid);
  });

  it('gives the SMS sequenceNo in the envelope, so its delivery receipt can be read', async () => {
    const { body } = await generate(freshNumber());
    const res = await call(sandbox, 'GET', `/v1/external/sms/logs/${body.sequenceNo}`);
    expect(res.status).toBe(200);
    expect(deliveryReceiptResponse.parse(res.body).data.sequenceNo).toBe(body.sequenceNo);
  });

  it.each([
    ['NUMERIC', /^[0-9]{10}$/],
    ['ALPHABETIC', /^[A-Z]{10}$/],
    ['ALPHANUMERIC', /^[0-9A-Z]{10}$/],
  ])('draws a %s code from its alphabet', async (pinType, pattern) => {
    const codes: string[] = [];
    for (let i = 0; i < 8; i++) {
      const { sms } = await generate(freshNumber(), { pinType, pinLength: 10 });
      codes.push(codeIn(sms));
    }
    for (const code of codes) expect(code).toMatch(pattern);
    expect(new Set(codes).size).toBeGreaterThan(1);
  });

  it('mixes letters and digits in ALPHANUMERIC codes', async () => {
    let all = '';
    for (let i = 0; i < 10; i++) all += codeIn((await generate(freshNumber(), { pinType: 'ALPHANUMERIC', pinLength: 10 })).sms);
    expect(all).toMatch(/[A-Z]/);
    expect(all).toMatch(/[0-9]/);
  });

  it.each([4, 10])('accepts pinLength %i with a code and a mask of that length', async (pinLength) => {
    const { body, sms } = await generate(freshNumber(), { pinLength });
    expect(codeIn(sms)).toHaveLength(pinLength);
    expect(body.data.code).toBe('*'.repeat(pinLength));
  });

  it.each([3, 11, 4.5])('refuses pinLength %s with INVALID_PIN_LENGTH', async (pinLength) => {
    const res = await call(sandbox, 'POST', GENERATE, otpRequest(freshNumber(), { pinLength }));
    expect(res.status).toBe(400);
    expect(providerErrorBody.parse(res.body).error).toBe('INVALID_PIN_LENGTH');
  });

  it('accepts maxAmountOfValidationRetries 1 and refuses 0 with INVALID_RETRIES', async () => {
    await generate(freshNumber(), { maxAmountOfValidationRetries: 1 });
    const res = await call(sandbox, 'POST', GENERATE, otpRequest(freshNumber(), { maxAmountOfValidationRetries: 0 }));
    expect(res.status).toBe(400);
    expect(providerErrorBody.parse(res.body).error).toBe('INVALID_RETRIES');
  });

  it.each([
    ['a + prefix', '+233241001234'],
    ['a non-Ghanaian number (OTP is never global)', '447700900123'],
    ['a Ghanaian number with an unknown prefix', '233991001234'],
  ])('refuses %s with INVALID_PHONE_NUMBER and sends nothing', async (_label, recipient) => {
    const before = sandbox.app.sandbox.outbox.length;
    const res = await call(sandbox, 'POST', GENERATE, otpRequest(recipient));
    expect(res.status).toBe(400);
    expect(providerErrorBody.parse(res.body).error).toBe('INVALID_PHONE_NUMBER');
    expect(sandbox.app.sandbox.outbox.length).toBe(before);
  });

  it('refuses an unknown pinType with VALIDATION_ERROR naming the field', async () => {
    const res = await call(sandbox, 'POST', GENERATE, otpRequest(freshNumber(), { pinType: 'EMOJI' }));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('VALIDATION_ERROR');
    expect(res.body.details.fields).toEqual([expect.objectContaining({ path: 'pinType' })]);
  });
});

describe('POST /v1/external/validate/otp', () => {
  it('accepts the right code once, answering the masked code with sequenceNo null', async () => {
    const recipient = freshNumber();
    const { body: generated, sms } = await generate(recipient);
    const res = await validate(recipient, codeIn(sms));
    expect(res.status).toBe(200);
    const body = otpValidateResponse.parse(res.body);
    expect(body).toMatchObject({ statusCode: '200', sequenceNo: null, data: { uuid: generated.data.uuid, code: '******' } });

    const again = await validate(recipient, codeIn(sms));
    expect(again.status).toBe(400);
    expect(providerErrorBody.parse(again.body)).toMatchObject({ error: 'INVALID_OTP', details: { reason: 'USED' } });
  });

  it('accepts letters in either case', async () => {
    const recipient = freshNumber();
    const { sms } = await generate(recipient, { pinType: 'ALPHABETIC' });
    expect((await validate(recipient, codeIn(sms).toLowerCase())).status).toBe(200);
  });

  it('counts down attemptsLeft on wrong codes, then refuses even the right code', async () => {
    const recipient = freshNumber();
    const { sms } = await generate(recipient, { maxAmountOfValidationRetries: 3, pinType: 'ALPHABETIC' });
    const wrong = '000000';
    for (const attemptsLeft of [2, 1, 0]) {
      const res = await validate(recipient, wrong);
      expect(res.status).toBe(400);
      expect(providerErrorBody.parse(res.body)).toMatchObject({ error: 'INVALID_OTP', details: { attemptsLeft } });
    }
    const dead = await validate(recipient, codeIn(sms));
    expect(dead.status).toBe(400);
    expect(dead.body).toMatchObject({ error: 'INVALID_OTP', details: { reason: 'RETRIES_EXHAUSTED' } });
  });

  it('still accepts the right code after fewer wrong tries than allowed', async () => {
    const recipient = freshNumber();
    const { sms } = await generate(recipient, { maxAmountOfValidationRetries: 2, pinType: 'ALPHABETIC' });
    expect((await validate(recipient, '0000')).body.details).toEqual({ attemptsLeft: 1 });
    expect((await validate(recipient, codeIn(sms))).status).toBe(200);
  });

  it('refuses an expired code with reason EXPIRED', async () => {
    const recipient = freshNumber();
    // 1 simulated second is 10 ms at timeScale 0.01.
    const { sms } = await generate(recipient, { expiry: { amount: 1, duration: 'seconds' } });
    await pause(50);
    const res = await validate(recipient, codeIn(sms));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'INVALID_OTP', details: { reason: 'EXPIRED' } });
  });

  it('kills the old code when a new one is generated for the same recipient', async () => {
    const recipient = freshNumber();
    const { sms: first } = await generate(recipient, { pinType: 'ALPHABETIC', pinLength: 10 });
    const { sms: second } = await generate(recipient, { pinType: 'ALPHABETIC', pinLength: 10 });
    expect(codeIn(first)).not.toBe(codeIn(second));
    const old = await validate(recipient, codeIn(first));
    expect(old.status).toBe(400);
    expect(old.body.error).toBe('INVALID_OTP');
    expect((await validate(recipient, codeIn(second))).status).toBe(200);
  });

  it('answers reason NOT_FOUND for a recipient with no code', async () => {
    const res = await validate(freshNumber(), '123456');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'INVALID_OTP', details: { reason: 'NOT_FOUND' } });
  });

  it('refuses an invalid recipient with INVALID_PHONE_NUMBER', async () => {
    const res = await validate('+233241001234', '123456');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('INVALID_PHONE_NUMBER');
  });

  it('does not accept another recipient\'s code', async () => {
    const a = freshNumber();
    const b = freshNumber();
    const { sms } = await generate(a, { pinType: 'ALPHABETIC', pinLength: 10 });
    await generate(b, { pinType: 'ALPHABETIC', pinLength: 10 });
    expect((await validate(b, codeIn(sms))).status).toBe(400);
  });
});
