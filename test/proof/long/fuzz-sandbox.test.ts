// The sandbox's long fuzz (`npm run proof:long`, which CI runs): 2,000 generated requests to each endpoint.
import { fuzzSandboxSuite } from '../fuzz-sandbox-suite.js';

fuzzSandboxSuite(Number(process.env['FUZZ_PER_ROUTE'] ?? 2_000));
