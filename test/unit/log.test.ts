// The structured log lines (Powertools Logger behind functions/log.ts) and the dashboard's metric lines
// (Powertools Metrics behind functions/metrics.ts): their shape, the level gate, and no email address.
import { logger } from '../../functions/log';
import { countMetric } from '../../functions/metrics';
import { resetSettings } from '../../functions/settings';

const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
const lines = (spy: jest.SpyInstance) =>
  spy.mock.calls.map((call) => JSON.parse(String(call[0])) as Record<string, unknown>);

afterEach(() => {
  delete process.env.EMF_METRICS;
  process.env.LOG_LEVEL = 'silent';
  resetSettings();
  stdout.mockClear();
  stderr.mockClear();
});
afterAll(() => {
  stdout.mockRestore();
  stderr.mockRestore();
});

function logAt(level: string): void {
  process.env.LOG_LEVEL = level;
  resetSettings();
}

describe('log lines', () => {
  it('writes one JSON line with level, message, service, the context and the data', () => {
    logAt('info');
    logger.child({ function: 'validateChunk', requestId: 'r-1' }).info('chunk counted', { rows: 3 });
    expect(lines(stdout)).toEqual([
      expect.objectContaining({
        level: 'INFO',
        message: 'chunk counted',
        service: 'mailvet',
        function: 'validateChunk',
        requestId: 'r-1',
        rows: 3,
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      }),
    ]);
  });

  it('writes warnings and errors to stderr, an error with its name and message', () => {
    logAt('info');
    logger.warn('slow');
    logger.error('message failed', new TypeError('boom'), { jobId: 'j-1' });
    const [warn, error] = lines(stderr);
    expect(warn).toMatchObject({ level: 'WARN', message: 'slow' });
    expect(error).toMatchObject({
      level: 'ERROR',
      jobId: 'j-1',
      error: { name: 'TypeError', message: 'boom' },
    });
    expect(stdout).not.toHaveBeenCalled();
  });

  it('writes nothing below LOG_LEVEL', () => {
    logAt('warn');
    logger.info('quiet');
    logger.debug('quieter');
    expect(stdout).not.toHaveBeenCalled();
    logAt('silent');
    logger.error('silenced', new Error('x'));
    expect(stderr).not.toHaveBeenCalled();
  });

  it('never writes an email address, wherever it is in the line', () => {
    logAt('debug');
    logger.child({ user: 'ada.admin@acme.example' }).info('invite for bob@globex.example sent', {
      reply: '550 5.1.1 <Carl.O+tag@mx.example.co.uk>: user unknown',
      nested: { to: ['dee@x.test'] },
    });
    logger.error('failed', new Error('no mailbox eve@x.test'));
    const text = [...stdout.mock.calls, ...stderr.mock.calls].map((c) => String(c[0])).join('\n');
    expect(text).not.toMatch(/@[\w-]+\./);
    const [line] = lines(stdout);
    expect(line).toMatchObject({
      user: '<email>',
      message: 'invite for <email> sent',
      reply: '550 5.1.1 <<email>>: user unknown',
      nested: { to: ['<email>'] },
    });
  });
});

describe('metric lines', () => {
  it('writes an embedded-metric line only when EMF_METRICS is on, with only the dimensions given', () => {
    countMetric('JobsCreated');
    expect(stdout).not.toHaveBeenCalled();
    process.env.EMF_METRICS = 'true';
    resetSettings();
    countMetric('JobsCreated');
    countMetric('WebhookDeliveries', 2, { Outcome: 'delivered' });
    const [plain, withOutcome] = lines(stdout);
    expect(plain).toEqual({
      _aws: {
        Timestamp: expect.any(Number),
        CloudWatchMetrics: [
          { Namespace: 'mailvet', Dimensions: [[]], Metrics: [{ Name: 'JobsCreated', Unit: 'Count' }] },
        ],
      },
      JobsCreated: 1,
    });
    expect(withOutcome).toMatchObject({
      Outcome: 'delivered',
      WebhookDeliveries: 2,
      _aws: { CloudWatchMetrics: [{ Namespace: 'mailvet', Dimensions: [['Outcome']] }] },
    });
  });
});
