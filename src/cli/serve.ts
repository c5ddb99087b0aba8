import type { CliIo } from './io.js';
import { program } from './program.js';
import { EXIT } from './errors.js';

/** A server a command started: what to print, and how to stop it. */
export interface Served {
  banner: string;
  close(): Promise<void>;
}

/**
 * The end of every long-running command (`sandbox`, `demo`): starts the server, prints its banner and
 * keeps it up until SIGINT or SIGTERM, then exits 0 once it has closed. A port already in use is answered
 * on stderr with exit code 1; any other failure to start is thrown to main.ts.
 */
export async function serveUntilStopped(io: CliIo, command: string, port: number, start: () => Promise<Served>): Promise<number> {
  let served: Served;
  try {
    served = await start();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    io.stderr(`${program()}: ${command}: port ${port} is already in use; pick another with --port or PORT\n`);
    return EXIT.failed;
  }
  // A service logs its own start (JSON lines) and gives no banner.
  if (served.banner) io.stdout(`${served.banner}\n`);
  const stop = () => void served.close().then(() => process.exit(EXIT.ok));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return new Promise<number>(() => {});
}
