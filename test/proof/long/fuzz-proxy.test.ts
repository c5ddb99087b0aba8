// The merchant proxy's long fuzz (`npm run proof:long`, which CI runs): 2,000 generated requests to each route.
import { fuzzProxySuite } from '../fuzz-proxy-suite.js';

fuzzProxySuite(Number(process.env['FUZZ_PER_ROUTE'] ?? 2_000));
