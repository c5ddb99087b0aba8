import type { Redis } from 'ioredis';

/**
 * The `WAIT`s of one connection that commits (DESIGN: replicas). `next()` resolves how many replicas
 * acknowledged every write sent on the connection before it was called: the WAIT sent now when none is in
 * flight, else the one that follows it, shared by every commit written meanwhile. A WAIT holds its connection
 * until it answers, so one per commit would queue each commit a timeout behind the last while a replica
 * lags; shared, a commit waits for two at most.
 */
export class ReplicaWait {
  private inFlight: Promise<number> | null = null;
  private following: Promise<number> | null = null;

  constructor(
    private readonly connection: Redis,
    private readonly replicas: { acknowledge: number; timeoutMs: number },
  ) {}

  next(): Promise<number> {
    if (!this.inFlight) return this.send();
    const done = () => undefined;
    return (this.following ??= this.inFlight.then(done, done).then(() => {
      this.following = null;
      return this.send();
    }));
  }

  private send(): Promise<number> {
    const { acknowledge, timeoutMs } = this.replicas;
    const wait = (this.connection.call('WAIT', String(acknowledge), String(timeoutMs)) as Promise<unknown>).then(Number);
    this.inFlight = wait;
    const clear = () => {
      if (this.inFlight === wait) this.inFlight = null;
    };
    wait.then(clear, clear);
    return wait;
  }
}
