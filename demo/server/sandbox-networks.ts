import { CHARGE_RATE_PERCENT } from '../../src/sandbox/money.js';
import { PROMPT_LIFETIME_SECONDS } from '../../src/sandbox/test-numbers.js';

/** What the proxy may be told of the sandbox's mobile-money networks (its `payments` configuration). */
export interface SandboxNetworks {
  /** The charge the sandbox adds, in percent of the amount: the element estimates it before Pay. */
  chargePercent: number;
  /** How long each network keeps a prompt open, in whole seconds on the sandbox's clock. */
  promptLifetimeSeconds: Record<string, number>;
}

/**
 * The sandbox's networks as the shop hands them to its proxy, so that the customer reads the charge before Pay
 * and until when a prompt can be approved: its charge rate, and its prompt lifetimes on its clock (`timeScale`;
 * whole seconds, at least one).
 */
export function sandboxNetworks(timeScale: number): SandboxNetworks {
  return {
    chargePercent: CHARGE_RATE_PERCENT,
    promptLifetimeSeconds: Object.fromEntries(
      Object.entries(PROMPT_LIFETIME_SECONDS).map(([network, seconds]) => [network, Math.max(1, Math.round(seconds * timeScale))]),
    ),
  };
}
