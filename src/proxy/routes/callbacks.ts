import { Router } from 'express';
import type { Relay } from '../relay/relay.js';

/** Routes of the callbacks part of the protocol. (Stub: filled in shortly.) */
export function callbacksRouter(ctx: unknown, relay: Relay): Router {
  void ctx;
  void relay;
  return Router();
}
