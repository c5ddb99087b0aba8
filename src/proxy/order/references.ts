/**
 * The references the provider sees, namespaced per shop (DESIGN: adopt only what is ours). Two shops on one
 * provider account each set their own `referencePrefix`, so `SHOP-A-ORDER-77-1` and `SHOP-B-ORDER-77-1`
 * never collide, and a payment found under one shop's reference is never the other's.
 */
export interface References {
  /** The upstream `referenceNo` of try number `n` of an order. */
  attempt(orderReference: string, n: number): string;
  /** The order reference and number of an attempt reference of this shop; null when it is not one. */
  parseAttempt(reference: string): { orderReference: string; n: number } | null;
  /** The `reference` of the order's checkout sessions upstream. */
  checkout(orderReference: string): string;
}

export function references(prefix: string): References {
  return {
    attempt: (orderReference, n) => `${prefix}${orderReference}-${n}`,
    parseAttempt(reference) {
      if (!reference.startsWith(prefix)) return null;
      const rest = reference.slice(prefix.length);
      const match = /^(.+)-([1-9][0-9]{0,3})$/s.exec(rest);
      return match ? { orderReference: match[1]!, n: Number(match[2]) } : null;
    },
    checkout: (orderReference) => `${prefix}${orderReference}`,
  };
}
