import type { Outbox, OutboxItem } from './outbox.js';

/**
 * The outboxes of an order book whose store is split into shards (DESIGN: Redis Cluster), one per shard,
 * seen as one: a message is kept (and delivered) in its order's shard, so a read or a replay by id asks every
 * shard, and a drain, a wake-up or a listing is each shard's. One shard: that outbox alone.
 */
export class Outboxes {
  constructor(readonly parts: readonly Outbox[]) {}

  kick(): void {
    for (const part of this.parts) part.kick();
  }

  /** Messages still to deliver (ids), in every shard. */
  pending = async (): Promise<string[]> => (await Promise.all(this.parts.map((p) => p.pending()))).flat();
  /** Messages given up on (ids), in every shard. */
  dead = async (): Promise<string[]> => (await Promise.all(this.parts.map((p) => p.dead()))).flat();
  /** Messages recorded on `day`, in every shard. */
  recordedOn = async (day: number): Promise<string[]> => (await Promise.all(this.parts.map((p) => p.recordedOn(day)))).flat();

  /** A stored message and its deliveries, from the shard that keeps it. */
  read = async (id: string): Promise<OutboxItem | null> => {
    if (this.parts.length === 1) return this.parts[0]!.read(id);
    return (await Promise.all(this.parts.map((p) => p.read(id)))).find((item) => item !== null) ?? null;
  };

  async forgetDead(id: string): Promise<void> {
    await Promise.all(this.parts.map((p) => p.forgetDead(id)));
  }

  /** `Outbox.requeue` in the shard that keeps the message; false when none does. */
  async requeue(id: string, consumer: string): Promise<boolean> {
    return (await Promise.all(this.parts.map((p) => p.requeue(id, consumer)))).some(Boolean);
  }

  /** `Outbox.wake` in every shard. */
  async wake(consumer: string): Promise<void> {
    await Promise.all(this.parts.map((p) => p.wake(consumer)));
  }

  async close(): Promise<void> {
    await Promise.all(this.parts.map((p) => p.close()));
  }
}
