// A CommonJS TypeScript server (NestJS's default: `"module": "commonjs"`, which before TypeScript 6 resolves
// by node10 and finds each entry's types through `typesVersions`; and `"module": "nodenext"` in a CommonJS
// package), compiled by tsc and run by Node, which loads the ES module packages by require(esm). Each build
// mounts the proxy and answers an element's call made with a token it minted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshSecrets, startChild, type Child } from './child-process.js';
import { appFolder, runBin, startInstalledSandbox } from './consumer-world.js';

const APP = {
  'package.json': '{ "name": "cjs-shop", "private": true, "type": "commonjs" }\n',
  'main.ts': `import type { AddressInfo } from 'node:net';
    import express from 'express';
    import { configFromEnv, createMerchantProxy, type MerchantProxy } from 'merchant-elements/proxy';
    import type { PayByMobile } from 'merchant-elements/pay-by-mobile';
    import type { PayByMobileProps } from 'merchant-elements/react';

    export type Page = [PayByMobile, PayByMobileProps];
    const proxy: MerchantProxy = createMerchantProxy(configFromEnv(process.env));
    const app = express();
    app.use('/merchant-elements', proxy.router);
    const server = app.listen(0, '127.0.0.1', async () => {
      const token = await proxy.tokens.payment({ amount: 5, referenceNo: 'CJS-1', narration: 'Order CJS-1' });
      console.log(\`listening on http://127.0.0.1:\${(server.address() as AddressInfo).port} with \${token}\`);
    });
  `,
};

/** The compiler options both builds share: strict; the declarations checked in full under nodenext only. */
const OPTIONS = ['--strict', '--esModuleInterop', '--target', 'es2022', '--lib', 'es2023,dom,dom.iterable', '--types', 'node', '--jsx', 'react-jsx', '--ignoreDeprecations', '6.0'];

let sandbox: Awaited<ReturnType<typeof startInstalledSandbox>>;
let dir: string;
beforeAll(async () => {
  dir = await appFolder('commonjs', APP);
  sandbox = await startInstalledSandbox();
});
afterAll(() => sandbox?.close());

describe.each([
  ['commonjs', 'node10'],
  ['nodenext', 'nodenext'],
] as const)('module %s, moduleResolution %s', (module, resolution) => {
  let server: Child | undefined;
  afterAll(() => server?.stop());

  it('compiles, starts by require(esm), and its proxy answers an element’s call', async () => {
    const out = `out-${resolution}`;
    // Under node10 an import a declaration makes might not resolve: skipLibCheck there, the strict nodenext build checks them.
    await runBin('tsc', [...OPTIONS, '--skipLibCheck', String(resolution === 'node10'), '--module', module, '--moduleResolution', resolution, '--outDir', out, 'main.ts'], dir);
    const env = { PROVIDER_ENV: 'sandbox', SANDBOX_URL: sandbox.url, PROXY_TOKEN_SECRET: freshSecrets().tokenSecret };
    const started = await startChild(process.execPath, [`${out}/main.js`], env, /listening on (http:\/\/127\.0\.0\.1:\d+) with (\S+)\n/, dir);
    server = started;
    const [, url, token] = started.match;
    const lookup = await fetch(`${url}/merchant-elements/accounts/lookup`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ msisdn: '0240000001' }),
    });
    expect(await lookup.json()).toMatchObject({ accountName: expect.stringMatching(/^KWAME/), network: 'MTN' });
  });
});
