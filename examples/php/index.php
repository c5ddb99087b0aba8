<?php
// A small PHP shop on merchant-elements: run it with PHP's own server, `php -S 127.0.0.1:8000 index.php`,
// beside `merchant-elements serve` (examples/README.md). Sign-in verifies a number by SMS code
// (<otp-verify>, token minted here), the order page takes a mobile-money payment (<pay-by-mobile>, token
// minted by the proxy's server API), and the order is marked paid only by a verified webhook.
declare(strict_types=1);
require __DIR__ . '/merchant.php';

const PRICE = 47.50;

$method = $_SERVER['REQUEST_METHOD'];
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) ?: '/';

/** Writes a whole page: the elements' script and the shop's few styles around $body. */
function page(string $title, string $body, int $status = 200): void
{
    http_response_code($status);
    header('Content-Type: text/html; charset=utf-8');
    $t = h($title);
    echo <<<HTML
    <!doctype html>
    <html lang="en">
    <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>$t · PHP shop</title>
      <script src="/merchant-elements.iife.js"></script>
      <style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem}</style>
    </head>
    <body>
      <header><a href="/">PHP shop</a></header>
      <main>
        <h1>$t</h1>
        $body
      </main>
    </body>
    </html>
    HTML;
}

function json_answer(int $status, array $body): void
{
    http_response_code($status);
    header('Content-Type: application/json');
    echo json_encode($body);
}

if ($method === 'GET' && $path === '/merchant-elements.iife.js') {
    header('Content-Type: text/javascript; charset=utf-8');
    readfile(config('ELEMENTS_SCRIPT'));
} elseif ($method === 'GET' && $path === '/') {
    page('Welcome', '<p><a href="/sign-in">Sign in with your phone</a></p>
      <form method="post" action="/orders"><button>Buy the basket (GHS 47.50)</button></form>');
} elseif ($method === 'GET' && $path === '/sign-in') {
    // Minted here, in PHP: an OTP token for the "sign-in" purpose (docs/tokens.md).
    $token = h(mint_token(['scope' => 'otp', 'purpose' => 'sign-in']));
    $proxy = h(proxy_url());
    page('Sign in', <<<HTML
      <form method="post" action="/sign-in" id="sign-in">
        <otp-verify name="proof" proxy="$proxy" token="$token"></otp-verify>
      </form>
      <script>
        // The element is form-associated: once the number is verified, its proof is the form's "proof" field.
        document.querySelector('otp-verify').addEventListener('otp-verified', () => {
          document.getElementById('sign-in').requestSubmit();
        });
      </script>
    HTML);
} elseif ($method === 'POST' && $path === '/sign-in') {
    // The browser's word is never enough: the proxy redeems the proof, once, for this purpose.
    [$status, $answer] = server_api('POST', '/server/otp-proofs/redeem', ['proof' => (string) ($_POST['proof'] ?? ''), 'purpose' => 'sign-in']);
    if ($status !== 200) {
        page('Not signed in', '<p role="alert">' . h($answer['message'] ?? 'The proof was refused.') . '</p><p><a href="/sign-in">Try again</a></p>', 400);
    } else {
        page('Signed in', '<p role="status">Signed in as +' . h($answer['msisdn']) . '.</p>');
    }
} elseif ($method === 'POST' && $path === '/orders') {
    $reference = 'PHP-' . strtoupper(bin2hex(random_bytes(4)));
    save('orders', $reference, ['reference' => $reference, 'amount' => PRICE, 'status' => 'AWAITING_PAYMENT']);
    header("Location: /orders/$reference", true, 303);
} elseif (preg_match('#^/orders/([A-Z0-9-]+)(/status)?$#', $path, $m) && $method === 'GET') {
    $order = load('orders', $m[1]);
    if ($order === null) {
        page('No such order', '<p>There is no such order.</p>', 404);
    } elseif (isset($m[2])) {
        json_answer(200, ['status' => $order['status']]);
    } elseif ($order['status'] === 'PAID') {
        page("Order {$order['reference']}", '<p role="status">Paid: GHS ' . number_format($order['amount'], 2) . ' received. Thank you!</p>');
    } else {
        // Minted by the proxy's server API: the amount and reference come from this server, never the page.
        [$status, $answer] = server_api('POST', '/server/tokens/payment', [
            'amount' => $order['amount'],
            'referenceNo' => $order['reference'],
            'narration' => 'PHP shop basket',
        ]);
        if ($status !== 201) {
            page('Payment unavailable', '<p role="alert">' . h($answer['message'] ?? 'Try again in a moment.') . '</p>', 503);
            return;
        }
        $token = h($answer['token']);
        $proxy = h(proxy_url());
        $statusUrl = h("/orders/{$order['reference']}/status");
        page("Order {$order['reference']}", <<<HTML
          <p id="order-status">Awaiting payment of GHS 47.50.</p>
          <pay-by-mobile proxy="$proxy" token="$token"></pay-by-mobile>
          <script>
            // The element says the customer approved; the shop waits for the signed webhook to say so too.
            document.querySelector('pay-by-mobile').addEventListener('payment-completed', async () => {
              document.getElementById('order-status').textContent = 'Confirming your payment…';
              for (;;) {
                const answer = await fetch('$statusUrl').then((r) => r.json());
                if (answer.status === 'PAID') return location.reload();
                await new Promise((resolve) => setTimeout(resolve, 500));
              }
            });
          </script>
        HTML);
    }
} elseif ($method === 'POST' && $path === '/webhooks') {
    $headers = array_change_key_case(getallheaders(), CASE_LOWER);
    $event = verify_webhook((string) file_get_contents('php://input'), $headers);
    if ($event === null) {
        json_answer(400, ['error' => 'BAD_SIGNATURE']);
        return;
    }
    // At least once: a retry carries the same webhook-id, and is acknowledged without acting twice.
    if (first_delivery($headers['webhook-id'])) {
        // payment.completed carries the payment's snapshot; check it is this order's price before trusting it.
        $data = $event['data'] ?? [];
        $order = load('orders', (string) ($data['orderReference'] ?? ''));
        if (($event['type'] ?? '') === 'payment.completed' && $order !== null
            && (float) ($data['snapshot']['amount'] ?? -1) === (float) $order['amount']) {
            $order['status'] = 'PAID';
            save('orders', $order['reference'], $order);
        }
    }
    http_response_code(204);
} else {
    page('Not found', '<p>There is no such page.</p>', 404);
}
