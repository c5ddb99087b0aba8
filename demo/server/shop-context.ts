import type { Request, Response } from 'express';
import type { MerchantProxy } from '../../src/proxy/index.js';
import { SHOP_NAME, toCedis } from './catalogue.js';
import type { Order } from './orders.js';
import type { OrderBook } from './orders.js';

/** What the shop's routes share. */
export interface ShopContext {
  proxy: MerchantProxy;
  orders: OrderBook;
  /** The shop's own origin, e.g. `http://127.0.0.1:5173` (checkout return URLs are absolute). */
  url: string;
  /** Sends a page, through Vite's HTML transform when it loads modules. */
  send(req: Request, res: Response, page: string, status?: number): Promise<void>;
}

/** The purpose of sign-in OTP tokens, checked again when the proof comes back. */
export const SIGN_IN_PURPOSE = 'sign-in';

/** The order page's path. */
export function orderPath(reference: string): string {
  return `/orders/${encodeURIComponent(reference)}`;
}

/** A payment token bound to an order: its amount and reference, decided here and nowhere else. */
export function paymentToken(ctx: ShopContext, order: Order): Promise<string> {
  return ctx.proxy.tokens.payment({
    amount: toCedis(order.total),
    referenceNo: order.reference,
    narration: `${SHOP_NAME} ${order.reference}`,
  });
}

/** A checkout token bound to an order; the hosted page sends the customer back to the order page. */
export function checkoutToken(ctx: ShopContext, order: Order): Promise<string> {
  const description = order.lines.map((l) => `${l.quantity} × ${l.product.name}`).join(', ');
  return ctx.proxy.tokens.checkout({
    title: SHOP_NAME,
    reference: order.reference,
    amount: toCedis(order.total),
    description: description.length > 500 ? `${description.slice(0, 497)}…` : description,
    returnUrl: `${ctx.url}${orderPath(order.reference)}`,
  });
}

/** A sign-in OTP token (a new one on every render of a page that verifies a number). */
export function signInToken(ctx: ShopContext): Promise<string> {
  return ctx.proxy.tokens.otp({ purpose: SIGN_IN_PURPOSE });
}
