import type { RequestHandler, Router } from 'express';
import { SERVER_PATHS, webhookBulkReplay, webhookListQuery } from '../../protocol/index.js';
import { parseInput, ProxyError } from '../errors.js';
import { sendJson } from '../respond.js';
import type { WebhookAdmin } from '../notify/webhook-admin.js';

/**
 * The server API's webhook routes, behind the merchant backend's key (`requireServerKey`):
 * - `GET /server/webhooks?state=pending|delivered|dead&limit=N&cursor=C` → 200 `{ deliveries, next }`, newest
 *   first, `next` the cursor of the next page (null on the last);
 * - `POST /server/webhooks/:id/replay` → 202 `{ id, replayed: true }` (delivered again with the same
 *   `webhook-id`), 404 NOT_FOUND when no such webhook is known;
 * - `POST /server/webhooks/replay { state: dead|delivered, since? }` → 202 `{ replayed: [ids] }`;
 * - `POST /server/webhooks/retry` → 202 `{ pending }`: every pending webhook is tried now.
 */
export function webhookRoutes(router: Router, webhooks: WebhookAdmin, requireServerKey: RequestHandler): void {
  router.get(SERVER_PATHS.webhooks, requireServerKey, async (req, res) => {
    const query = parseInput(webhookListQuery, { ...(req.query as Record<string, unknown>) });
    try {
      sendJson(res, 200, await webhooks.page(query));
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      throw new ProxyError('INVALID_INPUT', 'The request is not valid.', { fields: [{ path: 'cursor', message: 'is not the next of a page of this listing' }] });
    }
  });

  router.post(SERVER_PATHS.webhooksReplay, requireServerKey, async (req, res) => {
    const filter = parseInput(webhookBulkReplay, req.body);
    sendJson(res, 202, { replayed: await webhooks.replayAll(filter) });
  });

  router.post(SERVER_PATHS.webhooksRetry, requireServerKey, async (_req, res) => {
    sendJson(res, 202, { pending: await webhooks.retry() });
  });

  router.post('/server/webhooks/:id/replay', requireServerKey, async (req, res) => {
    const id = String(req.params.id ?? '');
    if (!(await webhooks.replay(id))) throw new ProxyError('NOT_FOUND', 'No such webhook.');
    sendJson(res, 202, { id, replayed: true });
  });
}
