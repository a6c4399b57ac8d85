// The fixture DNS server in its own worker thread (bench:bulk's): answers as the in-thread one does,
// counts what it was asked, and with cacheAnswers sends a kept answer under each query's own ID.
import { Resolver } from 'node:dns/promises';
import { startFixtureDnsThread, type FixtureDnsThread } from './fixtures/dns-server-thread';

let dns: FixtureDnsThread;

beforeAll(async () => {
  dns = await startFixtureDnsThread(
    {
      'mail.test': { mx: [{ exchange: 'mx.mail.test', priority: 5 }] },
      'mx.mail.test': { a: ['192.0.2.7'] },
    },
    { cacheAnswers: true },
  );
});

afterAll(async () => {
  await dns?.close();
});

function resolver(): Resolver {
  const resolver = new Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers(dns.servers);
  return resolver;
}

it('answers the zones it was given, NXDOMAIN otherwise, and counts each question', async () => {
  expect(await resolver().resolveMx('mail.test')).toEqual([{ exchange: 'mx.mail.test', priority: 5 }]);
  expect(await resolver().resolve4('mx.mail.test')).toEqual(['192.0.2.7']);
  await expect(resolver().resolveMx('missing.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  // again: the kept answer goes out with this query's ID (a resolver drops an answer with another)
  expect(await resolver().resolveMx('mail.test')).toEqual([{ exchange: 'mx.mail.test', priority: 5 }]);
  await expect(resolver().resolveMx('missing.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  expect(
    await dns.counts([
      ['mail.test', 'MX'],
      ['mx.mail.test', 'A'],
      ['missing.test', 'MX'],
      ['mail.test', 'AAAA'],
    ]),
  ).toEqual([2, 1, 2, 0]);
});
