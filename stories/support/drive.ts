// Play-function helpers: drive an element as a person would (type into its inputs, press its buttons, found by
// their parts) and wait for the state it lands in. Each step shows in the Interactions panel.
import { expect, fireEvent, userEvent, waitFor } from 'storybook/test';

/** What the stories need of an element. */
export interface StatefulElement extends HTMLElement {
  /** The one state the element is in. */
  readonly state: string;
  readonly updateComplete: Promise<boolean>;
}

/** The element `tag` rendered by the story. */
export function elementIn<E extends StatefulElement>(canvas: HTMLElement, tag: string): E {
  const el = canvas.querySelector<E>(tag);
  if (!el) throw new Error(`the story rendered no <${tag}>`);
  return el;
}

/** The element's part `name` (`send-button`…), or fails. */
export function part<E extends HTMLElement = HTMLElement>(el: HTMLElement, name: string): E {
  const found = el.shadowRoot?.querySelector<E>(`[part~="${name}"]`);
  if (!found) throw new Error(`<${el.localName}> in state ${(el as StatefulElement).state} has no part ${name}`);
  return found;
}

/**
 * Puts `text` in the input part `name`, as typing or pasting it would (an `input` event with the new value).
 * Not `userEvent.type`: it checks focus on `document.activeElement`, which is the host for a shadow input.
 */
export async function typeInto(el: StatefulElement, name: string, text: string) {
  const input = part<HTMLInputElement>(el, name);
  input.focus();
  await fireEvent.input(input, { target: { value: text } });
}

/** Presses the button part `name`. */
export async function press(el: StatefulElement, name: string) {
  await userEvent.click(part(el, name));
}

/**
 * Waits until the element is in `state` (and, when given, its text shows `words`), then for it to render.
 * The wait is long enough for the stories that count down (timed out, pending to final).
 */
export async function reach(el: StatefulElement, state: string, words?: string) {
  await waitFor(
    () => {
      expect(el.state).toBe(state);
      if (words) expect(el.shadowRoot!.textContent).toContain(words);
    },
    { timeout: 8_000 },
  );
  await el.updateComplete;
}
