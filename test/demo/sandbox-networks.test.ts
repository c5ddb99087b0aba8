import { describe, expect, it } from 'vitest';
import { sandboxNetworks } from '../../demo/server/sandbox-networks.js';

describe("the sandbox's networks as the demo hands them to its proxy", () => {
  it("gives the sandbox's 1 % charge and each network's prompt lifetime on the sandbox's clock", () => {
    expect(sandboxNetworks(1)).toEqual({ chargePercent: 1, promptLifetimeSeconds: { MTN: 120, Telecel: 90, AirtelTigo: 150 } });
    expect(sandboxNetworks(0.1).promptLifetimeSeconds).toEqual({ MTN: 12, Telecel: 9, AirtelTigo: 15 });
    // Whole seconds, never 0: a lifetime the proxy's configuration can take.
    expect(sandboxNetworks(0.001).promptLifetimeSeconds).toEqual({ MTN: 1, Telecel: 1, AirtelTigo: 1 });
  });
});
