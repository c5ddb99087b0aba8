// A Vue single-page app (Vite, @vitejs/plugin-vue, TypeScript) with the tags in its templates and the
// package's types for them (`merchant-elements/vue`): vue-tsc holds a misspelt attribute, a wrong type or
// detail to be an error, `vite build` builds it, its Express backend serves it with the proxy on the same
// origin, and a customer pays while the template's listener runs.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshSecrets, type Child } from './child-process.js';
import { launchChromium } from '../journeys/shop-browser.js';
import { appFolder, paysOnSinglePageApp, runBin, SPA_BACKEND, startBackend, startInstalledSandbox } from './consumer-world.js';

const APP = {
  'package.json': '{ "name": "vue-shop", "private": true, "type": "module" }\n',
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, skipLibCheck: false, module: 'esnext', moduleResolution: 'bundler', target: 'es2022',
      lib: ['es2023', 'dom', 'dom.iterable'], types: [], jsx: 'preserve',
    },
    include: ['env.d.ts', 'src/**/*.ts', 'src/**/*.vue'],
    // Vue lets any unknown attribute fall through to the element unless told to check them (as the README says).
    vueCompilerOptions: { checkUnknownProps: true },
  }),
  'env.d.ts': '/// <reference types="merchant-elements/vue" />\n',
  'vite.config.ts': `import vue from '@vitejs/plugin-vue';
    import { defineConfig } from 'vite';
    const tags = ['otp-verify', 'pay-by-mobile', 'checkout-button'];
    export default defineConfig({ plugins: [vue({ template: { compilerOptions: { isCustomElement: (tag) => tags.includes(tag) } } })] });
  `,
  'index.html': `<!doctype html><html lang="en"><head><link rel="icon" href="data:,"><title>Shop</title></head>
    <body><div id="app"></div><script type="module" src="/src/main.ts"></script></body></html>`,
  'src/main.ts': `import 'merchant-elements/pay-by-mobile';
    import { createApp } from 'vue';
    import App from './App.vue';
    createApp(App).mount('#app');
  `,
  'src/App.vue': `<script setup lang="ts">
    import { onMounted, ref } from 'vue';
    const order = ref<{ reference: string; token: string }>();
    const paid = ref<string>();
    onMounted(async () => {
      order.value = await (await fetch('/api/payment-token', { method: 'POST' })).json();
    });
    </script>
    <template>
      <p v-if="paid" role="status">Paid: order {{ paid }}.</p>
      <pay-by-mobile v-else-if="order" :token="order.token" :amount="12.5" currency="GHS" @payment-completed="paid = $event.detail.orderReference" />
    </template>
  `,
  // Never mounted: what vue-tsc must say of the tags. \`@vue-expect-error\` fails the check when its line is no error.
  'src/TypeChecks.vue': `<script setup lang="ts">
    const order = { token: 't', total: 12.5 };
    const goTo = (path: string) => path;
    </script>
    <template>
      <pay-by-mobile :token="order.token" :amount="order.total" currency="GHS" @payment-completed="goTo(\`/orders/\${$event.detail.orderReference}\`)" />
      <otp-verify token="t" name="proof" required @otp-verified="goTo($event.detail.proof)" />
      <checkout-button token="t" mode="popup" class="pay" @checkout-completed="goTo($event.detail.checkoutId)">Pay</checkout-button>
      <!-- @vue-expect-error a misspelt attribute -->
      <pay-by-mobile :tokn="42" />
      <!-- @vue-expect-error token is a string -->
      <pay-by-mobile :token="42" />
      <!-- @vue-expect-error a payment's detail has no nope -->
      <pay-by-mobile @payment-completed="goTo($event.detail.nope)" />
      <!-- @vue-expect-error mode is redirect, popup or tab -->
      <checkout-button mode="window" />
      <!-- @vue-expect-error state is the element's to set -->
      <pay-by-mobile state="completed" />
    </template>
  `,
  'backend.mjs': SPA_BACKEND,
};

const secrets = freshSecrets();
let sandbox: Awaited<ReturnType<typeof startInstalledSandbox>>;
let backend: Child & { url: string };
let browser: Browser;
let dir: string;

beforeAll(async () => {
  dir = await appFolder('vue', APP);
  [sandbox, browser] = await Promise.all([startInstalledSandbox(), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await backend?.stop();
  await sandbox?.close();
});

it('vue-tsc checks the tags against the package’s types: the right ones pass, each wrong one is an error', async () => {
  // Throws with vue-tsc's words when a line is wrongly accepted or refused.
  expect(await runBin('vue-tsc', ['--noEmit', '-p', 'tsconfig.json'], dir)).toBe('');
});

it('builds with vite and pays in Chromium, the template’s listener told of the payment', async () => {
  await runBin('vite', ['build'], dir);
  backend = await startBackend(dir, sandbox.url, secrets);
  const { page, errors } = await paysOnSinglePageApp(browser, backend.url);
  expect(errors).toEqual([]);
  await page.close();
});
