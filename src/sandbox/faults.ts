import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { gatewayLink, providerErrorBody } from '../provider/schemas/index.js';
import type { SandboxErrorCode } from './errors.js';
import { FAULT_KINDS, type FaultKind } from './options.js';
import type { SandboxState } from './state.js';

/** Request header that injects a fault: `x-sandbox-fault: 503`, or `503;after` to answer after processing. */
export const FAULT_HEADER = 'x-sandbox-fault';
/** Response header marking an injected answer with its kind. */
export const FAULT_MARK_HEADER = 'x-sandbox-fault-injected';

/** A fault chosen for one request. */
export interface ChosenFault {
  kind: FaultKind;
  /** Let the route handle the request first, then replace its answer. */
  after: boolean;
}

/**
 * A gateway envelope for injected 5xx answers: the gateway's four-character codes mirror the HTTP status
 * (`0400`, `0401`, `0404`), so a 500 is `0500`, a 502 `0502`, a 503 `0503` (a sandbox choice).
 */
export const gatewayFaultEnvelope = z.object({
  statusCode: z.enum(['0500', '0502', '0503']),
  statusMessage: z.string(),
  transactionId: z.null(),
  data: z.null(),
  links: z.array(gatewayLink).length(0),
});

const STATUS_TEXT = { '500': 'Internal Server Error', '502': 'Bad Gateway', '503': 'Service Unavailable' } as const;
const ERROR_CODES: Record<keyof typeof STATUS_TEXT, SandboxErrorCode> = {
  '500': 'INTERNAL_ERROR',
  '502': 'BAD_GATEWAY',
  '503': 'SERVICE_UNAVAILABLE',
};
const ERROR_MESSAGES = {
  '500': 'An unexpected error occurred. Please try again later.',
  '502': 'An upstream service failed to respond.',
  '503': 'The service is temporarily unavailable. Please try again later.',
} as const;

/**
 * Fault injection in front of every interface (never on `/__sandbox`). A request gets a fault from, in this
 * order: its `x-sandbox-fault` header, the first matching scripted fault (which it consumes), or a random
 * draw at `options.faultRate` (API paths only; half of these strike after processing).
 */
export function faultMiddleware(state: SandboxState): RequestHandler {
  return (req, res, next) => {
    if (req.path === '/__sandbox' || req.path.startsWith('/__sandbox/')) {
      next();
      return;
    }
    const fault = headerFault(req) ?? scriptedFault(state, req) ?? randomFault(state, req);
    if (!fault) {
      next();
      return;
    }
    state.count(`fault.${fault.kind}`);
    // Taken now: routers mounted on a path strip it from req.path while they run.
    const gateway = req.path === '/gateway' || req.path.startsWith('/gateway/');
    if (fault.after) {
      replaceAnswer(state, req, res, fault.kind, gateway);
      next();
      return;
    }
    if (fault.kind === 'latency') {
      const cancel = state.schedule(state.options.faultLatencyMs, () => next());
      res.on('close', cancel);
      return;
    }
    strike(state, req, res, { kind: fault.kind, gateway }, undefined, res.end.bind(res));
  };
}

/** Parses `kind` or `kind;after` from the request header; an unknown kind is ignored. */
export function headerFault(req: Request): ChosenFault | undefined {
  const value = req.get(FAULT_HEADER);
  if (!value) return undefined;
  const [kind, ...flags] = value.split(';').map((part) => part.trim().toLowerCase());
  const parsed = z.enum(FAULT_KINDS).safeParse(kind);
  return parsed.success ? { kind: parsed.data, after: flags.includes('after') } : undefined;
}

function scriptedFault(state: SandboxState, req: Request): ChosenFault | undefined {
  const index = state.scriptedFaults.findIndex(
    (f) => (!f.method || f.method === req.method.toUpperCase()) && (!f.path || req.path.startsWith(f.path)),
  );
  const fault = state.scriptedFaults[index];
  if (!fault) return undefined;
  fault.remaining -= 1;
  if (fault.remaining <= 0) state.scriptedFaults.splice(index, 1);
  return { kind: fault.kind, after: fault.after };
}

function randomFault(state: SandboxState, req: Request): ChosenFault | undefined {
  const { faultRate, faultKinds } = state.options;
  if (faultRate <= 0 || faultKinds.length === 0 || !isApiPath(req.path) || Math.random() >= faultRate) return undefined;
  const kind = faultKinds[Math.floor(Math.random() * faultKinds.length)] ?? faultKinds[0]!;
  return { kind, after: Math.random() < 0.5 };
}

/** Paths of the three interfaces (random faults spare the hosted checkout page). */
function isApiPath(path: string): boolean {
  return path.startsWith('/v1/') || path.startsWith('/gateway/v1/');
}

/**
 * Wraps `res.end` so that the route runs normally (state changes happen: a payment is created) and its
 * answer is then replaced by the fault: "processed, but the answer was lost".
 */
function replaceAnswer(state: SandboxState, req: Request, res: Response, kind: FaultKind, gateway: boolean): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  let struck = false;
  res.end = ((...args: unknown[]) => {
    if (struck) return res;
    struck = true;
    if (kind === 'latency') {
      const cancel = state.schedule(state.options.faultLatencyMs, () => end(...args));
      res.on('close', cancel);
      return res;
    }
    const chunk = args[0];
    const produced = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined;
    strike(state, req, res, { kind, gateway }, produced, end);
    return res;
  }) as Response['end'];
}

/** Delivers a fault other than latency, through `end` (the original `res.end`). */
function strike(
  state: SandboxState,
  req: Request,
  res: Response,
  fault: { kind: Exclude<FaultKind, 'latency'>; gateway: boolean },
  produced: string | undefined,
  end: (body: string) => unknown,
): void {
  const { kind, gateway } = fault;
  if (kind === 'reset') {
    req.socket.destroy();
    return;
  }
  if (kind === 'hang') {
    const cancel = state.schedule(state.options.hangMs, () => req.socket.destroy());
    res.on('close', cancel);
    return;
  }
  const body = kind === 'malformed' ? truncated(produced, gateway) : errorBody(kind, gateway);
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  res.statusCode = kind === 'malformed' ? 200 : Number(kind);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.setHeader('cache-control', 'no-store');
  res.setHeader(FAULT_MARK_HEADER, kind);
  end(body);
}

function errorBody(kind: keyof typeof STATUS_TEXT, gateway: boolean): string {
  if (gateway) {
    return JSON.stringify(
      gatewayFaultEnvelope.parse({
        statusCode: `0${kind}`,
        statusMessage: STATUS_TEXT[kind],
        transactionId: null,
        data: null,
        links: [],
      }),
    );
  }
  return JSON.stringify(providerErrorBody.parse({ error: ERROR_CODES[kind], message: ERROR_MESSAGES[kind], details: {} }));
}

/** The first half of the answer the route produced (or of a plausible one): JSON cut off mid-way. */
function truncated(produced: string | undefined, gateway: boolean): string {
  const whole =
    produced && produced.length >= 2
      ? produced
      : gateway
        ? '{"statusCode":"0000","statusMessage":"Successful","transactionId":"01J","data":{"status":"PENDING"},"links":[]}'
        : '{"statusCode":"200","statusMessage":"Successful","transactionId":"01J","data":{}}';
  return whole.slice(0, Math.max(1, Math.floor(whole.length / 2)));
}
