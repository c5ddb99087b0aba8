/**
 * Two instances of the proxy whose hosts' clocks disagree (one drifted, or was stepped): a try's send is
 * stamped on one clock, and "past the grace" is judged on another. The run, scripted on the model's world: a
 * payment's request is sent by one instance, its answer lost and the request still on its way (it lands later,
 * within the bound a request can land); the other instance reads twice a few seconds after the send and does
 * not find it. With the reader's clock 25 seconds ahead of the sender's, both reads started "past the grace":
 * the try was void, the order free, the customer paid the hosted checkout and approved the prompt of the
 * request that had landed, and the order was charged twice. Every instance now judges the money's times on
 * the store's clock (DESIGN: one clock), however its host's clock is off, from its start or stepped later.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { customerPaysBothWays, expectChargedOnceByTheFirstTry, heldWorld, idle, stored } from './model/held-world.js';
import { NUMBERS } from './model/world.js';

const cases = [
  { name: "the reader's clock ahead from its start", skews: [0, 25_000], stepped: false },
  { name: "the sender's clock behind from its start", skews: [-25_000, 0], stepped: false },
  { name: "the reader's clock stepped ahead while it runs", skews: [0, 25_000], stepped: true },
] as const;

describe('instances whose hosts’ clocks disagree', () => {
  it.each(cases)('$name: a try is not taken for absent before the grace after its send; the order is charged once', async ({ skews, stepped }) => {
    const { w } = heldWorld();
    onTestFinished(() => w.close());
    const skew = () => skews.forEach((ms, i) => (w.instances[i]!.skewMs = ms));
    if (!stepped) skew();
    w.ready();
    await idle(w);
    if (stepped) skew();

    // Sent by the first instance: the answer lost, the request still on its way.
    w.provider.queue('payment', 'land-late');
    w.pay(0, 'O1', NUMBERS[0]);
    await idle(w);
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'unknown' });

    // Read twice by the second, 2 and 4 seconds after the send: not found, and not yet past the grace.
    for (let read = 0; read < 2; read++) {
      w.clock += 2_000;
      w.reconcile(1, 'O1');
      await idle(w);
    }
    expect((await stored(w, 'O1')).tries[0]).toMatchObject({ phase: 'unknown' });

    await customerPaysBothWays(w, 0, () => w.provider.landLate());
    await expectChargedOnceByTheFirstTry(w);
  });
});
