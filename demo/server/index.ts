export { startDemo, createDemoVite, PROXY_PATH, SANDBOX_PATH, type DemoOptions, type RunningDemo } from './start-demo.js';
export { demoBanner } from './banner.js';
