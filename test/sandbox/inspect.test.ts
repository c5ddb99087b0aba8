import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StartedSandbox } from '../../src/sandbox/index.js';
import type { OutboxEmail, OutboxSms } from '../../src/sandbox/state.js';
import { finalStatus, initiate, paymentStatus, send, start } from './gateway-fixtures.js';

let sandbox: StartedSandbox;
beforeAll(async () => {
  // Real time: a default payment stays PENDING for 5 s, long enough to answer its prompt.
  sandbox = await start({ timeScale: 1 });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.app.sandbox.reset();
});

let sequence = 0;
function sms(to: string, message: string, createdAt: number, deliverAt = createdAt): OutboxSms {
  sequence += 1;
  return {
    kind: 'sms',
    id: `id-${sequence}`,
    messageId: `m-${sequence}`,
    sequenceNo: `s-${sequence}`,
    transactionId: `t-${sequence}`,
    jobId: `j-${sequence}`,
    to,
    from: 'SHOP',
    message,
    type: 'Quick',
    isGlobal: false,
    segments: 1,
    createdAt,
    deliverAt,
    finalStatus: 'DELIVERED',
  };
}

function email(to: string, subject: string, createdAt: number): OutboxEmail {
  sequence += 1;
  return {
    kind: 'email',
    id: `e-${sequence}`,
    sequenceNo: `s-${sequence}`,
    transactionId: `t-${sequence}`,
    from: 'shop@example.com',
    to: [to],
    cc: [],
    bcc: [],
    subject,
    text: 'Hello',
    createdAt,
  };
}

describe('GET /__sandbox/outbox', () => {
  it('lists entries newest first with ISO dates, SMS text and current delivery status', async () => {
    const now = Date.now();
    const outbox = sandbox.app.sandbox.outbox;
    outbox.push(sms('233240000001', 'Your code is 123456', now - 2_000));
    outbox.push(email('ama@example.com', 'Receipt', now - 1_000));
    outbox.push(sms('233240000002', 'Later', now, now + 60_000));
    const res = await send(sandbox, 'GET', '/__sandbox/outbox');
    expect(res.status).toBe(200);
    const entries = res.body.entries as Record<string, unknown>[];
    expect(entries.map((e) => e.kind)).toEqual(['sms', 'email', 'sms']);
    expect(entries[0]).toMatchObject({ to: '233240000002', createdAt: new Date(now).toISOString(), deliveryStatus: 'ACCEPTED' });
    expect(entries[2]).toMatchObject({ message: 'Your code is 123456', deliveryStatus: 'DELIVERED' });
    expect(entries[1]).toMatchObject({ subject: 'Receipt', createdAt: new Date(now - 1_000).toISOString() });
  });

  it('filters by recipient and by kind', async () => {
    const now = Date.now();
    sandbox.app.sandbox.outbox.push(
      sms('233240000001', 'one', now - 3),
      sms('233240000002', 'two', now - 2),
      sms('233240000001', 'three', now - 1),
      email('ama@example.com', 'Receipt', now),
    );
    const byNumber = await send(sandbox, 'GET', '/__sandbox/outbox?to=233240000001');
    expect(byNumber.body.entries.map((e: { message: string }) => e.message)).toEqual(['three', 'one']);
    const byEmail = await send(sandbox, 'GET', '/__sandbox/outbox?to=AMA@example.com');
    expect(byEmail.body.entries).toHaveLength(1);
    const smsOnly = await send(sandbox, 'GET', '/__sandbox/outbox?kind=sms');
    expect(smsOnly.body.entries).toHaveLength(3);
    const bad = await send(sandbox, 'GET', '/__sandbox/outbox?kind=fax');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('VALIDATION_ERROR');
  });
});

describe('GET /__sandbox/payments', () => {
  it('lists every payment received with its current status, newest first', async () => {
    const first = await initiate(sandbox, '233240000001', { amount: 10, callbackId: 'cb-a' });
    const second = await initiate(sandbox, '233260000004', { amount: 20 });
    const res = await send(sandbox, 'GET', '/__sandbox/payments');
    expect(res.status).toBe(200);
    const payments = res.body.payments as Record<string, unknown>[];
    expect(payments.map((p) => p.referenceId)).toEqual([second.referenceId, first.referenceId]);
    expect(payments[1]).toMatchObject({
      referenceNo: first.referenceNo,
      status: 'PENDING',
      msisdn: '233240000001',
      amount: 10,
      charge: 0.1,
      totalAmount: 10.1,
      callbackId: 'cb-a',
      completedAt: null,
    });
    expect(Date.parse(payments[1]!.createdAt as string)).not.toBeNaN();
  });
});

describe('the phone page', () => {
  it('without a number shows a form to pick one, with the test numbers', async () => {
    const res = await send(sandbox, 'GET', '/__sandbox/phone');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/<form method="get">/);
    expect(res.text).toContain('<label for="number">');
    for (const n of ['233240000001', '233240000002', '233200000003', '233260000004', '233240000404']) {
      expect(res.text).toContain(`?number=${n}`);
    }
  });

  it("shows the number's SMS newest first, escaped, and its pending payment prompts", async () => {
    const now = Date.now();
    sandbox.app.sandbox.outbox.push(
      sms('233501234567', 'Older <message>', now - 1_000),
      sms('233501234567', 'Your code is 654321', now),
      sms('233240000001', 'Not for this phone', now),
    );
    await initiate(sandbox, '233501234567', { amount: 12.5, payee: 'Kofi & Sons' });
    await initiate(sandbox, '233240000001', { payee: 'Elsewhere' });
    const res = await send(sandbox, 'GET', '/__sandbox/phone?number=233501234567');
    expect(res.status).toBe(200);
    // It reads itself again by script (a Refresh link without script), never a meta refresh.
    expect(res.text).not.toContain('http-equiv="refresh"');
    expect(res.text).toContain('<script type="module">');
    expect(res.text).toContain('<a href="">Refresh</a>');
    expect(res.text).toContain('Pay GHS 12.63 to Kofi &amp; Sons?');
    expect(res.text).not.toContain('Elsewhere');
    expect(res.text).not.toContain('Not for this phone');
    expect(res.text).toContain('Older &lt;message&gt;');
    expect(res.text.indexOf('654321')).toBeLessThan(res.text.indexOf('Older'));
    expect(res.text).toMatch(/<button type="submit"[^>]*>Approve<\/button>/);
    expect(res.text).toMatch(/<button type="submit"[^>]*>Decline<\/button>/);
    // How old the prompt is, and how long Telecel (050) keeps it open: 90 seconds on this real-time sandbox.
    expect(res.text).toMatch(/Sent 0:0\d ago\. Expires in 1:(2\d|30)\./);
  });

  it('says of a prompt that never expires that it waits for an answer', async () => {
    await initiate(sandbox, '233260000004');
    const res = await send(sandbox, 'GET', '/__sandbox/phone?number=233260000004');
    expect(res.text).toContain('This network never ends it: answer it, or it waits.');
  });

  it('Approve completes a PENDING payment before its schedule and redirects back to the phone', async () => {
    const { referenceId, referenceNo } = await initiate(sandbox, '233501234567');
    expect((await paymentStatus(sandbox, referenceId)).body.data.status).toBe('PENDING');
    const res = await send(sandbox, 'POST', `/__sandbox/phone/payments/${referenceId}/approve`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/__sandbox/phone?number=233501234567');
    const data = (await paymentStatus(sandbox, referenceNo)).body.data;
    expect(data.status).toBe('COMPLETED');
    expect(Date.parse(data.completedAt)).toBeLessThan(sandbox.app.sandbox.payments.get(referenceId)!.settleAt);
    const phone = await send(sandbox, 'GET', '/__sandbox/phone?number=233501234567');
    expect(phone.text).toContain('No pending payment prompts');
  });

  it('Decline cancels a PENDING payment, even one scheduled to complete', async () => {
    const { referenceId } = await initiate(sandbox, '233240000001');
    const res = await send(sandbox, 'POST', `/__sandbox/phone/payments/${referenceId}/decline`);
    expect(res.status).toBe(303);
    const data = (await paymentStatus(sandbox, referenceId)).body.data;
    expect(data).toMatchObject({ status: 'CANCELLED', completedAt: null });
  });

  it('answers 409 once the payment is no longer PENDING, and 404 for an unknown one', async () => {
    const { referenceId } = await initiate(sandbox, '233260000004');
    expect((await send(sandbox, 'POST', `/__sandbox/phone/payments/${referenceId}/decline`)).status).toBe(303);
    const again = await send(sandbox, 'POST', `/__sandbox/phone/payments/${referenceId}/approve`);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'CONFLICT', message: 'The payment is already CANCELLED.', details: { status: 'CANCELLED' } });
    expect((await send(sandbox, 'POST', '/__sandbox/phone/payments/nope/approve')).status).toBe(404);
  });
});

describe('phone answers and callbacks against the schedule', () => {
  it('a payment no one answers still completes on schedule (scaled)', async () => {
    const fast = await start();
    try {
      const { referenceId } = await initiate(fast, '233501234567');
      expect((await finalStatus(fast, referenceId)).status).toBe('COMPLETED');
      const late = await send(fast, 'POST', `/__sandbox/phone/payments/${referenceId}/decline`);
      expect(late.status).toBe(409);
    } finally {
      await fast.close();
    }
  });
});

describe('faults, checkouts and reset', () => {
  it('scripts, lists and clears faults', async () => {
    const created = await send(sandbox, 'POST', '/__sandbox/faults', {
      body: { kind: '503', count: 2, method: 'post', path: '/gateway/v1/payment' },
    });
    expect(created.status).toBe(201);
    expect(created.body.fault).toMatchObject({ kind: '503', remaining: 2, method: 'POST', path: '/gateway/v1/payment', after: false });
    const listed = await send(sandbox, 'GET', '/__sandbox/faults');
    expect(listed.body.faults).toHaveLength(1);
    expect((await send(sandbox, 'DELETE', '/__sandbox/faults')).status).toBe(204);
    expect((await send(sandbox, 'GET', '/__sandbox/faults')).body.faults).toEqual([]);
  });

  it('refuses an invalid fault script', async () => {
    const res = await send(sandbox, 'POST', '/__sandbox/faults', { body: { kind: 'explode', count: 0 } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('VALIDATION_ERROR');
    const paths = (res.body.details.fields as { path: string }[]).map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['kind', 'count']));
  });

  it('lists checkout sessions', async () => {
    const res = await send(sandbox, 'POST', '/v1/checkout/initialize', {
      headers: { authorization: 'Bearer test-checkout-key' },
      body: { title: 'T', reference: 'R', amount: 1, description: 'D', returnUrl: 'https://shop.example/' },
    });
    const list = await send(sandbox, 'GET', '/__sandbox/checkouts');
    expect(list.body.checkouts).toEqual([expect.objectContaining({ checkoutId: res.body.checkoutId, status: 'pending' })]);
  });

  it('reset forgets payments, messages and counts', async () => {
    await initiate(sandbox, '233240000001');
    sandbox.app.sandbox.outbox.push(sms('233240000001', 'x', Date.now()));
    expect((await send(sandbox, 'POST', '/__sandbox/reset')).status).toBe(204);
    expect((await send(sandbox, 'GET', '/__sandbox/payments')).body.payments).toEqual([]);
    expect((await send(sandbox, 'GET', '/__sandbox/outbox')).body.entries).toEqual([]);
    expect(sandbox.app.sandbox.requestCounts.size).toBe(0);
  });

  it('answers unknown inspection paths with a JSON 404', async () => {
    const res = await send(sandbox, 'GET', '/__sandbox/nothing');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('NOT_FOUND');
  });
});
