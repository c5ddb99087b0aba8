/**
 * The operator resolves an unknown checkout session with a checkoutId from the provider's dashboard. The
 * status read the proxy checks it by has no reference (the specification's status result: id, status,
 * amount, currency, times), so only the price was compared: another shop's session on the same account at
 * our price, named by mistake (the wrong row of the dashboard), was adopted, and being completed, this order
 * was reported paid while its own session stayed unread. Where the provider lists sessions by reference, the
 * checkoutId must now be among this order's (found reading the operator's path for the hunt of a session's
 * reference never compared). The run, scripted on the model's world.
 */
import { describe, expect, it } from 'vitest';
import { brokenRules } from './model/invariants.js';
import { idle, startedWorld, stored } from './model/held-world.js';
import { SESSION_TTL_MS } from './model/scripted-provider.js';
import { AMOUNT } from './model/world.js';

describe('the operator naming another shop’s session at our price', () => {
  it('is refused where the provider lists sessions by reference: the order’s own session is found and read', async () => {
    const { w } = await startedWorld({ lists: true, prefix: 'SHOP-A-' });
    w.provider.queue('checkout', 'lose-answer');
    w.checkout(0, 'O1');
    await idle(w);
    expect((await stored(w, 'O1')).sessions[0]).toMatchObject({ phase: 'unknown' });
    w.provider.sessions.set('THEIRS', { checkoutId: 'THEIRS', reference: 'SHOP-B-O1', amount: AMOUNT, status: 'completed', expiresAt: w.clock + SESSION_TTL_MS, reachable: true });

    const word = await w.instances[1]!.orders.resolve('O1', { session: 1, checkoutId: 'THEIRS' }).catch((err: unknown) => err);
    expect(word).toMatchObject({ code: 'INVALID_INPUT', details: { fields: [{ path: 'checkoutId' }] } });
    expect((await stored(w, 'O1')).sessions).toMatchObject([{ phase: 'unknown', checkoutId: null }]);
    expect([...w.received.keys()].filter((k) => k.startsWith('checkout:'))).toEqual([]);

    // Named right, the order's own session is taken.
    const ours = [...w.provider.sessions.values()].find((s) => s.reference === 'SHOP-A-O1')!;
    await w.instances[1]!.orders.resolve('O1', { session: 1, checkoutId: ours.checkoutId });
    expect((await stored(w, 'O1')).sessions).toMatchObject([{ phase: 'open', checkoutId: ours.checkoutId }]);
    w.advance(SESSION_TTL_MS + 1_000);
    await idle(w);
    expect(await brokenRules(w)).toEqual([]);
  });
});
