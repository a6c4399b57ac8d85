// POST /v1/email/validate's DynamoDB round trips and the exactness of its usage, on the local runtime
// with its call recorder: a warm request makes at most three sequential rounds (no usage read), and
// concurrent validations count exactly, never past the quota, also across a month boundary.
import { randomUUID } from 'node:crypto';
import { onboardCompany, parseOnboardingInput } from '../../functions/domain/accounts/onboarding';
import { validateWithinBudget } from '../../functions/domain/single-validation/validate-sync';
import { resetSettings } from '../../functions/settings';
import { readUsageRecords } from '../../functions/store/usage';
import { callsPerInvocation, sequentialRounds } from '../helpers/call-rounds';
import { fixtureDnsSettings, useRuntimeWithDns } from '../helpers/local-runtime';
import { startFixtureDns } from '../unit/validation/fixtures/dns-server';
import { ZONES } from '../unit/validation/fixtures/world';

jest.setTimeout(120_000);

const world = useRuntimeWithDns(
  () => startFixtureDns(ZONES),
  (dns) => ({
    ...fixtureDnsSettings(dns),
    RATE_LIMIT_PER_SECOND: '100000',
    // as deployed: the key and the plan are remembered a few seconds per process
    AUTH_CACHE_SECONDS: '60',
    USAGE_CACHE_SECONDS: '60',
  }),
);

const validate = (email: string, key: string) =>
  fetch(`${world.local.baseUrl}/v1/email/validate`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });

/** A fresh company with its own quota and no credits, and its admin's key. */
const company = (monthlyQuota: number) =>
  onboardCompany(
    parseOnboardingInput({
      name: 'Rounds Co',
      adminEmail: `ops+${randomUUID()}@rounds.example`,
      monthlyQuota,
      credits: 0,
    }),
  );

describe('sequentialRounds', () => {
  it('counts overlapping calls once and calls one after the other each', () => {
    expect(sequentialRounds([])).toBe(0);
    expect(
      sequentialRounds([
        { at: 0, ms: 5 },
        { at: 2, ms: 5 },
        { at: 8, ms: 1 },
        { at: 9, ms: 1 },
      ]),
    ).toBe(3);
  });
});

describe('a warm POST /v1/email/validate', () => {
  it('makes at most three sequential DynamoDB rounds and reads no usage', async () => {
    const co = await company(1000);
    for (let i = 0; i < 3; i++)
      expect((await validate('alice@example-corp.test', co.apiKey)).status).toBe(200);
    world.local.runtime.awsCalls.length = 0;
    for (let i = 0; i < 5; i++)
      expect((await validate(`user${i}@example-corp.test`, co.apiKey)).status).toBe(200);
    const invocations = callsPerInvocation(world.local.runtime.awsCalls, 'validateEmail');
    expect(invocations).toHaveLength(5);
    for (const calls of invocations) {
      expect(calls.rounds).toBeLessThanOrEqual(3);
      expect(calls.byOperation.Query ?? 0).toBe(0);
      expect(calls.byOperation.TransactWriteItems).toBe(1);
    }
  });

  it('reads an expired plan beside the engine, not before it', async () => {
    const co = await company(1000);
    process.env.USAGE_CACHE_SECONDS = '1';
    resetSettings();
    try {
      expect((await validate('alice@example-corp.test', co.apiKey)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      world.local.runtime.awsCalls.length = 0;
      expect((await validate('expired@example-corp.test', co.apiKey)).status).toBe(200);
      const [calls] = callsPerInvocation(world.local.runtime.awsCalls, 'validateEmail');
      expect(calls?.byOperation.Query).toBe(1);
      expect(calls?.rounds).toBeLessThanOrEqual(3);
    } finally {
      process.env.USAGE_CACHE_SECONDS = '60';
      resetSettings();
    }
  });
});

describe('usage under concurrency', () => {
  it('counts N concurrent validations exactly N times', async () => {
    const co = await company(1000);
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => validate(`bob${i}@example-corp.test`, co.apiKey)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(24).fill(200));
    const month = [...(await readUsageRecords(co.companyId)).months.values()];
    expect(month).toEqual([expect.objectContaining({ single: 24, validations: 24, committed: 24 })]);
  });

  it('lets exactly the quota through when more requests than it race, the rest 402 with nothing counted', async () => {
    const co = await company(5);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => validate(`cy${i}@example-corp.test`, co.apiKey)),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array(5).fill(200), ...Array(7).fill(402)]);
    const month = [...(await readUsageRecords(co.companyId)).months.values()];
    expect(month).toEqual([expect.objectContaining({ single: 5, committed: 5 })]);
  });

  it('counts concurrent validations on both sides of a month boundary in their own months', async () => {
    const co = await company(4);
    const endOfJanuary = () => new Date('2027-01-31T23:59:59.990Z');
    const startOfFebruary = () => new Date('2027-02-01T00:00:00.010Z');
    const run = (clock: () => Date, i: number) =>
      validateWithinBudget(co.companyId, { email: `dee${i}@example-corp.test` }, 5000, clock).then(
        (outcome) => outcome.kind,
        (error: { statusCode?: number }) => error.statusCode,
      );
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) => run(i % 2 ? startOfFebruary : endOfJanuary, i)),
    );
    // 6 each side of midnight, each month's quota 4: 4 complete and 2 are refused in each
    expect(outcomes.filter((kind) => kind === 'completed')).toHaveLength(8);
    expect(outcomes.filter((kind) => kind === 402)).toHaveLength(4);
    const months = (await readUsageRecords(co.companyId)).months;
    expect(months.get('2027-01')).toMatchObject({ single: 4, committed: 4 });
    expect(months.get('2027-02')).toMatchObject({ single: 4, committed: 4 });
  });
});
