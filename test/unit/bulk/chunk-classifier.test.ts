// The bulk classifier gives each cell the verdict engine.classify gives the same text: the batch's
// shortcuts (domain slots, extracted addresses kept only when they differ) change no verdict, also for
// cells that are not plain addresses, and blank cells read block_bounce_risk / blank.
import { chunkClassifier } from '../../../functions/domain/bulk/classifier';
import { classifyRows } from '../../../functions/domain/bulk/validate-chunk';
import { ValidationEngine } from '../../../functions/domain/validation';
import { startFixtureDns, type FixtureDns } from '../validation/fixtures/dns-server';

let dns: FixtureDns;
let engine: ValidationEngine;

beforeAll(async () => {
  dns = await startFixtureDns({
    'ok.test': { mx: [{ exchange: 'mx.ok.test', priority: 10 }] },
    'mx.ok.test': { a: ['127.0.0.1'] },
  });
  engine = new ValidationEngine({ dnsServers: dns.servers, allowPrivateMx: true });
});

afterAll(() => dns.close());

const cells = [
  'ann@ok.test',
  'ANN@OK.TEST',
  'abuse@ok.test',
  'info@ok.test',
  'bob@nxdomain.test',
  'a@ok.test; b@ok.test',
  'a@ok.test b@ok.test',
  'a@b@ok.test',
  'ann@@ok.test',
  'ann.ok.test',
  'mailto:ann@ok.test',
  'Ann <ann@ok.test>',
  ' ann@ok.test ',
  '"quoted"@ok.test',
  'ann@ok.test.',
  'user@[127.0.0.1]',
  'ann@mailvet.test',
  'bounce@mailvet.test',
  '',
];

describe('chunkClassifier', () => {
  it('gives every cell the verdict classify gives its text', async () => {
    const out = await chunkClassifier(() => engine)(cells, 'company');
    expect(out.probes).toEqual([]);
    cells.forEach((cell, row) => expect([cell, out.verdicts[row]]).toEqual([cell, engine.classify(cell)]));
    expect(out.verdicts[5]).toMatchObject({ reason: 'invalid_syntax', subStatus: 'multiple_addresses' });
  });

  it('reads blank cells and rows too short for the column as block_bounce_risk / blank', async () => {
    const classify = chunkClassifier(() => engine);
    const blanks = await classifyRows(['ann@ok.test', '', 'abuse@ok.test', ''], classify, 'company');
    const short = await classifyRows(['', undefined, 'ann@ok.test'], classify, 'company');
    const blank = { status: 'block_bounce_risk', reason: 'blank' };
    expect(blanks.verdicts).toMatchObject([
      engine.classify('ann@ok.test'),
      blank,
      { reason: 'role_abuse' },
      blank,
    ]);
    expect(short.verdicts).toMatchObject([blank, blank, engine.classify('ann@ok.test')]);
  });
});
