#!/usr/bin/env node
// The merchant-elements command of the server package (`npx merchant-elements-server sandbox` where nothing
// is installed); in an application that installed both packages, `npx merchant-elements …` runs the same.
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
