import express, { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { fieldsOf, sendError } from './errors.js';
import { html, page } from './html.js';
import {
  checkoutsView,
  faultView,
  outboxEntries,
  outboxView,
  paymentsView,
} from './inspect-views.js';
import { FAULT_KINDS } from './options.js';
import { answerPrompt, refreshPayment } from './payments.js';
import { phonePage, pickNumberPage } from './phone-page.js';
import type { OutboxSms, SandboxState, ScriptedFault } from './state.js';

/** Body of `POST /__sandbox/faults`. */
export const scriptFaultRequest = z.strictObject({
  kind: z.enum(FAULT_KINDS),
  count: z.number().int().positive().max(10_000).default(1),
  method: z.string().min(1).optional(),
  /** Prefix of the request path as the app sees it, e.g. `/gateway/v1/payment`. */
  path: z.string().startsWith('/').optional(),
  after: z.boolean().default(false),
});

/**
 * Inspection and control at `/__sandbox` (never behind auth or faults): the outbox, the payments received,
 * the checkout sessions, the phone page, scripted faults and a reset.
 */
export function inspectRouter(state: SandboxState): Router {
  const router = Router();
  const json = express.json({ limit: '100kb' });

  router.get('/', (req, res) => {
    const base = req.baseUrl;
    const links = ['outbox', 'payments', 'checkouts', 'phone', 'faults'].map(
      (name) => html`<li><a href="${base}/${name}">${name}</a></li>`,
    );
    res.type('html').send(page({ title: 'Sandbox' }, html`<main><h1>Sandbox</h1><ul>${links}</ul></main>`));
  });

  router.get('/outbox', (req, res) => {
    const to = typeof req.query.to === 'string' ? req.query.to : undefined;
    const kindParam = req.query.kind;
    if (kindParam !== undefined && kindParam !== 'sms' && kindParam !== 'email') {
      sendError(res, 400, 'VALIDATION_ERROR', 'kind must be sms or email.', {
        fields: [{ path: 'kind', message: 'must be sms or email' }],
      });
      return;
    }
    const now = state.now();
    const entries = outboxEntries(state, { to, kind: kindParam }).map((entry) => outboxView(entry, now));
    res.json({ entries });
  });

  router.get('/payments', (_req, res) => {
    res.json({ payments: paymentsView(state) });
  });

  router.get('/checkouts', (_req, res) => {
    res.json({ checkouts: checkoutsView(state) });
  });

  router.get('/phone', (req, res) => {
    const number = typeof req.query.number === 'string' ? req.query.number.replace(/\D/g, '') : '';
    res.set('cache-control', 'no-store').type('html');
    if (!number) {
      res.send(pickNumberPage());
      return;
    }
    const now = state.now();
    const messages = outboxEntries(state, { to: number, kind: 'sms' }) as OutboxSms[];
    const prompts = [...state.payments.values()]
      .map((p) => refreshPayment(p, now))
      .filter((p) => p.msisdn === number && p.status === 'PENDING')
      .sort((a, b) => b.createdAt - a.createdAt);
    const promptPath = (referenceId: string) => `${req.baseUrl}/phone/payments/${encodeURIComponent(referenceId)}`;
    res.send(phonePage({ number, messages, prompts, promptPath, now }));
  });

  router.post('/phone/payments/:referenceId/:answer', (req, res) => {
    const answer = req.params.answer === 'approve' ? 'COMPLETED' : req.params.answer === 'decline' ? 'CANCELLED' : null;
    const record = state.payments.get(String(req.params.referenceId));
    if (!answer || !record) {
      sendError(res, 404, 'NOT_FOUND', 'No such payment prompt.');
      return;
    }
    if (!answerPrompt(state, record, answer)) {
      sendError(res, 409, 'CONFLICT', `The payment is already ${record.status}.`, { status: record.status });
      return;
    }
    res.redirect(303, `${req.baseUrl}/phone?number=${encodeURIComponent(record.msisdn)}`);
  });

  router.get('/faults', (_req, res) => {
    res.json({ faults: state.scriptedFaults.map(faultView) });
  });

  router.post('/faults', json, (req: Request, res: Response) => {
    const parsed = scriptFaultRequest.safeParse(req.body);
    if (!parsed.success) {
      sendError(res, 400, 'VALIDATION_ERROR', 'The fault script is invalid.', { fields: fieldsOf(parsed.error) });
      return;
    }
    const { kind, count, method, path, after } = parsed.data;
    const fault: ScriptedFault = { id: state.uuid(), kind, remaining: count, after };
    if (method) fault.method = method.toUpperCase();
    if (path) fault.path = path;
    state.scriptedFaults.push(fault);
    res.status(201).json({ fault: faultView(fault), faults: state.scriptedFaults.map(faultView) });
  });

  router.delete('/faults', (_req, res) => {
    state.scriptedFaults.length = 0;
    res.status(204).end();
  });

  router.post('/reset', (_req, res) => {
    state.reset();
    res.status(204).end();
  });

  router.use((req, res) => {
    sendError(res, 404, 'NOT_FOUND', `No route ${req.method} ${req.baseUrl}${req.path}`);
  });
  return router;
}
