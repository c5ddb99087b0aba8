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
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(50);
    for (const deadline of deadlines) deadline.clear();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    vi.advanceTimersByTime(1_000);
    caller.abort();
    expect(deadlines.some((d) => d.aborted)).toBe(false);
  });
});
