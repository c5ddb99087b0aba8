// `npx tsx test/consumers/keep-workspace.ts`: builds, packs and installs the consumer workspace once and
// keeps it, printing the line that makes `npm run test:consumers` use it instead of making its own.
import { prepare } from './global-setup.js';

const { consumers } = await prepare();
process.stdout.write(`CONSUMERS_WORKSPACE=${consumers.workspace}\n`);
