import { LitElement, type PropertyDeclarations } from 'lit';
import { DEFAULT_PROXY_PATH } from '../../protocol/names.js';
import { MerchantEvent } from './events.js';
import { ProxyClient } from './proxy-client.js';

type DetailOf<K extends keyof GlobalEventHandlersEventMap> = GlobalEventHandlersEventMap[K] extends MerchantEvent<infer D> ? D : never;

/**
 * What the three elements share: the proxy mount URL and token, the proxy client, focus delegation, and one
 * state at a time exposed as the `state` property and as a custom state (`:state(verified)`).
 *
 * Reactive properties are declared with `static properties` rather than decorators: the decorators module
 * alone costs a twentieth of the size budget.
 */
export class MerchantElement<S extends string> extends LitElement {
  static override shadowRootOptions: ShadowRootInit = { ...LitElement.shadowRootOptions, delegatesFocus: true };
  static override properties: PropertyDeclarations = { proxy: {}, token: {}, lang: { reflect: true }, state: { state: true } };

  /** Mount URL of the merchant's proxy router. */
  proxy = DEFAULT_PROXY_PATH;

  /** Element token minted by the merchant's server; it decides amounts, references and numbers. */
  token = '';

  /**
   * Language of the element's words (`en`, `fr`, or any registered); else the nearest `lang`, else `<html lang>`.
   * Reactive here (the native attribute keeps its meaning for CSS and assistive technology).
   */
  declare lang: string;

  /** The one state the element is in (read-only); also a custom state for `:state(...)` selectors. */
  state = 'idle' as S;

  protected readonly internals = this.attachInternals();
  protected readonly client = new ProxyClient(this);

  constructor() {
    super();
    this.internals.states.add('idle');
  }

  /**
   * Adopts the page's fallback, the documented snippet's `<label>` and `<input>` in the element, usable with the
   * page's first paint, before this code came: at the first render what was typed there, its caret and its
   * focus pass to the element's own input (an `input` event, as typing would). The first render runs in the
   * task that defined the element (a microtask), so no keystroke falls between the two inputs, and the focus is
   * still the fallback's (Chromium takes it off an element no longer shown at its next rendering step). The
   * fallback, in no slot, is then neither shown nor announced: one label, one input.
   */
  protected override firstUpdated() {
    const f = this.querySelector('input');
    const i = this.renderRoot.querySelector('input')!;
    if (f) (i.value = f.value || i.value), i.dispatchEvent(new Event('input')), f.matches(':focus') && i.focus(), i.setSelectionRange(f.selectionStart, f.selectionEnd);
  }

  /** Moves to `next`, updating the custom state. */
  protected setState(next: S) {
    this.internals.states.clear();
    this.internals.states.add(next);
    this.state = next;
  }

  /**
   * Dispatches one of the element's events (bubbling, composed).
   * @internal
   */
  protected emit<K extends keyof GlobalEventHandlersEventMap>(type: K, detail: DetailOf<K>) {
    this.dispatchEvent(new MerchantEvent(type, detail));
  }
}
