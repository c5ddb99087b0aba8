// Numbers as the elements show them: a module apart from the words (localize.ts), which every element
// imports, so that a CDN page carries only what its element formats (the amounts <pay-by-mobile> shows, the
// countdowns of the two elements that wait).

/** `m:ss` of a whole number of seconds, for countdowns. */
export const clock = (s: number) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;

/** An amount of money in `lang`, the currency shown by its ISO code as the design writes it (`GHS 12.50`). */
export function money(lang: string, amount: number, currency: string) {
  try {
    return new Intl.NumberFormat(lang, { style: 'currency', currency, currencyDisplay: 'code' }).format(amount);
  } catch {
    return `${currency} ${amount}`; // not an ISO currency code
  }
}
