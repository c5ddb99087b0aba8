/**
 * The operator's "absent" is the provider's records seen at one moment; a request on its way lands after it,
 * up to the grace after its send, and the dashboard cannot show it before. The run, scripted on the model's
 * world: a payment's request times out on its way and will land late; the operator, listing unresolved
 * orders, looks at once, finds nothing and resolves the try absent. Taken, the try was void and the order free:
 * the customer opened the hosted checkout and paid it, the request landed, the customer approved its prompt,
 * and the order was charged twice. Before the grace the proxy answers 409 PAYMENT_UNCONFIRMED with the time
 * from which "absent" can be taken; after it, the word is taken as before.
 */
import { describe, expect, it } from 'vitest';
import { ProxyError } from '../../src/proxy/errors.js';
import { customerPaysBothWays, expectChargedOnceByTheFirstTry, idle, startedWorld, stored } from './model/held-world.js';
import { GRACE_MS, NUMBERS } from './model/world.js';

describe('the operator resolving a try absent before its grace ended', () => {
  it('is refused with the time from which it can be, and the order is charged once', async () => {
    const { w, sentAt } = await startedWorld();

    w.provider.queue('payment', 'land-late');
    w.pay(0, 'O1', NUMBERS[0]);
    await idle(w);
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'unknown' });

    w.clock += 2_000;
    expect(w.provider.payments.size).toBe(0);
    const early = await w.instances[0]!.orders.resolve('O1', { reference: 'O1-1', absent: true }).catch((err: unknown) => err);
    expect(early).toBeInstanceOf(ProxyError);
    expect(early).toMatchObject({ code: 'PAYMENT_UNCONFIRMED', details: { reference: 'O1-1', notBefore: new Date(sentAt + GRACE_MS).toISOString() } });
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'unknown' });

    // The customer tries the hosted checkout and pays whatever they were sent to; the request lands and its
    // prompt is approved.
    await customerPaysBothWays(w, 1, () => w.provider.landLate());
    await expectChargedOnceByTheFirstTry(w);
  });

  it('is taken once the grace after the send has passed', async () => {
    const { w, sentAt } = await startedWorld();
    w.provider.queue('payment', 'land-late');
    w.pay(0, 'O1', NUMBERS[0]);
    await idle(w);

    w.clock = sentAt + GRACE_MS;
    const after = await w.instances[0]!.orders.resolve('O1', { reference: 'O1-1', absent: true });
    expect(after.tries).toEqual([]);
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'void', voidReason: 'operator' });
  });
});
