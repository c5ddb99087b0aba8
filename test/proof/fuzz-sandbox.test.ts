// The sandbox's fuzzing in `npm test`: 200 generated requests to each endpoint; `npm run proof:long` sends
// 2,000 (test/proof/long/).
import { fuzzSandboxSuite } from './fuzz-sandbox-suite.js';

fuzzSandboxSuite(200);
