import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type * as bodies from '../../src/protocol/bodies.js';
import type { proxyErrorBody } from '../../src/protocol/errors.js';
import type * as schemas from '../../src/protocol/schemas.js';

// Type-level: `npm run typecheck` fails when a schema and its plain twin drift apart.
describe('the zod-free bodies the elements read', () => {
  it('equal what the proxy’s schemas infer', () => {
    expectTypeOf<bodies.OtpSendResponse>().toEqualTypeOf<z.infer<typeof schemas.otpSendResponse>>();
    expectTypeOf<bodies.OtpVerifyResponse>().toEqualTypeOf<z.infer<typeof schemas.otpVerifyResponse>>();
    expectTypeOf<bodies.OtpDeliveryResponse>().toEqualTypeOf<z.infer<typeof schemas.otpDeliveryResponse>>();
    expectTypeOf<bodies.AccountLookupResponse>().toEqualTypeOf<z.infer<typeof schemas.accountLookupResponse>>();
    expectTypeOf<bodies.PaymentSnapshot>().toEqualTypeOf<z.infer<typeof schemas.paymentSnapshot>>();
    expectTypeOf<bodies.OrderView>().toEqualTypeOf<z.infer<typeof schemas.orderView>>();
    expectTypeOf<bodies.ChargeEstimate>().toEqualTypeOf<z.infer<typeof schemas.chargeEstimate>>();
    expectTypeOf<bodies.CheckoutCreateResponse>().toEqualTypeOf<z.infer<typeof schemas.checkoutCreateResponse>>();
    expectTypeOf<bodies.CheckoutSnapshot>().toEqualTypeOf<z.infer<typeof schemas.checkoutSnapshot>>();
    expectTypeOf<bodies.ProxyErrorBody>().toEqualTypeOf<z.infer<typeof proxyErrorBody>>();
  });
});
