// Address literals are refused before any connection is opened, so these run without a network.
import { request } from 'node:http';
import type { LookupFunction } from 'node:net';
import {
  callbackAgent,
  parseCallbackUrl,
  refusalReason,
} from '../../../functions/domain/webhooks/callback-guard';
import { postWebhook } from '../../../functions/domain/webhooks/post';

const post = (url: string, allowPrivate: boolean) =>
  postWebhook({ url: new URL(url), headers: {}, body: '{}', timeoutMs: 2000, allowPrivate });

describe('parseCallbackUrl', () => {
  it('accepts http and https', () => {
    expect(parseCallbackUrl('https://hooks.example.com/a?b=1')).toMatchObject({ ok: true });
    expect(parseCallbackUrl('http://hooks.example.com:8080/a')).toMatchObject({ ok: true });
  });

  it.each(['ftp://example.com/x', 'file:///etc/passwd', 'javascript:alert(1)', 'gopher://x', 'data:,x'])(
    'refuses the scheme of %s',
    (url) => {
      expect(parseCallbackUrl(url)).toEqual({
        ok: false,
        error: expect.stringMatching(/only http and https/),
      });
    },
  );

  it('refuses something that is not a URL', () => {
    expect(parseCallbackUrl('hooks.example.com/x')).toEqual({
      ok: false,
      error: 'Callback URL is not a valid URL',
    });
  });
});

describe('SSRF guard on the connected address', () => {
  it.each([
    'http://127.0.0.1/',
    'http://127.1.2.3/',
    'http://10.0.0.1/',
    'http://172.16.5.4/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://[::1]/',
    'http://[fe80::1]/',
    'http://[fd00:ec2::254]/',
    'http://[fc00::5]/',
    'http://[::ffff:127.0.0.1]/',
    'http://2130706433/',
    'https://127.0.0.1/',
  ])('refuses %s in deployed stacks', async (url) => {
    const result = await post(url, false);
    expect(result).toEqual({
      kind: 'refused',
      error: expect.stringMatching(/^Callback address \S+ refused/),
    });
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://169.254.170.2/v2/credentials',
    'http://[fd00:ec2::254]/',
    'http://[::ffff:169.254.169.254]/',
    'http://0.0.0.0/',
  ])('refuses the metadata address %s even with ALLOW_PRIVATE_CALLBACKS', async (url) => {
    expect(await post(url, true)).toMatchObject({ kind: 'refused' });
  });

  it('reads the library refusal and nothing else as a refusal', () => {
    const refusal = new Error(
      'DNS lookup 127.0.0.1(family:4, host:localhost) is not allowed. Because, It is private IP address.',
    );
    expect(refusalReason(refusal)).toMatch(/^Callback address 127\.0\.0\.1 refused/);
    expect(refusalReason(new Error('connect ECONNREFUSED 127.0.0.1:9'))).toBeUndefined();
    expect(refusalReason('DNS lookup x( is not allowed')).toBeUndefined();
  });

  it('checks the address DNS returns at connect time, so a name rebound to loopback is refused', async () => {
    // Answers a public address to a first lookup (what a pre-flight check would see) and 127.0.0.1 after.
    const answers = ['93.184.215.14', '127.0.0.1'];
    const rebinding = ((
      _host: string,
      options: { all?: boolean },
      callback: (...args: unknown[]) => void,
    ) => {
      const address = answers.shift() ?? '127.0.0.1';
      if (options.all) callback(null, [{ address, family: 4 }]);
      else callback(null, address, 4);
    }) as unknown as LookupFunction;
    // A validate-then-connect guard would have looked here and seen the public address.
    rebinding('rebind.example', {}, () => undefined);

    const error = await new Promise<Error>((resolve) => {
      const req = request({
        host: 'rebind.example',
        port: 9,
        agent: callbackAgent('http:', false),
        lookup: rebinding,
      });
      req.on('error', resolve);
      req.end();
    });
    expect(refusalReason(error)).toMatch(/^Callback address 127\.0\.0\.1 refused/);
  });
});
