import { waitUntil } from '@open-wc/testing';

/** A promise the test resolves when it wants (a proxy answer held back). */
export function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The element's part by name. */
export const part = <E extends HTMLElement = HTMLElement>(el: Element, name: string) =>
  el.shadowRoot!.querySelector<E>(`[part~="${name}"]`);

/** Text of a part, whitespace collapsed. */
export const text = (el: Element, name: string) => part(el, name)?.textContent?.replace(/\s+/g, ' ').trim() ?? '';

/** Types into an input as a person would (value, then an input event). */
export function typeInto(input: HTMLInputElement, value: string) {
  input.value = value;
  input.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
}

/**
 * Waits for the element's `state` (and its custom state): up to 8 s, most of a test's 10 s, since a page on a
 * machine busy with other suites waited over 4 s for a fake proxy's answer.
 */
export async function stateIs(el: Element & { state: string }, state: string) {
  await waitUntil(() => el.state == state, `state ${state} (still ${el.state})`, { timeout: 8000 });
  await (el as unknown as { updateComplete: Promise<unknown> }).updateComplete;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends `Tab` until the deep focus is the element's part `name` (at most 10 presses). */
export async function tabTo(el: Element, name: string, press: (key: string) => Promise<void>) {
  for (let i = 0; i < 10; i++) {
    if (el.shadowRoot!.activeElement === part(el, name)) return;
    await press('Tab');
  }
  throw new Error(`could not tab to ${name}`);
}
