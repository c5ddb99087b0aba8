// docs/troubleshooting.md's table of error codes: for every code of src/protocol/codes.ts, its HTTP status,
// whether the same call may succeed later, who meets it (the routes of the OpenAPI route table that answer
// it), and the sentence each element shows for it (its English strings table; the `error` sentence for a
// code it has none for). Functions of the table are called with the details the proxy sends.
import { checkoutButtonEn } from '../../src/elements/checkout-button/checkout-button.strings.js';
import { otpVerifyEn } from '../../src/elements/otp-verify/otp-verify.strings.js';
import { payByMobileEn } from '../../src/elements/pay-by-mobile/pay-by-mobile.strings.js';
import { PROXY_ERROR_CODES, RETRYABLE_CODES, type ProxyErrorCode } from '../../src/protocol/codes.js';
import { API_ROUTES, routeErrors } from '../../src/protocol/openapi.js';
import { ERROR_STATUS } from '../../src/protocol/statuses.js';

type Table = Record<string, unknown>;

/** Which element calls a route of the browser's protocol. */
function elementOf(path: string): 'otp-verify' | 'pay-by-mobile' | 'checkout-button' {
  if (path.startsWith('/otp/')) return 'otp-verify';
  if (path.startsWith('/checkouts')) return 'checkout-button';
  return 'pay-by-mobile';
}

const TABLES: Record<ReturnType<typeof elementOf>, Table> = {
  'otp-verify': otpVerifyEn,
  'pay-by-mobile': payByMobileEn,
  'checkout-button': checkoutButtonEn,
};

/** Details like the proxy's, for the sentences that read them (the other way to pay is the other element's). */
function sampleDetails(code: ProxyErrorCode, tag: keyof typeof TABLES): object {
  if (code === 'RATE_LIMITED') return { retryAfter: 60 };
  if (code === 'OTP_LOCKED') return { retryAfter: 1800 };
  if (code === 'ORDER_IN_OTHER_PAYMENT') return { method: tag === 'checkout-button' ? 'mobile-money' : 'checkout', status: 'pending' };
  return {};
}

/** The sentence `tag` shows for `code`. */
function sentence(tag: keyof typeof TABLES, code: ProxyErrorCode): string {
  const table = TABLES[tag];
  const entry = table[code] ?? table.error;
  return typeof entry === 'function' ? (entry as (d: object) => string)(sampleDetails(code, tag)) : String(entry);
}

/** The Markdown table. */
export function errorCodesTable(): string {
  const rows = PROXY_ERROR_CODES.map((code) => {
    const routes = API_ROUTES.filter((r) => routeErrors(r).includes(code));
    const elements = [...new Set(routes.filter((r) => r.caller === 'element').map((r) => elementOf(r.path)))];
    const server = routes.some((r) => r.caller === 'server');
    const sees = elements.map((tag) => `\`<${tag}>\`: “${sentence(tag, code)}”`);
    if (server) sees.push('your backend (server API): the code, no customer sees it');
    if (sees.length === 0) sees.push('no route answers it today');
    return `| [\`${code}\`](#${code.toLowerCase()}) | ${ERROR_STATUS[code]} | ${RETRYABLE_CODES.includes(code) ? 'yes' : 'no'} | ${sees.join('<br>')} |`;
  });
  return ['| code | HTTP | retry later | who meets it, and what the customer sees |', '|---|---|---|---|', ...rows].join('\n');
}
