import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Deadline } from '../../src/provider/deadline.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('Deadline', () => {
  it('ends at the total timeout with a TimeoutError, emitting abort once', () => {
    vi.useFakeTimers();
    const deadline = new Deadline(500);
    const heard = vi.fn();
    deadline.on('abort', heard);
    vi.advanceTimersByTime(499);
    expect(deadline.aborted).toBe(false);
    expect(() => deadline.throwIfAborted()).not.toThrow();
    vi.advanceTimersByTime(1);
    expect(deadline).toMatchObject({ aborted: true, timedOut: true });
    expect(deadline.reason).toMatchObject({ name: 'TimeoutError', message: 'The provider call took longer than 500 ms' });
    expect(() => deadline.throwIfAborted()).toThrow('took longer than 500 ms');
    expect(heard).toHaveBeenCalledTimes(1);
  });

  it("ends with the caller's own reason when the caller aborts first, and is then no timeout", () => {
    vi.useFakeTimers();
    const caller = new AbortController();
    const deadline = new Deadline(500, caller.signal);
    const reason = new Error('caller gave up');
    caller.abort(reason);
    expect(deadline).toMatchObject({ aborted: true, timedOut: false });
    expect(deadline.reason).toBe(reason);
    vi.advanceTimersByTime(1_000);
    expect(deadline.timedOut).toBe(false);
    expect(deadline.reason).toBe(reason);
  });

  it('makes an AbortSignal only when asked, aborted with the same reason before or after', () => {
    vi.useFakeTimers();
    const early = new Deadline(100);
    const signal = early.signal;
    expect(early.signal).toBe(signal);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(100);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(early.reason);

    const late = new Deadline(100);
    vi.advanceTimersByTime(100);
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toBe(late.reason);
  });

  it("stops its clock and lets go of the caller's signal when cleared", () => {
    vi.useFakeTimers();
    const caller = new AbortController();
    const deadlines = Array.from({ length: 50 }, () => new Deadline(100, caller.signal));
    for (const deadline of deadlines) deadline.clear();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    vi.advanceTimersByTime(1_000);
    caller.abort();
    expect(deadlines.some((d) => d.aborted)).toBe(false);
  });

  it('listens to a signal many calls share once, so Node never warns of a leak, and ends each call still open', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const caller = new AbortController();
      const deadlines = Array.from({ length: 30 }, () => new Deadline(60_000, caller.signal));
      expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
      for (const deadline of deadlines.slice(0, 10)) deadline.clear();
      expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
      const reason = new Error('shutting down');
      caller.abort(reason);
      expect(deadlines.slice(0, 10).some((d) => d.aborted)).toBe(false);
      expect(deadlines.slice(10).every((d) => d.aborted && d.reason === reason)).toBe(true);
      for (const deadline of deadlines) deadline.clear();
      // Node emits its warnings on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name == 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('follows a new signal afresh once all the calls on it are cleared', () => {
    const caller = new AbortController();
    new Deadline(60_000, caller.signal).clear();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    const again = new Deadline(60_000, caller.signal);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    caller.abort();
    expect(again.aborted).toBe(true);
    again.clear();
  });
});
