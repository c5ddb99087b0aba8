/** What one notification the merchant received says: which try or session, and its status. */
import type { OutboxMessage } from '../../../src/proxy/notify/outbox.js';

export interface Reported {
  id: string;
  kind: 'payment' | 'checkout';
  /** The attempt reference or the checkoutId the snapshot names. */
  subject: string;
  status: string;
}

export function reported(message: OutboxMessage): Reported {
  const payload = message.payload as { snapshot: { reference: string; checkoutId?: string; status: string } };
  const subject = message.kind === 'payment' ? payload.snapshot.reference : (payload.snapshot.checkoutId as string);
  return { id: message.id, kind: message.kind, subject, status: payload.snapshot.status };
}
