/**
 * Money in the sandbox: Ghana cedis with two decimals (pesewas). Amounts are computed in whole pesewas so
 * that no floating-point residue reaches a response.
 */

/** The gateway's processing charge: 1 % of the amount, rounded half-up to the pesewa (a sandbox choice). */
export const CHARGE_RATE_PERCENT = 1;

/** True when `amount` is a whole number of pesewas (at most two decimals). */
export function isWholePesewas(amount: number): boolean {
  return Number.isFinite(amount) && Math.abs(amount * 100 - Math.round(amount * 100)) < 1e-6;
}

/** Cedis to whole pesewas. */
export function toPesewas(amount: number): number {
  return Math.round(amount * 100);
}

/** Whole pesewas to cedis. */
export function fromPesewas(pesewas: number): number {
  return pesewas / 100;
}

/** The charge, amount and total of a payment of `amount` cedis. */
export function priceOf(amount: number): { amount: number; charge: number; totalAmount: number } {
  const base = toPesewas(amount);
  const charge = Math.floor((base * CHARGE_RATE_PERCENT + 50) / 100);
  return { amount: fromPesewas(base), charge: fromPesewas(charge), totalAmount: fromPesewas(base + charge) };
}

/** `GHS 12.50`: the amount as the hosted page and the phone page show it. */
export function formatGhs(amount: number): string {
  return `GHS ${(toPesewas(amount) / 100).toFixed(2)}`;
}
