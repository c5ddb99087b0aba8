import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { renderStateTables, STATE_TABLE_END, STATE_TABLE_START } from '../../../src/proxy/order/state-table-doc.js';

describe('docs/design.md', () => {
  it('shows the order state machine generated from the table the transition is walked against', async () => {
    const text = await readFile(new URL('../../../docs/design.md', import.meta.url), 'utf8');
    const start = text.indexOf(STATE_TABLE_START);
    const end = text.indexOf(STATE_TABLE_END);
    expect(start).toBeGreaterThan(-1);
    // Behind when it fails: npm run design:table
    expect(text.slice(start + STATE_TABLE_START.length + 1, end)).toBe(renderStateTables());
  });
});
