// A real nginx (Debian's), in a folder of its own, serving `locations` (a guide's server-block lines) on a
// free port of 127.0.0.1: how docs/operations.md's configuration is run in front of a proxy.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/free-port.js';

export async function startNginx(locations: string): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'me-nginx-'));
  const port = await freePort();
  await writeFile(
    join(dir, 'nginx.conf'),
    `daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events {}
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
${locations}
  }
}
`,
  );
  // Debian's nginx is in /usr/sbin, outside a plain user's PATH; -e: no default error log is opened first.
  const binary = existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
  const nginx = spawn(binary, ['-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (nginx.exitCode === null) await new Promise((resolve) => (nginx.once('exit', resolve), nginx.kill('SIGTERM')));
    await rm(dir, { recursive: true, force: true });
  };
  const end = Date.now() + 15_000;
  for (;;) {
    if (await fetch(`${url}/merchant-elements/nothing`).then(() => true, () => false)) return { url, stop };
    if (Date.now() > end || nginx.exitCode !== null) {
      await stop();
      throw new Error('nginx did not start');
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
