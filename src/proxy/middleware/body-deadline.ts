import type { IncomingMessage, ServerResponse } from 'node:http';
import { HOST_RUNTIME } from '../runtime.js';

/** What a parser reading a body does when its request's deadline passes (answers 408). */
type OnExpiry = () => void;

/** The deadline of a request that announced a body and has not finished sending it. */
export interface BodyDeadline {
  /** Fires at the deadline; cleared when the body has arrived or the request is gone. */
  timer: NodeJS.Timeout;
  /** True once the deadline passed with the body incomplete. */
  expired: boolean;
  /** Set while a parser reads the body: it answers the request itself. */
  onExpiry: OnExpiry | undefined;
}

/** Where a request keeps its deadline (a property, not a WeakMap: one per POST, and ephemerons cost GC time). */
const DEADLINE = Symbol('merchant-elements.body-deadline');
type Held = IncomingMessage & { [DEADLINE]?: BodyDeadline };

/** Whether the request says a body follows (a length above 0, or chunks). */
function announcesBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * Holds a request's body to `timeoutMs` from now (the moment the router first sees it, its headers just
 * read), whoever reads the body, or nobody. A body that has not arrived by then is cut:
 *
 * - while a parser reads it, the parser answers 408 in the error shape and closes the connection
 *   ({@link deadlineOf});
 * - a request answered without its body being read (a refused origin, a 415, a GET that sends a body) is
 *   not waited for: Node would read and drop the rest to reuse the connection, as slowly as the client
 *   sends it (300 s by default), so the connection is closed at the deadline;
 * - a route still working on it answers with `Connection: close`, and the connection is closed then.
 *
 * The time is kept by one timer per request with a body, so the cut comes when the timer says, however
 * busy the process is with other work. Calling it again for the same request does nothing.
 */
export function holdBodyToDeadline(req: IncomingMessage, res: ServerResponse, timeoutMs: number): void {
  if (req.complete || (req as Held)[DEADLINE] !== undefined || !announcesBody(req)) return;
  const deadline: BodyDeadline = {
    timer: HOST_RUNTIME.timeout(() => expire(req, res, deadline), timeoutMs),
    expired: false,
    onExpiry: undefined,
  };
  deadline.timer.unref();
  (req as Held)[DEADLINE] = deadline;
  // 'close' alone: a request emits it once its body is read (right after 'end') or when it is gone, and
  // `expire` checks `complete` anyway. One listener per POST rather than two.
  req.once('close', () => clearTimeout(deadline.timer));
}

function expire(req: IncomingMessage, res: ServerResponse, deadline: BodyDeadline): void {
  if (req.complete) return;
  deadline.expired = true;
  if (deadline.onExpiry) {
    deadline.onExpiry();
    return;
  }
  if (res.headersSent) {
    // Answered (or streaming an answer) and the body still trickles in: nothing left to wait for.
    req.socket.destroy();
    return;
  }
  res.setHeader('Connection', 'close');
  res.once('finish', () => req.socket.destroy());
}

/**
 * The deadline the router started for `req` (undefined: no body announced, or no router started one). A
 * parser reading the body sets `onExpiry` to answer the request itself if the deadline passes first, and
 * clears it when its reading ends.
 */
export function deadlineOf(req: IncomingMessage): BodyDeadline | undefined {
  return (req as Held)[DEADLINE];
}
