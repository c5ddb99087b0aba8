import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** Counts down to a moment, re-rendering the host each second, and calls `onEnd` when it is reached. */
export class CountdownController implements ReactiveController {
  private endsAt = 0;
  private timer?: ReturnType<typeof setTimeout>;
  private onEnd?: (() => void) | undefined;

  constructor(private readonly owner: ReactiveControllerHost) {
    owner.addController(this);
  }

  /** Whole seconds left (0 when done). */
  get left(): number {
    return Math.max(0, Math.ceil((this.endsAt - Date.now()) / 1000));
  }

  /** Counts down to `until` (epoch milliseconds). */
  start(until: number, onEnd?: () => void) {
    this.stop();
    this.endsAt = until;
    this.onEnd = onEnd;
    this.tick();
  }

  /** Stops counting: `left` is 0 from now on. */
  stop() {
    this.endsAt = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  hostDisconnected() {
    clearTimeout(this.timer);
  }

  private tick = () => {
    this.owner.requestUpdate();
    const ms = this.endsAt - Date.now();
    if (ms <= 0) {
      this.timer = undefined;
      return this.onEnd?.();
    }
    this.timer = setTimeout(this.tick, ms % 1000 || 1000);
  };
}
