import { PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { bucketName, resetS3, s3 } from '../../../functions/clients/s3';
import { readChunk, annotateChunk } from '../../../functions/domain/bulk/csv/annotate';
import { indexChunk, type ResultsVariant } from '../../../functions/domain/bulk/csv/row-index';
import { parseIndexLine } from '../../../functions/domain/bulk/csv/row-index-text';
import { walkVariant } from '../../../functions/domain/bulk/results-variants';
import { presignUpload } from '../../../functions/domain/bulk/presign';
import { countMetric } from '../../../functions/metrics';
import { resetSettings } from '../../../functions/settings';
import { annotatedChunk } from '../../helpers/annotated-chunk';

/** A buffer as a stream of small pieces, so rows straddle the pieces as they do in S3 bodies. */
async function* pieces(bytes: Buffer, size = 7): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/**
 * Applies a variant to an annotated chunk through its row index with results-variants.ts's own row
 * walk, checking the index covered every byte of the part.
 */
const text = (bytes: Buffer) => bytes.toString('utf8');

async function applyVariant(part: Buffer, index: Buffer, variant: ResultsVariant): Promise<Buffer> {
  const out: Buffer[] = [];
  const covered = await walkVariant(pieces(part), pieces(index, 5), variant, (bytes) => {
    out.push(bytes);
  });
  expect(covered).toBe(part.length);
  return Buffer.concat(out);
}

describe('row index of a results part', () => {
  const input = Buffer.from('name;email\r\n"A;\r\nx";a@x.test\r\n\r\nB;\r\nC;c@y.test', 'utf8');
  const verdicts = [
    { status: 'safe' as const, reason: 'domain_ok' },
    { status: 'block_bounce_risk' as const, reason: 'blank' },
    { status: 'dead_email' as const, reason: 'no_such_domain' },
  ];
  const { layout, part, index } = annotatedChunk(input, verdicts);

  it('covers every byte of the part, quoted line breaks and a last row without a line ending included', async () => {
    expect(text(await applyVariant(part, index, { reason: false, delimiter: ';', encoding: 'utf-8' }))).toBe(
      part.toString('utf8'),
    );
  });

  it('filters data rows by status, keeping the header and empty lines byte for byte', async () => {
    expect(
      text(
        await applyVariant(part, index, {
          statuses: new Set(['safe']),
          reason: false,
          delimiter: ';',
          encoding: 'utf-8',
        }),
      ),
    ).toBe('name;email;mailvet_status\r\n"A;\r\nx";a@x.test;safe\r\n\r\n');
  });

  it('appends the reason after the status, before each line ending', async () => {
    expect(text(await applyVariant(part, index, { reason: true, delimiter: ';', encoding: 'utf-8' }))).toBe(
      'name;email;mailvet_status;mailvet_reason\r\n"A;\r\nx";a@x.test;safe;domain_ok\r\n\r\n' +
        'B;;block_bounce_risk;blank\r\nC;c@y.test;dead_email;no_such_domain',
    );
  });

  it('counts UTF-16 bytes and writes the reason in UTF-16, so a UTF-16 file stays decodable', async () => {
    const text = '\ufeffname\temail\r\nA\ta@x.test\r\n';
    const utf16 = Buffer.from(text, 'utf16le');
    const wide = { ...layout, delimiter: '\t' as const, encoding: 'utf-16le' as const, dataStart: 24 };
    const wideRows = readChunk(utf16, wide);
    const widePart = annotateChunk(utf16, wideRows, wide, ['safe']);
    const wideIndex = indexChunk(wideRows, [{ status: 'safe', reason: 'domain_ok' }], 'utf-16le');
    const variant = { reason: true, delimiter: '\t', encoding: 'utf-16le' as const };
    expect((await applyVariant(widePart, wideIndex, variant)).toString('utf16le')).toBe(
      '\ufeffname\temail\tmailvet_status\tmailvet_reason\r\nA\ta@x.test\tsafe\tdomain_ok\r\n',
    );
  });

  it('keeps every row of a chunk of rows shorter than its tables first expect', () => {
    const short = Buffer.from(`email\n${'a@b.c\n\n'.repeat(600)}x@y.z`, 'utf8');
    const shortLayout = { ...layout, delimiter: ',' as const, emailColumn: 0, dataStart: 6 };
    const shortRows = readChunk(short, shortLayout);
    expect(shortRows.count).toBe(1 + 600 * 2 + 1);
    expect(shortRows.emails).toEqual([...Array<string>(600).fill('a@b.c'), 'x@y.z']);
    const statuses = shortRows.emails.map((email) => (email === 'x@y.z' ? 'some_risk' : 'safe'));
    expect(annotateChunk(short, shortRows, shortLayout, statuses).toString('utf8')).toBe(
      `email,mailvet_status\n${'a@b.c,safe\n\n'.repeat(600)}x@y.z,some_risk`,
    );
  });

  it('rejects a line it did not write', () => {
    expect(() => parseIndexLine('x y d')).toThrow('bad row index line');
  });
});

describe('presigned upload URLs in AWS mode', () => {
  beforeEach(() => {
    resetSettings();
    resetS3();
  });

  it('carry no checksum of an empty body (the default client would add one)', async () => {
    expect(process.env.AWS_ENDPOINT_URL_S3).toBeUndefined();
    const url = new URL(await presignUpload('uploads/c/j.csv', 300));
    expect(url.searchParams.get('x-amz-checksum-crc32')).toBeNull();
    expect(url.searchParams.get('x-amz-sdk-checksum-algorithm')).toBeNull();
    const withDefaults = new URL(
      await getSignedUrl(s3(), new PutObjectCommand({ Bucket: bucketName(), Key: 'uploads/c/j.csv' }), {
        expiresIn: 300,
      }),
    );
    expect([...withDefaults.searchParams.keys()].some((k) => k.toLowerCase().includes('checksum'))).toBe(
      true,
    );
  });
});

describe('dashboard metrics', () => {
  const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  afterEach(() => {
    delete process.env.EMF_METRICS;
    resetSettings();
    write.mockClear();
  });
  afterAll(() => write.mockRestore());

  it('writes an embedded-metric line only when EMF_METRICS is on', () => {
    resetSettings();
    countMetric('JobsCreated');
    expect(write).not.toHaveBeenCalled();
    process.env.EMF_METRICS = 'true';
    resetSettings();
    countMetric('WebhookDeliveries', 1, { Outcome: 'delivered' });
    const line = JSON.parse(String(write.mock.calls[0]![0]));
    expect(line).toMatchObject({
      Outcome: 'delivered',
      WebhookDeliveries: 1,
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: 'mailvet',
            Dimensions: [['Outcome']],
            Metrics: [{ Name: 'WebhookDeliveries', Unit: 'Count' }],
          },
        ],
      },
    });
  });
});
