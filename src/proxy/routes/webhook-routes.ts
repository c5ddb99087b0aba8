import type { RequestHandler, Router } from 'express';
import { SERVER_PATHS, webhookListQuery } from '../../protocol/index.js';
import { parseInput, ProxyError } from '../errors.js';
import { sendJson } from '../respond.js';
import type { WebhookAdmin } from '../notify/webhook-admin.js';

/**
 * The server API's webhook routes, behind the merchant backend's key (`requireServerKey`):
 * - `GET /server/webhooks?state=pending|delivered|dead&limit=N` → 200 `{ deliveries: WebhookDelivery[] }`, newest first;
 * - `POST /server/webhooks/:id/replay` → 202 `{ id, replayed: true }` (delivered again with the same
 *   `webhook-id`), 404 NOT_FOUND when no such webhook is known.
 */
export function webhookRoutes(router: Router, webhooks: WebhookAdmin, requireServerKey: RequestHandler): void {
  router.get(SERVER_PATHS.webhooks, requireServerKey, async (req, res) => {
    const query = parseInput(webhookListQuery, { ...(req.query as Record<string, unknown>) });
    const options = { ...(query.state ? { state: query.state } : {}), ...(query.limit ? { limit: query.limit } : {}) };
    sendJson(res, 200, { deliveries: await webhooks.list(options) });
  });

  router.post('/server/webhooks/:id/replay', requireServerKey, async (req, res) => {
    const id = String(req.params.id ?? '');
    if (!(await webhooks.replay(id))) throw new ProxyError('NOT_FOUND', 'No such webhook.');
    sendJson(res, 202, { id, replayed: true });
  });
}
