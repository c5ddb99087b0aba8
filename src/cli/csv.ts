import { InputError } from './errors.js';

/** One record of a CSV file and the line of the file it starts on (1-based). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/**
 * Parses RFC 4180 CSV: comma-separated fields, double-quoted fields that may hold commas, line breaks and
 * doubled quotes (`""`), CRLF or LF line ends, an optional final line end and a leading byte-order mark.
 * Blank lines are skipped.
 * @throws InputError when a quoted field is never closed or a quote stands inside an unquoted field.
 */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;

  const endRecord = () => {
    fields.push(field);
    if (fields.length > 1 || fields[0] !== '') records.push({ line: recordLine, fields });
    fields = [];
    field = '';
  };

  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else {
        if (c === '\n') line += 1;
        field += c;
      }
      i += 1;
      continue;
    }
    if (c === '"') {
      if (field !== '') throw new InputError(`line ${line}: a quote inside an unquoted field (quote the whole field)`);
      quoted = true;
    } else if (c === ',') {
      fields.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      endRecord();
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      line += 1;
      recordLine = line;
    } else {
      field += c;
    }
    i += 1;
  }
  if (quoted) throw new InputError(`line ${recordLine}: a quoted field is not closed`);
  endRecord();
  return records;
}
