// The order's state machine for docs/design.md, from the table the transition is walked against.
import { SESSION_NOTES, SESSION_TABLE, TRY_NOTES, TRY_TABLE, type Row } from '../../src/proxy/order/state-table.js';

const cell = (text: string) => text.replace(/\|/g, '\\|');

function table<P extends string, E extends string>(rows: readonly Row<P, E>[]): string {
  const lines = ['| state | event | next state | and |', '|---|---|---|---|'];
  for (const r of rows) lines.push(`| \`${r.from}\` | ${cell(r.on)} | \`${r.to}\` | ${cell(r.does)} |`);
  return lines.join('\n');
}

/** The Markdown of both tables and their notes, as docs/design.md holds it. */
export function renderStateTables(): string {
  return [
    '**A mobile-money try** (every state × event not listed leaves the state as it is):',
    '',
    table(TRY_TABLE),
    '',
    ...TRY_NOTES.map((note) => `- ${note}`),
    '',
    '**A hosted-checkout session:**',
    '',
    table(SESSION_TABLE),
    '',
    ...SESSION_NOTES.map((note) => `- ${note}`),
    '',
  ].join('\n');
}
