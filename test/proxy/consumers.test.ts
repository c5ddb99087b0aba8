// The receipts consumer: a completed payment's SMS receipt goes to the number its message carries, once; a
// message that carries none (a completion reported again from a record that keeps the number masked) sends
// no SMS and says so, and the email receipt still goes.
import { describe, expect, it } from 'vitest';
import type { ProxyContext } from '../../src/proxy/context.js';
import type { OutboxMessage } from '../../src/proxy/notify/outbox.js';
import { receiptsConsumer } from '../../src/proxy/notify/consumers.js';
import type { PaymentPayload } from '../../src/proxy/order/messages.js';
import { MemoryStore } from '../../src/proxy/store/memory.js';
import { captureLogger } from './helpers.js';

function context() {
  const sms: { to: string; message: string }[] = [];
  const email: { to: string }[] = [];
  const logs = captureLogger();
  const ctx = {
    config: { receipts: { sms: true, email: { from: 'shop@example.com', to: 'owner@example.com' } }, otp: { sender: 'Shop' } },
    client: { sms: { send: async (m: { to: string; message: string }) => void sms.push(m) }, email: { send: async (m: { to: string }) => void email.push(m) } },
    store: new MemoryStore(),
    logger: logs.logger,
    now: () => 0,
  } as unknown as ProxyContext;
  return { ctx, sms, email, logs };
}

function completed(reference: string, receipt: PaymentPayload['receipt']): OutboxMessage {
  const snapshot = { reference, status: 'COMPLETED', currency: 'GHS', totalAmount: 12.63 };
  return { id: `payment:${reference}:COMPLETED`, kind: 'payment', subject: `payment:${reference}`, createdAt: 0, payload: { idempotencyKey: `payment:${reference}:COMPLETED`, snapshot, previous: 'PENDING', final: true, receipt } } as OutboxMessage;
}

describe('the receipts consumer', () => {
  it('sends the SMS receipt to the number the message carries, once however often it is delivered', async () => {
    const { ctx, sms, email } = context();
    const receipts = receiptsConsumer(ctx);
    const message = completed('O-1', { msisdn: '233240000001', payee: 'Shop', narration: 'Order 1' });
    expect(receipts.accepts(message)).toBe(true);
    await receipts.deliver(message);
    await receipts.deliver(message);
    expect(sms).toEqual([expect.objectContaining({ to: '233240000001', message: 'Payment received: GHS 12.63 to Shop for Order 1. Ref O-1.' })]);
    expect(email).toHaveLength(1);
  });

  it('sends no SMS when the message carries no number, and says so; the email receipt still goes', async () => {
    const { ctx, sms, email, logs } = context();
    await receiptsConsumer(ctx).deliver(completed('O-2', { payee: 'Shop', narration: 'Order 2' }));
    expect(sms).toEqual([]);
    expect(email).toHaveLength(1);
    expect(logs.entries()).toContainEqual(expect.objectContaining({ reference: 'O-2', msg: expect.stringMatching(/^SMS receipt not sent: the payer's number was not kept/) }));
  });
});
