import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { checkoutRouter } from './checkout.js';
import { GATEWAY_STATUS } from '../provider/schemas/index.js';
import { sendError, sendGatewayError } from './errors.js';
import { faultMiddleware } from './faults.js';
import { gatewayRouter } from './gateway.js';
import { inspectRouter } from './inspect.js';
import { messagingRouter } from './messaging.js';
import { sandboxOptionsSchema, type SandboxOptions } from './options.js';
import { SandboxState } from './state.js';

export interface SandboxApp extends Express {
  /** The sandbox's memory, for tests and the inspection routes. */
  sandbox: SandboxState;
}

/**
 * Builds the sandbox: `{base_url}` (messaging and checkout) at `/`, `{payment_base_url}` at `/gateway`,
 * and the inspection pages at `/__sandbox`. Returns an Express app; it does not listen.
 */
export function createSandbox(options: SandboxOptions = {}): SandboxApp {
  const state = new SandboxState(sandboxOptionsSchema.parse(options));
  const app = express() as unknown as SandboxApp;
  app.sandbox = state;
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');

  app.use('/__sandbox', inspectRouter(state));
  app.use(faultMiddleware(state));
  // Every body is read as JSON except the hosted checkout page's HTML forms (parsed on their own routes).
  app.use(express.json({ limit: '5mb', type: (req) => !isFormPost(req as Request) }));
  app.use('/gateway', gatewayRouter(state));
  app.use(checkoutRouter(state));
  app.use(messagingRouter(state));

  app.use((req: Request, res: Response) => {
    sendError(res, 404, 'NOT_FOUND', `No route ${req.method} ${req.path}`);
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = err as { type?: string; status?: number };
    // Any 4xx of the HTTP layer is the client's fault (found by fuzzing, each was a 500): a body that
    // claims gzip but does not inflate, a charset it cannot decode, a path parameter that does not decode.
    const clientFault = typeof e.status === 'number' && e.status >= 400 && e.status < 500;
    if (clientFault && req.path.startsWith('/gateway/')) {
      sendGatewayError(res, GATEWAY_STATUS.BAD_REQUEST, 'Bad Request');
      return;
    }
    if (e.type === 'entity.parse.failed') {
      sendError(res, 400, 'INVALID_JSON', 'The request body is not valid JSON.');
      return;
    }
    if (e.type === 'entity.too.large') {
      sendError(res, 413 as number, 'VALIDATION_ERROR', 'The request body is too large.');
      return;
    }
    if (clientFault && err instanceof URIError) {
      sendError(res, 400, 'VALIDATION_ERROR', 'The request path does not percent-decode.');
      return;
    }
    if (clientFault) {
      sendError(res, 400, 'INVALID_JSON', 'The request body could not be read (its encoding or charset).');
      return;
    }
    sendError(res, 500, 'INTERNAL_ERROR', 'The sandbox failed to handle this request.');
  });
  return app;
}

/** True for an HTML form post (`application/x-www-form-urlencoded`), which the JSON parser leaves alone. */
function isFormPost(req: Request): boolean {
  return (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
}
