import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { USAGE } from '../../src/cli/main.js';
import { programOfScript } from '../../src/cli/program.js';
import { runMain, useCliSandbox } from './cli-harness.js';

const cli = useCliSandbox();

describe('merchant-elements usage', () => {
  it('lists every command, and prints one command\'s help by --help or help <command>', async () => {
    const lines = USAGE.split('\n');
    for (const { name } of COMMANDS) expect(lines.some((l) => l === `  ${name}` || l.startsWith(`  ${name} `))).toBe(true);
    expect(await runMain(['help'], {})).toEqual({ code: 0, stdout: USAGE, stderr: '' });
    expect(await runMain([], {})).toMatchObject({ code: 2, stdout: USAGE });
    const help = await runMain(['payment', 'status', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: merchant-elements payment status <reference> \[--json\] \[--sandbox-url URL\]\n/);
    expect((await runMain(['help', 'sms', 'bulk'], {})).stdout).toContain('--batch-size N');
  });

  it('names the command as it was run in its usage, hints and errors: merchant-elements-server where that is all there is', async () => {
    expect(programOfScript('/app/node_modules/.bin/merchant-elements-server')).toBe('merchant-elements-server');
    expect(programOfScript('/app/node_modules/merchant-elements-server/bin/merchant-elements-server.js')).toBe('merchant-elements-server');
    expect(programOfScript('/repo/bin/merchant-elements.js')).toBe('merchant-elements');
    const server = 'merchant-elements-server';
    expect((await runMain(['help'], {}, server)).stdout).toMatch(/^Usage: merchant-elements-server <command> \[options\]\n/);
    expect((await runMain(['serve', '--help'], {}, server)).stdout).toMatch(/^Usage: merchant-elements-server serve /);
    const missing = await runMain(['sms', 'send', '--to', '233240000001', '--from', 'Shop'], {}, server);
    expect(missing.stderr).toMatch(/^merchant-elements-server: sms send: --message is required\n\nUsage: merchant-elements-server sms send /);
    // Nothing listens on the port: the hint says how to start the sandbox with the command the user has.
    const unreachable = await runMain(['balance', '--sandbox-url', 'http://127.0.0.1:9'], {}, server);
    expect(unreachable.stderr).toContain('Start it with: merchant-elements-server sandbox');
    expect(unreachable.stderr).not.toMatch(/merchant-elements (sandbox|serve)/);
    // And as before where merchant-elements is the command.
    expect((await runMain(['balance', '--sandbox-url', 'http://127.0.0.1:9'], {})).stderr).toContain('Start it with: merchant-elements sandbox');
  });

  it("prints a group's commands for <group> --help and help <group>, and exits 0", async () => {
    for (const argv of [['orders', '--help'], ['webhooks', '-h'], ['help', 'orders']]) {
      const run = await runMain(argv, {});
      expect(run, argv.join(' ')).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(new RegExp(`^Usage: merchant-elements ${argv.at(-1) === 'orders' || argv[0] === 'orders' ? 'orders' : 'webhooks'} <command>`));
    }
    const orders = (await runMain(['orders', '--help'], {})).stdout;
    for (const name of ['orders show <reference>', 'orders unresolved', 'orders resolve <order>']) expect(orders).toContain(`  ${name}`);
    expect(orders).not.toContain('webhooks');
    expect((await runMain(['webhooks', '--help'], {}, 'merchant-elements-server')).stdout).toMatch(/^Usage: merchant-elements-server webhooks <command>[^]*webhooks retry/);
  });

  it('exits 2 with the usage on an unknown command, a bare group, a missing flag or argument', async () => {
    const unknown = await runMain(['refund'], {});
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toBe(`merchant-elements: unknown command "refund"\n\n${USAGE}`);
    expect((await runMain(['sms'], {})).stderr).toMatch(/^merchant-elements: sms: which one\? sms send, sms bulk, sms status, sms resend\n/);
    const missing = await runMain(['sms', 'send', '--to', '233240000001', '--from', 'Shop'], {});
    expect(missing).toMatchObject({ code: 2 });
    expect(missing.stderr).toMatch(/^merchant-elements: sms send: --message is required\n\nUsage: merchant-elements sms send /);
    expect((await runMain(['payment', 'status'], {})).stderr).toMatch(/expected <reference>, got 0 argument/);
    expect((await runMain(['balance', '--colour'], {})).stderr).toMatch(/^merchant-elements: balance: Unknown option '--colour'/);
  });
});

describe('merchant-elements configuration', () => {
  it('exits 3 naming each missing variable outside the sandbox, without calling anything', async () => {
    const run = await runMain(['balance'], { PROVIDER_ENV: 'production', MESSAGING_BASE_URL: 'https://api.example.com' });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/^merchant-elements: balance: configuration: PAYMENT_BASE_URL: is required when PROVIDER_ENV is production; MESSAGING_API_KEY: /);
    expect(run.stderr.split('\n')).toHaveLength(2);
    const badUrl = await runMain(['balance'], { SANDBOX_URL: 'ftp://nowhere' });
    expect(badUrl).toMatchObject({ code: 3 });
    expect(badUrl.stderr).toContain('SANDBOX_URL: must be an absolute http(s) URL');
    expect((await runMain(['balance'], { PROVIDER_ENV: 'live' })).stderr).toMatch(/PROVIDER_ENV: must be sandbox, staging or production/);
  });

  it('takes the sandbox from --sandbox-url over SANDBOX_URL, only in the sandbox environment', async () => {
    const run = await runMain(['balance', '--sandbox-url', cli.sandbox.url], { SANDBOX_URL: 'http://127.0.0.1:9' });
    expect(run.code).toBe(0);
    const staging = await runMain(['balance', '--sandbox-url', cli.sandbox.url], { PROVIDER_ENV: 'staging' });
    expect(staging.code).toBe(2);
    expect(staging.stderr).toMatch(/--sandbox-url applies only when PROVIDER_ENV is sandbox/);
  });

  it('says when the sandbox is not running', async () => {
    const run = await runMain(['balance'], { SANDBOX_URL: 'http://127.0.0.1:9' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^merchant-elements: balance: provider unavailable \(.*could not be reached/);
    expect(run.stderr).toContain('is the sandbox running at http://127.0.0.1:9?');
  });

  it('reports wrong credentials by variable name and never prints a secret', async () => {
    const secret = 'wrong-secret-123456';
    const run = await runMain(['balance'], { SANDBOX_URL: cli.sandbox.url, MESSAGING_API_SECRET: secret });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'merchant-elements: balance: authentication failed (UNAUTHORIZED Invalid API credentials.); check MESSAGING_API_KEY and MESSAGING_API_SECRET\n',
    );
    const gateway = await runMain(['payment', 'status', 'X'], { SANDBOX_URL: cli.sandbox.url, PAYMENT_PASSWORD: secret });
    expect(gateway.stderr).toBe(
      'merchant-elements: payment status: authentication failed (0401 Unauthorized); check PAYMENT_USERNAME and PAYMENT_PASSWORD\n',
    );
    // Even a message quoting a secret back is redacted.
    const echoed = await runMain(['sms', 'status', secret], { SANDBOX_URL: cli.sandbox.url, CHECKOUT_API_KEY: secret });
    expect(echoed.stderr).toBe('merchant-elements: sms status: not found (NOT_FOUND No message with the sequenceNo ***.)\n');
  });
});
