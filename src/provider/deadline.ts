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
  readonly #onCallerAbort = () => this.#abort(this.#caller?.reason);

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
    caller?.addEventListener('abort', this.#onCallerAbort, { once: true });
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
    this.#caller?.removeEventListener('abort', this.#onCallerAbort);
  }

  #abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
    this.emit('abort');
  }
}
