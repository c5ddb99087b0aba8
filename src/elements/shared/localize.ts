import type { ReactiveControllerHost } from 'lit';
import type { ClientErrorCode } from './proxy-client.js';

/** A strings table: each entry a sentence, or a function of the values it shows. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type StringsTable = { error: string } & Record<string, string | ((...args: any[]) => string)>;

/** What the controller needs from its element. */
export interface LocalizedHost extends ReactiveControllerHost, HTMLElement {
  /** Per-instance overrides of some entries of the element's table. */
  strings?: Partial<StringsTable> | undefined;
}

/**
 * The registered languages, on the page's global object: one table for every copy of the elements on the
 * page, so that `cdn/fr.js`, a file of its own, translates the one-file CDN builds and the loader's elements.
 */
const translations = ((globalThis as { merchantElementsTranslations?: Record<string, Partial<StringsTable>> }).merchantElementsTranslations ??= {});

/**
 * Adds (or extends) the words of a language for every element, e.g. `registerTranslation('fr', fr)`, before
 * the elements render. French is `translations/fr.js` (npm) or `cdn/fr.js`; the CDN loader fetches it for
 * an element whose language is French.
 */
export function registerTranslation(lang: string, table: Partial<StringsTable>) {
  lang = lang.toLowerCase();
  translations[lang] = { ...translations[lang], ...table };
}

/**
 * Picks an element's words by the language of the element (`lang` on it or an ancestor, else `<html lang>`):
 * its English table, overlaid with the registered translation of that language, then with the instance's
 * `strings` property. The language is read at each render; the element's own `lang` is a reactive property
 * (a change re-renders), a later change of an ancestor's shows at the next render.
 */
export class LocalizeController<T extends StringsTable> {
  constructor(
    private readonly owner: LocalizedHost,
    private readonly en: T,
  ) {}

  /** The BCP 47 language in effect, for `Intl`. */
  get lang(): string {
    // The element's own first: its attribute reflects a property set in this update only after rendering.
    return this.owner.lang || this.owner.closest<HTMLElement>('[lang]')?.lang || document.documentElement.lang || 'en';
  }

  /** The table in effect. */
  get strings(): T {
    const lang = this.lang.toLowerCase();
    return { ...this.en, ...(translations[lang] ?? translations[lang.split('-')[0]!]), ...this.owner.strings } as T;
  }

  /** A human sentence for an error code, from the error's details where the entry is a function; never the server's text. */
  error(code: ClientErrorCode | string, details: object = {}): string {
    const e = this.strings[code] ?? this.strings.error;
    return typeof e == 'function' ? e(details) : e;
  }
}
