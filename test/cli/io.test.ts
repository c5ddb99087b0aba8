// What the CLI writes to the terminal never holds a secret from its environment, whichever variable held it.
import { describe, expect, it } from 'vitest';
import { redactingIo } from '../../src/cli/io.js';

describe('redactingIo', () => {
  const written = (env: NodeJS.ProcessEnv, text: string) => {
    const out: string[] = [];
    redactingIo({ env, stdout: () => undefined, stderr: (t) => void out.push(t) }).stderr(text);
    return out.join('');
  };

  it('replaces each secret of a list (a rotation\u2019s old and new), a password in REDIS_URL, and the single ones', () => {
    const env = {
      PROXY_TOKEN_ACCEPTED_SECRETS: ' accepted-one-0123456789\naccepted-two-0123456789 ',
      PROXY_TOKEN_RETIRED_SECRETS: 'retired-one-0123456789',
      WEBHOOK_SECRET: 'whsec_bmV3LXNlY3JldA== whsec_b2xkLXNlY3JldA==',
      REDIS_URL: 'redis://default:p%40ss-word@127.0.0.1:6379',
      REDIS_SENTINEL_PASSWORD: 'sentinel-pass',
      PROXY_SERVER_KEY: 'server-key-0123456789',
    };
    const text = 'a accepted-one-0123456789 b accepted-two-0123456789 c retired-one-0123456789 d whsec_bmV3LXNlY3JldA== e whsec_b2xkLXNlY3JldA== f p@ss-word g sentinel-pass h server-key-0123456789\n';
    expect(written(env, text)).toBe('a *** b *** c *** d *** e *** f *** g *** h ***\n');
  });

  it('leaves the text as it is when the environment holds no secret, or one too short to tell from words', () => {
    expect(written({ REDIS_URL: 'redis://127.0.0.1:6379', PROXY_SERVER_KEY: 'abc' }, 'abc redis://127.0.0.1:6379\n')).toBe('abc redis://127.0.0.1:6379\n');
    expect(written({ REDIS_URL: 'not a url' }, 'not a url\n')).toBe('not a url\n');
  });
});
