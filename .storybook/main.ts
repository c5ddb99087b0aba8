// Storybook for designers: every state of every element, driven through a fake proxy (stories/support), so the
// static build (storybook-static/) works with no server. Nothing here reaches the network.
import type { StorybookConfig } from '@storybook/web-components-vite';

const config: StorybookConfig = {
  // The guides (README and docs/, one page each, written by scripts/docs/site.ts) beside the elements' stories.
  stories: ['../stories/**/*.mdx', '../stories/**/*.stories.ts', './guides/*.mdx'],
  // The fake hosted checkout page the popup and tab modes open (stories/public/hosted-checkout.html), and
  // the guides' pictures, and the OpenAPI document (scripts/docs/site.ts copies it there).
  staticDirs: ['../stories/public', { from: '../docs/screenshots', to: '/screenshots' }, { from: './guides/api', to: '/api' }],
  addons: ['@storybook/addon-docs', '@storybook/addon-a11y'],
  framework: { name: '@storybook/web-components-vite', options: {} },
  core: {
    disableTelemetry: true,
    enableCrashReports: false,
    disableWhatsNewNotifications: true,
    disableProjectJson: true,
  },
};

export default config;
