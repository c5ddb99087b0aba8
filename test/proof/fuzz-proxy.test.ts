// The merchant proxy's fuzzing in `npm test`: 200 generated requests to each route, enough that every route's
// own code is reached and every check bites; `npm run proof:long` sends 2,000 (test/proof/long/).
import { fuzzProxySuite } from './fuzz-proxy-suite.js';

fuzzProxySuite(200);
