import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  deliveryReceiptResponse,
  providerErrorBody,
  smsBulkResponse,
  smsSendResponse,
} from '../../src/provider/schemas/index.js';
import type { StartedSandbox } from '../../src/sandbox/index.js';
import type { OutboxSms } from '../../src/sandbox/state.js';
import { call, quick, start } from './messaging-fixtures.js';

const QUICK = '/v1/external/sms/quick';
const BULK = '/v1/external/sms/bulk';
const resendPath = (id: string) => `/v1/external/sms/quick/${encodeURIComponent(id)}/resend`;
const receiptPath = (seq: string) => `/v1/external/sms/logs/${encodeURIComponent(seq)}`;

let sandbox: StartedSandbox;
beforeAll(async () => {
  sandbox = await start({ initialCredit: 1_000_000 });
});
afterAll(() => sandbox.close());
afterEach(() => {
  vi.useRealTimers();
});

/** The outbox entry of the SMS with this sequenceNo. */
function outboxSms(sequenceNo: string): OutboxSms {
  const sms = sandbox.app.sandbox.outbox.find((e): e is OutboxSms => e.kind === 'sms' && e.sequenceNo === sequenceNo);
  if (!sms) throw new Error(`no SMS ${sequenceNo} in the outbox`);
  return sms;
}

describe('POST /v1/external/sms/quick', () => {
  it('answers HTTP 200 with envelope statusCode 201 and puts the SMS in the outbox', async () => {
    const res = await call(sandbox, 'POST', QUICK, quick('233240000001', 'Your order shipped'));
    expect(res.status).toBe(200);
    const body = smsSendResponse.parse(res.body);
    expect(body.statusCode).toBe(201);
    expect(body.data.totalBatches).toBe(1);
    expect(body.data.senderAddress).toBe('SANDBOX');
    const [message] = body.data.batches[0]!.messages;
    expect(message).toMatchObject({ to: '233240000001', from: 'SANDBOX', message: 'Your order shipped', type: 'Quick' });
    expect(message!.sequenceNo).toBe(body.sequenceNo);
    expect(message!.transactionId).toBe(body.transactionId);
    const sms = outboxSms(body.sequenceNo);
    expect(sms).toMatchObject({ to: '233240000001', message: 'Your order shipped', finalStatus: 'DELIVERED', segments: 1 });
    expect(sms.jobId).toBe(body.data.batches[0]!.jobId);
  });

  it('accepts a message of exactly 1600 characters and refuses 1601 with MESSAGE_TOO_LONG', async () => {
    const ok = await call(sandbox, 'POST', QUICK, quick('233240000001', 'a'.repeat(1600)));
    expect(ok.status).toBe(200);
    smsSendResponse.parse(ok.body);
    const before = sandbox.app.sandbox.outbox.length;
    const tooLong = await call(sandbox, 'POST', QUICK, quick('233240000001', 'a'.repeat(1601)));
    expect(tooLong.status).toBe(400);
    expect(providerErrorBody.parse(tooLong.body).error).toBe('MESSAGE_TOO_LONG');
    expect(sandbox.app.sandbox.outbox.length).toBe(before);
  });

  it.each([
    ['a + prefix', '+233240000001', false],
    ['a non-Ghanaian number without isGlobal', '447700900123', false],
    ['a Ghanaian number with an unknown network prefix', '233990000001', false],
    ['a Ghanaian number one digit short', '23324000001', false],
    ['letters', '23324000000a', true],
  ])('refuses %s with INVALID_PHONE_NUMBER', async (_label, to, isGlobal) => {
    const res = await call(sandbox, 'POST', QUICK, quick(to, 'hi', isGlobal));
    expect(res.status).toBe(400);
    const body = providerErrorBody.parse(res.body);
    expect(body.error).toBe('INVALID_PHONE_NUMBER');
    expect(body.details.fields).toEqual([expect.objectContaining({ path: 'to' })]);
  });

  it('sends to a foreign number when isGlobal is true', async () => {
    const res = await call(sandbox, 'POST', QUICK, quick('447700900123', 'hi', true));
    expect(res.status).toBe(200);
    expect(outboxSms(smsSendResponse.parse(res.body).sequenceNo).isGlobal).toBe(true);
  });

  it('refuses a missing field with VALIDATION_ERROR listing it', async () => {
    const { isGlobal: _omitted, ...body } = quick('233240000001');
    const res = await call(sandbox, 'POST', QUICK, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('VALIDATION_ERROR');
    expect(res.body.details.fields).toEqual([expect.objectContaining({ path: 'isGlobal' })]);
  });
});

describe('POST /v1/external/sms/bulk', () => {
  const messages = (n: number, to = '233240000001') =>
    Array.from({ length: n }, (_, i) => ({ to, from: 'SANDBOX', message: `Message ${i}`, type: 'Bulk' }));

  it('splits 250 messages into 3 batches of 100, 100 and 50, each message with its own identifiers', async () => {
    const res = await call(sandbox, 'POST', BULK, { messages: messages(250), isGlobal: false });
    expect(res.status).toBe(200);
    const body = smsBulkResponse.parse(res.body);
    expect(body.statusCode).toBe(201);
    expect(body.sequenceNo).toBeNull();
    expect(body.data.totalBatches).toBe(3);
    expect(body.data.batches.map((b) => b.messages.length)).toEqual([100, 100, 50]);
    expect(new Set(body.data.batches.map((b) => b.jobId)).size).toBe(3);
    const all = body.data.batches.flatMap((b) => b.messages);
    expect(new Set(all.map((m) => m.sequenceNo)).size).toBe(250);
    expect(new Set(all.map((m) => m.transactionId)).size).toBe(250);
    expect(all.map((m) => m.message)).toEqual(messages(250).map((m) => m.message));
    expect(outboxSms(all[249]!.sequenceNo).jobId).toBe(body.data.batches[2]!.jobId);
  });

  it('accepts 1,000 messages and refuses 1,001 with TOO_MANY_RECIPIENTS, sending nothing', async () => {
    const ok = await call(sandbox, 'POST', BULK, { messages: messages(1000), isGlobal: false });
    expect(ok.status).toBe(200);
    expect(smsBulkResponse.parse(ok.body).data.totalBatches).toBe(10);
    const before = sandbox.app.sandbox.outbox.length;
    const tooMany = await call(sandbox, 'POST', BULK, { messages: messages(1001), isGlobal: false });
    expect(tooMany.status).toBe(400);
    expect(providerErrorBody.parse(tooMany.body).error).toBe('TOO_MANY_RECIPIENTS');
    expect(sandbox.app.sandbox.outbox.length).toBe(before);
  });

  it('names the index of a message whose number breaks the phone rule, and sends none of them', async () => {
    const batch = messages(5);
    batch[3] = { ...batch[3]!, to: '233990000001' };
    const before = sandbox.app.sandbox.outbox.length;
    const res = await call(sandbox, 'POST', BULK, { messages: batch, isGlobal: false });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'INVALID_PHONE_NUMBER', details: { index: 3 } });
    expect(res.body.message).toContain('messages[3].to');
    expect(sandbox.app.sandbox.outbox.length).toBe(before);
  });

  it('names the index of a message whose number fails the schema', async () => {
    const batch = messages(3);
    batch[1] = { ...batch[1]!, to: '+233240000001' };
    const res = await call(sandbox, 'POST', BULK, { messages: batch, isGlobal: false });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'INVALID_PHONE_NUMBER', details: { index: 1 } });
  });

  it('refuses a message over 1600 characters with MESSAGE_TOO_LONG and its index', async () => {
    const batch = messages(2);
    batch[1] = { ...batch[1]!, message: 'a'.repeat(1601) };
    const res = await call(sandbox, 'POST', BULK, { messages: batch, isGlobal: false });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'MESSAGE_TOO_LONG', details: { index: 1 } });
  });

  it('refuses an empty list with VALIDATION_ERROR', async () => {
    const res = await call(sandbox, 'POST', BULK, { messages: [], isGlobal: false });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('VALIDATION_ERROR');
  });
});

describe('POST /v1/external/sms/quick/:messageId/resend', () => {
  async function original() {
    const res = await call(sandbox, 'POST', QUICK, quick('233200000003', 'First version'));
    const sent = smsSendResponse.parse(res.body);
    return outboxSms(sent.sequenceNo);
  }

  it.each(['messageId', 'sequenceNo', 'transactionId', 'id'] as const)(
    'resends to the same recipient when given the original %s',
    async (kind) => {
      const first = await original();
      const res = await call(sandbox, 'POST', resendPath(first[kind]), { message: 'Second version' });
      expect(res.status).toBe(200);
      const body = smsSendResponse.parse(res.body);
      expect(body.statusCode).toBe(201);
      expect(body.sequenceNo).not.toBe(first.sequenceNo);
      expect(body.data.batches[0]!.messages[0]).toMatchObject({ to: '233200000003', message: 'Second version' });
      const again = outboxSms(body.sequenceNo);
      expect(again).toMatchObject({ to: first.to, from: first.from, resendOf: first.messageId, message: 'Second version' });
    },
  );

  it('finds the original by the _id and messageId its delivery receipt shows', async () => {
    const first = await original();
    const receipt = deliveryReceiptResponse.parse((await call(sandbox, 'GET', receiptPath(first.sequenceNo))).body);
    for (const id of [receipt.data._id, receipt.data.messageId]) {
      const res = await call(sandbox, 'POST', resendPath(id), { message: 'Again' });
      expect(res.status).toBe(200);
    }
  });

  it('answers 404 NOT_FOUND for an unknown message', async () => {
    const res = await call(sandbox, 'POST', resendPath('no-such-message'), { message: 'Hello' });
    expect(res.status).toBe(404);
    expect(providerErrorBody.parse(res.body).error).toBe('NOT_FOUND');
  });

  it('accepts 1600 characters and refuses 1601 with MESSAGE_TOO_LONG', async () => {
    const first = await original();
    expect((await call(sandbox, 'POST', resendPath(first.messageId), { message: 'b'.repeat(1600) })).status).toBe(200);
    const tooLong = await call(sandbox, 'POST', resendPath(first.messageId), { message: 'b'.repeat(1601) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toBe('MESSAGE_TOO_LONG');
  });
});

describe('GET /v1/external/sms/logs/:sequenceNo', () => {
  it.each([
    ['233240000001', 'DELIVERED'],
    ['233240000002', 'UNDELIVERED'],
    ['233200000003', 'REJECTED'],
    ['233260000004', 'EXPIRED'],
    ['233501234567', 'DELIVERED'],
  ] as const)('reads ACCEPTED for %s at first, then %s once the delivery delay has passed', async (to, final) => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const sent = smsSendResponse.parse((await call(sandbox, 'POST', QUICK, quick(to, 'Receipt test'))).body);
    const first = await call(sandbox, 'GET', receiptPath(sent.sequenceNo));
    expect(first.status).toBe(200);
    const receipt = deliveryReceiptResponse.parse(first.body);
    expect(receipt.statusCode).toBe('200');
    expect(receipt.data).toMatchObject({
      deliveryStatus: 'ACCEPTED',
      receiverAddress: [to],
      message: 'Receipt test',
      senderAddress: 'SANDBOX',
      sequenceNo: sent.sequenceNo,
      transactionId: sent.transactionId,
    });
    expect(Number.isInteger(receipt.data.gatewayMessageId)).toBe(true);

    vi.setSystemTime(Date.now() + 2_000 * 0.01 + 1);
    const later = deliveryReceiptResponse.parse((await call(sandbox, 'GET', receiptPath(sent.sequenceNo))).body);
    expect(later.data.deliveryStatus).toBe(final);
  });

  it('answers 404 NOT_FOUND for an unknown sequenceNo', async () => {
    const res = await call(sandbox, 'GET', receiptPath('01ZZZZZZZZZZZZZZZZZZZZZZZZ'));
    expect(res.status).toBe(404);
    expect(providerErrorBody.parse(res.body).error).toBe('NOT_FOUND');
  });
});
