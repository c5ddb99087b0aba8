import type { RequestHandler } from 'express';
import type { SandboxState } from './state.js';

/** Middleware that counts one request of the named route (`state.requestCounts`), whatever its answer. */
export function counted(state: SandboxState, route: string): RequestHandler {
  return (_req, _res, next) => {
    state.count(route);
    next();
  };
}
