import { phoneNumber, SMS_MAX_LENGTH } from '../provider/index.js';
import type { CsvRecord } from './csv.js';
import { InputError, UsageError } from './errors.js';

/** One message to send, and the row of the file it came from. */
export interface PlannedMessage {
  /** The line of the file where the row starts (the header is line 1). */
  row: number;
  to: string;
  message: string;
}

/** A row that cannot be sent, and why. */
export interface RowProblem {
  row: number;
  problem: string;
}

/** The messages of a recipients file, and its bad rows. */
export interface BulkPlan {
  messages: PlannedMessage[];
  problems: RowProblem[];
  /** Data rows in the file (good and bad). */
  rows: number;
}

const PLACEHOLDER = /\{([^{}]+)\}/g;

/** Column names as matched: trimmed, case-insensitive. */
const columnKey = (name: string) => name.trim().toLowerCase();

/** Fills `{column}` placeholders of the template from the row. */
function fill(template: string, row: ReadonlyMap<string, string>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => row.get(columnKey(name)) ?? whole);
}

/** Everything wrong with one row (empty when it can be sent), and its message. */
function checkRow(row: ReadonlyMap<string, string>, template: string | undefined): { message: string; problems: string[] } {
  const problems: string[] = [];
  const to = row.get('to')?.trim() ?? '';
  if (to === '') problems.push('the "to" column is empty');
  else {
    const parsed = phoneNumber.safeParse(to);
    if (!parsed.success) problems.push(`to "${to}" ${parsed.error.issues[0]?.message ?? 'is not a phone number'}`);
  }
  const own = row.get('message') ?? '';
  const message = own.trim() !== '' ? own : template === undefined ? '' : fill(template, row);
  if (message.trim() === '') problems.push('no message: the "message" column is empty and no --message was given');
  else if (message.length > SMS_MAX_LENGTH) {
    problems.push(`the message has ${message.length} characters; at most ${SMS_MAX_LENGTH}`);
  }
  return { message, problems };
}

/**
 * Turns the records of a recipients file (a header row, then one row per message) into messages: `to`
 * from the `to` column; the text from the row's `message` column when not empty, else from `template`
 * with `{column}` placeholders filled from the row. Every row is checked; bad rows are listed, not dropped
 * silently.
 * @throws InputError when the file itself is unusable (empty, no `to` column, repeated columns);
 *   UsageError when `template` names a column the file does not have, or no message can come from anywhere.
 */
export function planBulk(records: readonly CsvRecord[], template: string | undefined): BulkPlan {
  const [header, ...data] = records;
  if (!header) throw new InputError('the file is empty; it needs a header row with a "to" column');
  const columns = header.fields.map(columnKey);
  const repeated = columns.filter((name, i) => columns.indexOf(name) !== i);
  if (repeated.length > 0) throw new InputError(`the header repeats column(s) ${[...new Set(repeated)].join(', ')}`);
  if (!columns.includes('to')) {
    throw new InputError(`the header has no "to" column (columns: ${header.fields.join(', ')})`);
  }
  if (template === undefined && !columns.includes('message')) {
    throw new UsageError('give --message, or a "message" column in the file');
  }
  for (const [, name] of (template ?? '').matchAll(PLACEHOLDER)) {
    if (!columns.includes(columnKey(name ?? ''))) {
      throw new UsageError(`--message: {${name}} is not a column of the file (columns: ${header.fields.join(', ')})`);
    }
  }
  if (data.length === 0) throw new InputError('the file has no rows under its header');

  const plan: BulkPlan = { messages: [], problems: [], rows: data.length };
  for (const record of data) {
    const row = new Map(columns.map((name, i) => [name, record.fields[i] ?? '']));
    const checked = checkRow(row, template);
    if (record.fields.length > columns.length) {
      checked.problems.unshift(`has ${record.fields.length} fields; the header has ${columns.length}`);
    }
    if (checked.problems.length > 0) plan.problems.push({ row: record.line, problem: checked.problems.join('; ') });
    else plan.messages.push({ row: record.line, to: row.get('to')?.trim() ?? '', message: checked.message });
  }
  return plan;
}
