import { setCustomElementsManifest, type Preview } from '@storybook/web-components-vite';
// Generated from the elements' JSDoc by `npm run analyze` (build-storybook runs it first).
import manifest from '../custom-elements.json';
import '../src/elements/index.js';
// The stories show French too (the main entry registers English only).
import '../src/elements/translations/fr.js';
import { axeRules } from '../stories/support/a11y.js';
import { withFakeProxy } from '../stories/support/fake-proxy.js';
import { publicApi } from '../stories/support/public-api.js';

setCustomElementsManifest(publicApi(manifest));

// WebOTP off: a desktop browser never receives the SMS, and a docs page playing a dozen <otp-verify> at once
// makes Chromium kill the tab ("bad Mojo message: The abort controller must be used after initiating an SMS
// request"), a bug reported to the elements' owner. Without OTPCredential the element skips WebOTP, as in
// browsers that lack it.
delete (window as { OTPCredential?: unknown }).OTPCredential;

const preview: Preview = {
  tags: ['autodocs'],
  // Every story talks to its own fake proxy (stories/support/fake-proxy.ts): no server, in dev or static.
  beforeEach: withFakeProxy,
  argTypes: {
    proxy: { control: 'text' },
    // Read-only, or set by the fake proxy for each story.
    state: { control: false },
    token: { control: false },
    form: { control: false },
    validity: { control: false },
    strings: { control: 'object' },
  },
  // CSS parts are for reading (selectors for a stylesheet): no control.
  argTypesEnhancers: [
    ({ argTypes }) =>
      Object.fromEntries(
        Object.entries(argTypes).map(([name, argType]) => [
          name,
          argType.table?.category == 'css shadow parts' ? { ...argType, control: false as const } : argType,
        ]),
      ),
  ],
  parameters: {
    // The introduction, then the guides in the order a reader needs them (scripts/docs/site.ts), then the elements.
    options: { storySort: { order: ['Introduction', 'Guides', ['Start here', '*'], 'Elements'] } },
    controls: { expanded: true, sort: 'requiredFirst' },
    // Docs pages play each story too, so that a page shows every state side by side.
    docs: { story: { autoplay: true } },
    a11y: { config: { rules: Object.entries(axeRules).map(([id, rule]) => ({ id, ...rule })) } },
    backgrounds: {
      options: {
        light: { name: 'Light', value: '#ffffff' },
        dark: { name: 'Dark', value: '#0d1117' },
      },
    },
  },
  initialGlobals: { backgrounds: { value: 'light' } },
};

export default preview;
