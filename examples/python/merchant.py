"""The shop's side of merchant-elements in plain Python (standard library only): configuration, element
tokens minted locally (HS256, docs/tokens.md) or through the proxy's server API, the OTP proof redeemed
once, and Standard Webhooks verified before an order is marked paid."""

import base64
import hashlib
import hmac
import json
import os
import secrets
import time
import urllib.error
import urllib.request


def config(name, default=None):
    """A setting from the environment, by the names the proxy reads (see examples/README.md)."""
    value = os.environ.get(name) or default
    if value is None:
        raise SystemExit(f"Set {name} (see examples/README.md).")
    return value


def proxy_url():
    """The proxy as the customer's browser reaches it, e.g. http://127.0.0.1:8787/merchant-elements."""
    return config("PROXY_URL").rstrip("/")


def base64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def mint_token(claims, ttl=900):
    """Mints an element token locally: a JWT signed HS256 with PROXY_TOKEN_SECRET, audience
    "merchant-elements" (PROXY_AUDIENCE). `claims` are the bound fields, scope included."""
    now = int(time.time())
    payload = {
        **claims,
        "aud": config("PROXY_AUDIENCE", "merchant-elements"),
        "iat": now,
        "exp": now + ttl,
        "jti": base64url(secrets.token_bytes(16)),
    }
    header = {"alg": "HS256", "typ": "JWT"}
    signing = ".".join(base64url(json.dumps(part, separators=(",", ":")).encode()) for part in (header, payload))
    key = config("PROXY_TOKEN_SECRET").encode()
    return signing + "." + base64url(hmac.new(key, signing.encode(), hashlib.sha256).digest())


def server_api(method, path, body=None):
    """Calls the proxy's server API with the server key; returns (status, decoded body). It is reached
    from this server, never from the browser: PROXY_SERVER_URL may be an internal address."""
    base = config("PROXY_SERVER_URL", config("PROXY_URL")).rstrip("/")
    request = urllib.request.Request(
        base + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": "Bearer " + config("PROXY_SERVER_KEY"), "Accept": "application/json",
                 **({} if body is None else {"Content-Type": "application/json"})},
    )
    try:
        with urllib.request.urlopen(request, timeout=15) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read() or b"{}")
    except OSError:
        return 0, {"error": "UNREACHABLE", "message": "The proxy could not be reached."}


def verify_webhook(body, headers):
    """Verifies a Standard Webhooks request: the HMAC-SHA256 of "id.timestamp.body" with the secret's
    bytes (base64 after "whsec_") must match one of the "v1,<base64>" signatures, and the timestamp must
    be within five minutes. Returns the decoded payload, or None."""
    webhook_id = headers.get("webhook-id", "")
    timestamp = headers.get("webhook-timestamp", "")
    if not webhook_id or not timestamp.isdigit() or abs(time.time() - int(timestamp)) > 300:
        return None
    secret = config("WEBHOOK_SECRET")
    try:
        key = base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    except ValueError:
        return None
    signed = webhook_id.encode() + b"." + timestamp.encode() + b"." + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for signature in headers.get("webhook-signature", "").split():
        version, _, value = signature.partition(",")
        if version == "v1" and hmac.compare_digest(expected, value):
            return json.loads(body)
    return None


class Store:
    """The shop's orders and the webhook ids it has handled (in memory: one process)."""

    def __init__(self):
        self.orders = {}
        self.seen = set()

    def first_delivery(self, webhook_id):
        """False when this webhook id was handled before (a retry or a duplicate)."""
        if webhook_id in self.seen:
            return False
        self.seen.add(webhook_id)
        return True
