// `node --import ./test/support/import-recorder.mjs …`: appends the URL of every module the process imports
// (through ESM resolution, tsx's included) to the file named by IMPORT_RECORD, one a line. The hooks run on
// Node's loader thread, which writes the file itself, so nothing is lost when the process exits.
import { register } from 'node:module';

register('./import-recorder-hooks.mjs', import.meta.url);
