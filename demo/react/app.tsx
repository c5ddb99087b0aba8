// The React demo: the typed wrappers of merchant-elements/react, with callbacks for the elements' events.
import { useEffect, useState } from 'react';
import { CheckoutButton, OtpVerify, PayByMobile } from 'merchant-elements/react';
import { type DemoOrder, createOrder, formatAmount, otpToken, signIn } from '../client/demo-api.js';

interface Tokens {
  otp: string;
  payment: DemoOrder;
  checkout: DemoOrder;
}

export function App() {
  const [tokens, setTokens] = useState<Tokens>();
  const [signedInAs, setSignedInAs] = useState('');
  const [error, setError] = useState('');

  useEffect(() => {
    let live = true;
    Promise.all([otpToken(), createOrder('payment'), createOrder('checkout')])
      .then(([otp, payment, checkout]) => live && setTokens({ otp, payment, checkout }))
      .catch((err: Error) => live && setError(err.message));
    return () => {
      live = false;
    };
  }, []);

  return (
    <>
      <h1>React</h1>
      <p className="lead">
        The wrappers from <code>merchant-elements/react</code>: element properties as props, events as{' '}
        <code>onOtpVerified</code>, <code>onPaymentCompleted</code>, <code>onCheckoutCompleted</code> callbacks. Tokens
        come from the shop’s <code>/demo-api</code>.
      </p>
      {error && (
        <p className="alert" role="alert" data-testid="react-error">
          {error}
        </p>
      )}
      {tokens && (
        <>
          <section className="card">
            <h2>Sign in</h2>
            {signedInAs ? (
              <p data-testid="signed-in-number">
                Signed in as <strong>{signedInAs}</strong>, verified by the server.
              </p>
            ) : (
              <OtpVerify
                token={tokens.otp}
                data-testid="otp-verify"
                // The proof goes to the server, which verifies it with the proxy; the callback alone proves nothing.
                onOtpVerified={(event) => signIn(event.detail.proof).then(setSignedInAs, (err: Error) => setError(err.message))}
              />
            )}
          </section>
          <section className="card">
            <h2>
              Pay demo order <span data-testid="payment-order-reference">{tokens.payment.reference}</span> with mobile money
            </h2>
            <p>{formatAmount(tokens.payment.amount, tokens.payment.currency)}: a tote bag and a tin of shea butter.</p>
            <PayByMobile
              token={tokens.payment.token}
              data-testid="pay-by-mobile"
              onPaymentCompleted={() => location.assign(tokens.payment.orderUrl)}
            />
          </section>
          <section className="card">
            <h2>
              Or pay demo order <span data-testid="checkout-order-reference">{tokens.checkout.reference}</span> on the
              checkout page
            </h2>
            <CheckoutButton
              token={tokens.checkout.token}
              data-testid="checkout-button"
              onCheckoutCompleted={() => location.assign(tokens.checkout.orderUrl)}
            >
              Pay {formatAmount(tokens.checkout.amount, tokens.checkout.currency)} on the checkout page
            </CheckoutButton>
          </section>
        </>
      )}
    </>
  );
}
