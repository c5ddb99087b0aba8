import { EventEmitter } from 'node:events';

/**
 * When one provider call must end: at its total timeout, or when the caller's own signal aborts, whichever
 * comes first. It is an EventEmitter (`aborted`, `reason`, an `abort` event) that the default transport
 * listens to, so a call on the default transport builds no AbortController: creating one
 * and listening on it cost a proxied OTP validation more CPU than mapping its answer (measured by
 * `npm run bench`). A real AbortSignal is made only for those who need one (an injected fetch, the retry
 * policy's backoff), on first use.
 */
export class Deadline extends EventEmitter {
  /** Whether the call must end now. */
  aborted = false;
  /** Why: the caller's abort reason, or a `TimeoutError` DOMException at the total timeout. */
  reason: unknown = undefined;
  /** Whether it was the total timeout (not the caller) that ended the call. */
  timedOut = false;
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #caller: AbortSignal | undefined;
  #controller: AbortController | undefined;

  /**
   * The deadlines each caller's signal ends, behind one listener per signal: calls sharing a signal (a bulk
   * send, a shutdown signal) would otherwise add a listener each, and Node warns of a leak at the eleventh
   * (`MaxListenersExceededWarning`) although each is removed when its call settles.
   */
  static readonly #byCaller = new WeakMap<AbortSignal, { deadlines: Set<Deadline>; onAbort: () => void }>();

  /** Starts the clock; `caller` (already checked not to be aborted) ends the call too. */
  constructor(totalMs: number, caller?: AbortSignal) {
    super();
    this.#timer = setTimeout(() => {
      if (this.aborted) return;
      this.timedOut = true;
      this.#abort(new DOMException(`The provider call took longer than ${totalMs} ms`, 'TimeoutError'));
    }, totalMs);
    this.#timer.unref();
    this.#caller = caller;
    if (caller) Deadline.#follow(caller, this);
  }

  static #follow(caller: AbortSignal, deadline: Deadline): void {
    let followers = Deadline.#byCaller.get(caller);
    if (!followers) {
      const deadlines = new Set<Deadline>();
      const onAbort = () => {
        Deadline.#byCaller.delete(caller);
        for (const d of deadlines) d.#abort(caller.reason);
      };
      Deadline.#byCaller.set(caller, (followers = { deadlines, onAbort }));
      caller.addEventListener('abort', onAbort, { once: true });
    }
    followers.deadlines.add(deadline);
  }

  static #unfollow(caller: AbortSignal, deadline: Deadline): void {
    const followers = Deadline.#byCaller.get(caller);
    if (!followers?.deadlines.delete(deadline) || followers.deadlines.size > 0) return;
    caller.removeEventListener('abort', followers.onAbort);
    Deadline.#byCaller.delete(caller);
  }

  /** An AbortSignal that aborts with this deadline (made once, on first use). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  /** Throws the reason when the call must already have ended. */
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** Stops the clock and lets go of the caller's signal: the call has settled. */
  clear(): void {
    clearTimeout(this.#timer);
    if (this.#caller) Deadline.#unfollow(this.#caller, this);
  }

  #abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
    this.emit('abort');
  }
}
