/**
 * Writes the order's state machine (src/proxy/order/state-table.ts) into docs/design.md, between its markers:
 * the table there is generated from the one the code and its walk test use, never typed.
 * `npm run design:table`; test/proxy/order/state-table.test.ts fails when docs/design.md is behind.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { renderStateTables, STATE_TABLE_END, STATE_TABLE_START } from '../src/proxy/order/state-table-doc.js';

const file = fileURLToPath(new URL('../docs/design.md', import.meta.url));
const text = await readFile(file, 'utf8');
const start = text.indexOf(STATE_TABLE_START);
const end = text.indexOf(STATE_TABLE_END);
if (start < 0 || end < start) throw new Error(`docs/design.md has no ${STATE_TABLE_START} … ${STATE_TABLE_END} block`);
const next = `${text.slice(0, start)}${STATE_TABLE_START}\n${renderStateTables()}${text.slice(end)}`;
if (next !== text) await writeFile(file, next);
process.stdout.write(next === text ? 'docs/design.md: the state table is current\n' : 'docs/design.md: state table written\n');
