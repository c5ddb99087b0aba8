"""A small Python shop on merchant-elements, standard library only: `python3 app.py` (examples/README.md)
beside `merchant-elements serve`. Sign-in verifies a number by SMS code (<otp-verify>, token minted by the
proxy's server API), the order page takes a mobile-money payment (<pay-by-mobile>, token minted here), and
the order is marked paid only by a verified webhook."""

import html
import json
import os
import re
import secrets
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from merchant import Store, config, mint_token, proxy_url, server_api, verify_webhook

PRICE = 47.50
store = Store()
lock = threading.Lock()


def page(title, body):
    t = html.escape(title)
    return f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{t} · Python shop</title>
  <script src="/merchant-elements.iife.js"></script>
  <style>body{{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem}}</style>
</head>
<body>
  <header><a href="/">Python shop</a></header>
  <main>
    <h1>{t}</h1>
    {body}
  </main>
</body>
</html>"""


class Shop(BaseHTTPRequestHandler):
    def send(self, status, body, content_type="text/html; charset=utf-8", headers=()):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def do_GET(self):
        path = urllib.parse.urlsplit(self.path).path
        if path == "/merchant-elements.iife.js":
            with open(config("ELEMENTS_SCRIPT"), "rb") as script:
                return self.send(200, script.read(), "text/javascript; charset=utf-8")
        if path == "/":
            return self.send(200, page("Welcome", '<p><a href="/sign-in">Sign in with your phone</a></p>'
                                       '<form method="post" action="/orders"><button>Buy the basket (GHS 47.50)</button></form>'))
        if path == "/sign-in":
            # Minted by the proxy's server API: an OTP token for the "sign-in" purpose.
            status, answer = server_api("POST", "/server/tokens/otp", {"purpose": "sign-in"})
            if status != 201:
                return self.send(503, page("Sign-in unavailable", '<p role="alert">Try again in a moment.</p>'))
            token, proxy = html.escape(answer["token"]), html.escape(proxy_url())
            return self.send(200, page("Sign in", f"""
      <form method="post" action="/sign-in" id="sign-in">
        <otp-verify name="proof" proxy="{proxy}" token="{token}"></otp-verify>
      </form>
      <script>
        // The element is form-associated: once the number is verified, its proof is the form's "proof" field.
        document.querySelector('otp-verify').addEventListener('otp-verified', () => {{
          document.getElementById('sign-in').requestSubmit();
        }});
      </script>"""))
        match = re.fullmatch(r"/orders/([A-Z0-9-]+)(/status)?", path)
        order = match and store.orders.get(match[1])
        if not order:
            return self.send(404, page("Not found", "<p>There is no such page.</p>"))
        if match[2]:
            return self.send(200, json.dumps({"status": order["status"]}), "application/json")
        if order["status"] == "PAID":
            return self.send(200, page(f"Order {order['reference']}",
                                       f'<p role="status">Paid: GHS {order["amount"]:.2f} received. Thank you!</p>'))
        # Minted here, in Python: the amount and reference come from this server, never from the page.
        token = mint_token({"scope": "payment", "amount": order["amount"], "referenceNo": order["reference"],
                            "narration": "Python shop basket"})
        status_url = html.escape(f"/orders/{order['reference']}/status")
        self.send(200, page(f"Order {order['reference']}", f"""
      <p id="order-status">Awaiting payment of GHS 47.50.</p>
      <pay-by-mobile proxy="{html.escape(proxy_url())}" token="{html.escape(token)}"></pay-by-mobile>
      <script>
        // The element says the customer approved; the shop waits for the signed webhook to say so too.
        document.querySelector('pay-by-mobile').addEventListener('payment-completed', async () => {{
          document.getElementById('order-status').textContent = 'Confirming your payment…';
          for (;;) {{
            const answer = await fetch('{status_url}').then((r) => r.json());
            if (answer.status === 'PAID') return location.reload();
            await new Promise((resolve) => setTimeout(resolve, 500));
          }}
        }});
      </script>"""))

    def do_POST(self):
        path = urllib.parse.urlsplit(self.path).path
        if path == "/sign-in":
            form = urllib.parse.parse_qs(self.body().decode())
            # The browser's word is never enough: the proxy redeems the proof, once, for this purpose.
            status, answer = server_api("POST", "/server/otp-proofs/redeem",
                                        {"proof": (form.get("proof") or [""])[0], "purpose": "sign-in"})
            if status != 200:
                message = html.escape(answer.get("message", "The proof was refused."))
                return self.send(400, page("Not signed in", f'<p role="alert">{message}</p><p><a href="/sign-in">Try again</a></p>'))
            return self.send(200, page("Signed in", f'<p role="status">Signed in as +{html.escape(answer["msisdn"])}.</p>'))
        if path == "/orders":
            reference = "PY-" + secrets.token_hex(4).upper()
            with lock:
                store.orders[reference] = {"reference": reference, "amount": PRICE, "status": "AWAITING_PAYMENT"}
            return self.send(303, "", headers=[("Location", f"/orders/{reference}")])
        if path == "/webhooks":
            headers = {name.lower(): value for name, value in self.headers.items()}
            event = verify_webhook(self.body(), headers)
            if event is None:
                return self.send(400, json.dumps({"error": "BAD_SIGNATURE"}), "application/json")
            with lock:
                # At least once: a retry carries the same webhook-id, and is acknowledged without acting twice.
                if store.first_delivery(headers["webhook-id"]):
                    # payment.completed carries the payment's snapshot; check it is this order's price first.
                    data = event.get("data", {})
                    order = store.orders.get(data.get("orderReference", ""))
                    if (event.get("type") == "payment.completed" and order
                            and float(data.get("snapshot", {}).get("amount", -1)) == order["amount"]):
                        order["status"] = "PAID"
            return self.send(204, "")
        self.send(404, page("Not found", "<p>There is no such page.</p>"))

    def log_message(self, format, *args):
        pass  # quiet: the proxy logs what matters


if __name__ == "__main__":
    host, port = os.environ.get("HOST", "127.0.0.1"), int(os.environ.get("PORT", "8001"))
    server = ThreadingHTTPServer((host, port), Shop)
    print(f"Python shop listening on http://{host}:{server.server_address[1]}", flush=True)
    server.serve_forever()
