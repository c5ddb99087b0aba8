import type { Router } from 'express';
import { PROXY_PATHS, type AccountLookupResponse, accountLookupRequest } from '../../protocol/index.js';
import { ProviderNotFoundError } from '../../provider/errors.js';
import type { ProxyContext } from '../context.js';
import { parseInput, ProxyError } from '../errors.js';
import { enforce } from '../limits.js';
import { logRequest } from '../logger.js';
import { withToken } from '../middleware/require-token.js';
import { maskForLog, normaliseLocalPhone } from '../phone.js';
import { clientKey } from '../client-address.js';
import { estimateCharge } from '../order/order-queries.js';
import type { Orders } from '../order/orders.js';
import { sendJson } from '../respond.js';

/** The account holder's name as shown to the payer: first name and the initial of the last (`KWAME M.`). */
export function maskAccountName(fullName: string): string {
  const words = fullName.trim().split(/\s+/).filter(Boolean);
  const first = words[0] ?? '';
  const last = words.length > 1 ? words[words.length - 1] : undefined;
  return last ? `${first} ${last.charAt(0)}.` : first;
}

/** POST /accounts/lookup: who holds the mobile-money account of a number, for the payer to confirm. */
export function accountsRoutes(router: Router, ctx: ProxyContext, orders: Orders): void {

  router.post(PROXY_PATHS.accountLookup, withToken(ctx, 'payment', async (req, res, claims) => {
    const body = parseInput(accountLookupRequest, req.body);
    const { digits } = normaliseLocalPhone(body.msisdn, ctx.config.defaultCountry);
    if (claims.msisdn !== undefined && claims.msisdn !== digits) {
      throw new ProxyError('INVALID_INPUT', 'Some fields are not valid.', {
        fields: [{ path: 'msisdn', message: 'must be the number this payment is for' }],
      });
    }
    await enforce(ctx, [
      ['accountLookupPerToken', claims.jti],
      ['accountLookupPerIp', clientKey(req, ctx.config.ipv6PrefixLength)],
    ]);
    let holder;
    try {
      holder = (await ctx.client.payments.accountHolder(digits)).data;
    } catch (err) {
      if (err instanceof ProviderNotFoundError) {
        throw new ProxyError('ACCOUNT_NOT_FOUND', 'No mobile-money account was found for this number.');
      }
      throw err;
    }
    logRequest(ctx.logger, req, 'info', { msisdn: maskForLog(digits), network: holder.network }, 'account looked up');
    const answer: AccountLookupResponse = {
      accountName: ctx.config.accountNameDisplay === 'full' ? holder.accountName : maskAccountName(holder.accountName),
      network: holder.network,
      msisdn: digits,
    };
    const estimate = estimateCharge(claims.amount, ctx.config.payments.chargePercent);
    if (estimate) answer.chargeEstimate = estimate;
    orders.rememberNetwork(digits, holder.network);
    sendJson(res, 200, answer);
  }));

}
