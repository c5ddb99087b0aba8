import { decodeJwt } from 'jose';

/** An HTTP answer with its body read as text. */
export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The Location header of a redirect. */
  location: string | null;
}

/**
 * One visitor of the demo shop over real HTTP: keeps the session cookie like a browser and follows no
 * redirect by itself (tests look at them).
 */
export class Visitor {
  private cookie = '';

  constructor(readonly base: string) {}

  async request(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}): Promise<PageResponse> {
    const res = await fetch(new URL(path, this.base), {
      method,
      redirect: 'manual',
      headers: { ...(this.cookie ? { cookie: this.cookie } : {}), ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0]!;
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
  }

  get(path: string): Promise<PageResponse> {
    return this.request('GET', path);
  }

  /** Submits an HTML form (`application/x-www-form-urlencoded`). */
  postForm(path: string, fields: Record<string, string>): Promise<PageResponse> {
    return this.request('POST', path, {
      body: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }

  /** POSTs JSON, with an element token as the Bearer when given; resolves the parsed answer. */
  async postJson(path: string, body: unknown, token?: string): Promise<{ status: number; body: any }> {
    const res = await this.request('POST', path, {
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });
    return { status: res.status, body: res.text ? JSON.parse(res.text) : null };
  }
}

/** The `token` attribute of the first `<tag>` in a page; throws when there is none. */
export function elementToken(page: string, tag: string): string {
  const match = new RegExp(`<${tag}\\b[^>]*\\btoken="([^"]+)"`).exec(page);
  if (!match) throw new Error(`no <${tag} token="…"> in the page`);
  return match[1]!;
}

/** A token's claims, read without verifying (the proxy verifies; tests check what the server bound). */
export function claimsOf(token: string): Record<string, unknown> {
  return decodeJwt(token) as Record<string, unknown>;
}

/** The `data-status` of the order page's status banner. */
export function orderStatus(page: string): string | undefined {
  return /data-testid="order-status" data-status="([^"]+)"/.exec(page)?.[1];
}

/** The code of the last SMS the sandbox sent to a number, read from its outbox over HTTP. */
export async function lastCode(base: string, digits: string): Promise<string> {
  const res = await fetch(new URL(`/sandbox/__sandbox/outbox?to=${digits}&kind=sms`, base));
  const { entries } = (await res.json()) as { entries: { message: string }[] };
  const code = /\b(\d{6})\b/.exec(entries[0]?.message ?? '')?.[1];
  if (!code) throw new Error(`no code was sent to ${digits}`);
  return code;
}

/** Calls `probe` until it returns a value other than undefined, every 50 ms, for at most `ms`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`still waiting after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
