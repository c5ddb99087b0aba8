import { html, page, refreshLink } from './html.js';
import { formatGhs } from './money.js';
import type { OutboxSms, PaymentRecord } from './state.js';
import { TEST_NUMBERS } from './test-numbers.js';

/** Seconds between a number's phone page's reads of itself (new messages and prompts appear without a reload). */
export const PHONE_REFRESH_SECONDS = 3;

const CSS = `
  body { background: #e9eef2; }
  @media (prefers-color-scheme: dark) { body { background: #111; } }
  .phone { max-width: 22rem; margin: 1.5rem auto; padding: 1rem; border: 10px solid #222; border-radius: 2rem;
    background: Canvas; min-height: 36rem; box-shadow: 0 10px 30px rgba(0,0,0,.25); }
  .phone h1 { font-size: 1.1rem; text-align: center; margin: .25rem 0 1rem; }
  .phone h2 { font-size: .95rem; margin: 1rem 0 .5rem; }
  .prompt { border: 2px solid var(--accent); border-radius: 1rem; padding: .75rem; margin-bottom: .75rem; }
  .prompt p { margin: 0 0 .5rem; }
  .sms { list-style: none; padding: 0; margin: 0; }
  .sms li { background: color-mix(in srgb, CanvasText 8%, Canvas); border-radius: 1rem; padding: .5rem .75rem; margin-bottom: .5rem; }
  .sms .meta { display: block; font-size: .75rem; color: var(--muted); }
  .sms .text { white-space: pre-wrap; overflow-wrap: anywhere; }
  .actions button { flex: 1; }
`;

/** What the phone page of one number shows. */
export interface PhoneScreen {
  number: string;
  /** SMS to this number, newest first. */
  messages: OutboxSms[];
  /** Its PENDING payment prompts, newest first. */
  prompts: PaymentRecord[];
  /** Path of the approve/decline routes of a payment, without the final `/approve` or `/decline`. */
  promptPath: (referenceId: string) => string;
  /** The sandbox's clock (epoch ms): the prompts' age and the time left to answer them. */
  now: number;
}

/** `m:ss` of a duration in milliseconds (whole seconds, rounded up: a prompt with 0.4 s left is not closed). */
const clock = (ms: number) => {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

/** A phone screen: the number's pending payment prompts (Approve / Decline) and its SMS inbox. */
export function phonePage(screen: PhoneScreen): string {
  const prompts = screen.prompts.map((p) => {
    const path = screen.promptPath(p.referenceId);
    return html`<section class="prompt" aria-label="Payment prompt ${p.referenceNo}">
  <p><strong>Pay ${formatGhs(p.totalAmount)} to ${p.payee}?</strong></p>
  <p class="muted">${p.narration} (amount ${formatGhs(p.amount)}, charge ${formatGhs(p.charge)}). Ref ${p.referenceNo}</p>
  <p class="muted" data-testid="prompt-age">Sent ${clock(screen.now - p.createdAt)} ago. ${Number.isFinite(p.promptExpiresAt)
    ? `Expires in ${clock(p.promptExpiresAt - screen.now)}.`
    : 'This network never ends it: answer it, or it waits.'}</p>
  <div class="actions">
    <form method="post" action="${path}/approve"><button type="submit" class="primary">Approve</button></form>
    <form method="post" action="${path}/decline"><button type="submit" class="secondary">Decline</button></form>
  </div>
</section>`;
  });
  const messages = screen.messages.map(
    (m) => html`<li><span class="meta">From ${m.from} · <time datetime="${new Date(m.createdAt).toISOString()}">${new Date(m.createdAt).toISOString().replace('T', ' ').slice(0, 19)}</time></span>
<span class="text">${m.message}</span></li>`,
  );
  return page(
    { title: `Phone ${screen.number}`, watchSeconds: PHONE_REFRESH_SECONDS, css: CSS },
    html`<main class="phone">
<h1><span aria-hidden="true">📱</span> ${screen.number}</h1>
<h2>Payment prompts</h2>
${prompts.length ? prompts : html`<p class="muted">No pending payment prompts.</p>`}
<h2>Messages</h2>
${messages.length ? html`<ul class="sms">${messages}</ul>` : html`<p class="muted">No messages yet.</p>`}
<p><a href="?">Another number</a></p>
${refreshLink}
</main>`,
  );
}

/** The form that picks a number, with the test numbers listed. */
export function pickNumberPage(): string {
  const numbers = Object.entries(TEST_NUMBERS).map(
    ([n, t]) => html`<li><a href="?number=${n}">${n}</a> <span class="muted">${t.accountName ?? 'no account holder'}, ${t.network}</span></li>`,
  );
  return page(
    { title: 'Sandbox phone', css: CSS },
    html`<main class="phone">
<h1><span aria-hidden="true">📱</span> Sandbox phone</h1>
<form method="get">
  <label for="number">Phone number</label>
  <input id="number" name="number" type="tel" inputmode="numeric" required pattern="[0-9]{8,15}" placeholder="233240000001">
  <div class="actions"><button type="submit" class="primary">Open</button></div>
</form>
<h2>Test numbers</h2>
<ul>${numbers}</ul>
</main>`,
  );
}
