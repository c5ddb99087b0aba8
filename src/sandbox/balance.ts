import { Router } from 'express';
import { balanceResponse } from '../provider/schemas/index.js';
import { sendError } from './errors.js';
import { messagingRoute } from './messaging-auth.js';
import type { SandboxState } from './state.js';

/** The sandbox's one account and its owner, as the balance read shows them. */
export const SANDBOX_ACCOUNT = {
  id: 1,
  user: { id: 1, name: 'Sandbox Merchant', username: 'sandbox', phone: '233240000001' },
} as const;

/**
 * The balance route: the credit left after every SMS segment charged (`credit` local, `intlCredit` for
 * `isGlobal` sends; `intlTotalAmount` is `intlCredit` written with two decimals). A limited key
 * (`keysWithoutBalancePermission`) is refused with 403 `FORBIDDEN`.
 */
export function balanceRouter(state: SandboxState): Router {
  const router = Router();
  router.get(
    '/v1/external/account/balance',
    messagingRoute(state, 'account.balance', {}, (_req, res, caller) => {
      if (!caller.canReadBalance) {
        return sendError(res, 403, 'FORBIDDEN', 'This API key has no permission to read the account balance.');
      }
      const { credit, intlCredit } = state.balance;
      const body = balanceResponse.parse({
        statusCode: '200',
        statusMessage: 'Balance retrieved successfully',
        transactionId: state.uuid(),
        sequenceNo: state.ulid(),
        data: {
          id: SANDBOX_ACCOUNT.id,
          credit,
          intlCredit,
          intlTotalAmount: intlCredit.toFixed(2),
          userId: { ...SANDBOX_ACCOUNT.user },
        },
        timestamp: new Date(state.now()).toISOString(),
      });
      res.status(200).json(body);
    }),
  );
  return router;
}
