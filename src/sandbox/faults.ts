import type { RequestHandler } from 'express';
import type { SandboxState } from './state.js';

// PLACEHOLDER: replaced by the helper building fault injection.
export function faultMiddleware(_state: SandboxState): RequestHandler {
  return (_req, _res, next) => next();
}
