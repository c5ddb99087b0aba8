import { Router } from 'express';
import type { Relay } from '../relay/relay.js';

/** Routes of the payments part of the protocol. (Stub: filled in shortly.) */
export function paymentsRouter(ctx: unknown, relay: Relay): Router {
  void ctx;
  void relay;
  return Router();
}
