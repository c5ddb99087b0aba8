import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** Counts down to a moment, re-rendering the host each second, and calls `onEnd` when it is reached. */
export class CountdownController implements ReactiveController {
  private until = 0;
  private timer?: ReturnType<typeof setTimeout>;
  private onEnd?: (() => void) | undefined;

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  /** Whole seconds left (0 when done). */
  get left(): number {
    return Math.max(0, Math.ceil((this.until - Date.now()) / 1000));
  }

  /** Counts down to `until` (epoch milliseconds). */
  start(until: number, onEnd?: () => void) {
    this.stop();
    this.until = until;
    this.onEnd = onEnd;
    this.tick();
  }

  /** Stops counting: `left` is 0 from now on. */
  stop() {
    this.until = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  hostDisconnected() {
    clearTimeout(this.timer);
  }

  private tick = () => {
    this.host.requestUpdate();
    const ms = this.until - Date.now();
    if (ms <= 0) {
      this.timer = undefined;
      return this.onEnd?.();
    }
    this.timer = setTimeout(this.tick, ms % 1000 || 1000);
  };
}
