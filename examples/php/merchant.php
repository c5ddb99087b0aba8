<?php
// The shop's side of merchant-elements, in plain PHP (no framework, no Composer package): configuration,
// element tokens minted locally (HS256, docs/tokens.md) or through the proxy's server API, the OTP proof
// redeemed once, and Standard Webhooks verified before an order is marked paid.
declare(strict_types=1);

/** Configuration, from the same variable names the proxy reads (see examples/README.md). */
function config(string $name, ?string $default = null): string
{
    $value = getenv($name);
    if ($value === false || $value === '') {
        if ($default === null) {
            http_response_code(500);
            exit("Set $name (see examples/README.md).\n");
        }
        return $default;
    }
    return $value;
}

/** The proxy as the customer's browser reaches it, e.g. http://127.0.0.1:8787/merchant-elements. */
function proxy_url(): string
{
    return rtrim(config('PROXY_URL'), '/');
}

function base64url(string $bytes): string
{
    return rtrim(strtr(base64_encode($bytes), '+/', '-_'), '=');
}

/**
 * Mints an element token locally: a JWT signed HS256 with PROXY_TOKEN_SECRET, audience
 * "merchant-elements" (PROXY_AUDIENCE), as docs/tokens.md specifies. $claims are the bound fields
 * (scope included); the standard claims are added here.
 */
function mint_token(array $claims, int $ttl = 900): string
{
    $now = time();
    $header = ['alg' => 'HS256', 'typ' => 'JWT'];
    $payload = $claims + [
        'aud' => config('PROXY_AUDIENCE', 'merchant-elements'),
        'iat' => $now,
        'exp' => $now + $ttl,
        'jti' => base64url(random_bytes(16)),
    ];
    $signing = base64url(json_encode($header)) . '.' . base64url(json_encode($payload, JSON_UNESCAPED_SLASHES));
    return $signing . '.' . base64url(hash_hmac('sha256', $signing, config('PROXY_TOKEN_SECRET'), true));
}

/**
 * Calls the proxy's server API with the server key. Answers [status, decoded body]. The server API is
 * reached from this server, never from the browser: PROXY_SERVER_URL may be an internal address.
 */
function server_api(string $method, string $path, ?array $body = null): array
{
    $base = rtrim(config('PROXY_SERVER_URL', config('PROXY_URL')), '/');
    $headers = ['Authorization: Bearer ' . config('PROXY_SERVER_KEY'), 'Accept: application/json'];
    $options = ['method' => $method, 'ignore_errors' => true, 'timeout' => 15, 'header' => $headers];
    if ($body !== null) {
        $options['header'][] = 'Content-Type: application/json';
        $options['content'] = json_encode($body, JSON_UNESCAPED_SLASHES);
    }
    $answer = @file_get_contents($base . $path, false, stream_context_create(['http' => $options]));
    if ($answer === false) {
        return [0, ['error' => 'UNREACHABLE', 'message' => 'The proxy could not be reached.']];
    }
    // $http_response_header is set by file_get_contents: its first line holds the status.
    preg_match('#^HTTP/\S+ (\d{3})#', $http_response_header[0] ?? '', $m);
    return [(int) ($m[1] ?? 0), json_decode($answer, true) ?? []];
}

/**
 * Verifies a Standard Webhooks request: the HMAC-SHA256 of "id.timestamp.body" with the secret's bytes
 * (base64 after "whsec_") must match one of the "v1,<base64>" signatures, and the timestamp must be
 * within five minutes. Answers the decoded payload, or null for anything else.
 */
function verify_webhook(string $body, array $headers): ?array
{
    $id = $headers['webhook-id'] ?? '';
    $timestamp = $headers['webhook-timestamp'] ?? '';
    $signatures = $headers['webhook-signature'] ?? '';
    if ($id === '' || !ctype_digit($timestamp) || abs(time() - (int) $timestamp) > 300) {
        return null;
    }
    $secret = config('WEBHOOK_SECRET');
    $key = base64_decode(str_starts_with($secret, 'whsec_') ? substr($secret, 6) : $secret, true);
    if ($key === false) {
        return null;
    }
    $expected = base64_encode(hash_hmac('sha256', "$id.$timestamp.$body", $key, true));
    foreach (explode(' ', $signatures) as $signature) {
        [$version, $value] = array_pad(explode(',', $signature, 2), 2, '');
        if ($version === 'v1' && hash_equals($expected, $value)) {
            return json_decode($body, true);
        }
    }
    return null;
}

/** A tiny file store (one JSON file a record) under DATA_DIR: the shop's orders and seen webhook ids. */
function data_path(string $kind, string $key): string
{
    $dir = config('DATA_DIR', sys_get_temp_dir() . '/merchant-elements-php') . "/$kind";
    if (!is_dir($dir)) {
        mkdir($dir, 0700, true);
    }
    return $dir . '/' . hash('sha256', $key) . '.json';
}

function load(string $kind, string $key): ?array
{
    $path = data_path($kind, $key);
    return is_file($path) ? json_decode((string) file_get_contents($path), true) : null;
}

function save(string $kind, string $key, array $record): void
{
    file_put_contents(data_path($kind, $key), json_encode($record), LOCK_EX);
}

/** Records a webhook id; false when it was seen before (a retry or a duplicate: already handled). */
function first_delivery(string $webhookId): bool
{
    $handle = @fopen(data_path('webhooks', $webhookId), 'x');
    if ($handle === false) {
        return false;
    }
    fclose($handle);
    return true;
}

function h(string $text): string
{
    return htmlspecialchars($text, ENT_QUOTES, 'UTF-8');
}
