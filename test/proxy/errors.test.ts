import { describe, expect, it } from 'vitest';
import { ProxyError, statusFor } from '../../src/proxy/errors.js';

describe('ProxyError', () => {
  it('carries code, message, details and the status of its code', () => {
    const error = new ProxyError('OTP_INVALID', 'The code is not correct.', { attemptsLeft: 2 });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'ProxyError', code: 'OTP_INVALID', message: 'The code is not correct.', details: { attemptsLeft: 2 }, status: 400 });
    expect(new ProxyError('OTP_LOCKED', 'Locked').status).toBe(statusFor('OTP_LOCKED'));
    expect(new ProxyError('INTERNAL', 'x', {}, 503).status).toBe(503);
  });

  it('captures no stack (an answer, not a fault) and leaves the stack limit as it found it', () => {
    const before = Error.stackTraceLimit;
    const error = new ProxyError('RATE_LIMITED', 'Too many requests.');
    expect(Error.stackTraceLimit).toBe(before);
    expect(error.stack ?? '').not.toMatch(/\n\s+at /);
    expect(new Error('a fault').stack).toMatch(/\n\s+at /);
  });
});
