// The three tags typed for React 19's JSX, for pages that write `<pay-by-mobile>` itself rather than the
// wrapper: the documented attributes and properties as props (React 19 sets a prop as the element's
// property when it has one), and the events as `on<event-name>` handlers (React 19 listens to an `on…` prop
// of a custom element by the event's own name). Anything else, a misspelt attribute included, is an error.
// Type-only: `import type {} from 'merchant-elements/react'` brings it in without the wrappers' code.
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type {
  CheckoutButton,
  CheckoutEndedEvent,
  CheckoutOpenedEvent,
} from '../elements/checkout-button/index.js';
import type { OtpFailedEvent, OtpSentEvent, OtpVerifiedEvent, OtpVerify } from '../elements/otp-verify/index.js';
import type {
  PayByMobile,
  PaymentBlockedEvent,
  PaymentCancelledEvent,
  PaymentCompletedEvent,
  PaymentFailedEvent,
  PaymentPendingEvent,
} from '../elements/pay-by-mobile/index.js';

/** The props of a tag: React's for any HTML element, plus the element's documented API `P` and its events `E`. */
type TagProps<El extends HTMLElement, P extends keyof El, E> = DetailedHTMLProps<HTMLAttributes<El>, El> &
  Partial<Pick<El, P>> & { [K in keyof E]?: (event: E[K]) => void } & { class?: string };

/** `<otp-verify>` in JSX. */
export type OtpVerifyTagProps = TagProps<
  OtpVerify,
  'token' | 'proxy' | 'value' | 'name' | 'required' | 'strings' | 'deliveryPoll',
  { 'onotp-sent': OtpSentEvent; 'onotp-verified': OtpVerifiedEvent; 'onotp-failed': OtpFailedEvent }
>;

/** `<pay-by-mobile>` in JSX. */
export type PayByMobileTagProps = TagProps<
  PayByMobile,
  'token' | 'proxy' | 'value' | 'amount' | 'currency' | 'timeout' | 'strings' | 'lateInterval',
  {
    'onpayment-pending': PaymentPendingEvent;
    'onpayment-completed': PaymentCompletedEvent;
    'onpayment-failed': PaymentFailedEvent;
    'onpayment-cancelled': PaymentCancelledEvent;
    'onpayment-blocked': PaymentBlockedEvent;
  }
>;

/** `<checkout-button>` in JSX. */
export type CheckoutButtonTagProps = TagProps<
  CheckoutButton,
  'token' | 'proxy' | 'mode' | 'strings' | 'navigate',
  {
    'oncheckout-opened': CheckoutOpenedEvent;
    'oncheckout-completed': CheckoutEndedEvent;
    'oncheckout-failed': CheckoutEndedEvent;
    'oncheckout-cancelled': CheckoutEndedEvent;
    'oncheckout-expired': CheckoutEndedEvent;
  }
>;

declare module 'react' {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    interface IntrinsicElements {
      'otp-verify': OtpVerifyTagProps;
      'pay-by-mobile': PayByMobileTagProps;
      'checkout-button': CheckoutButtonTagProps;
    }
  }
}
