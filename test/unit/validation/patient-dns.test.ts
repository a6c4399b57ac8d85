// One DNS question asked again after each try's timeout until DNS_TIMEOUT_MS (patient-dns.ts), with a
// question function that times out as c-ares does (ETIMEOUT) a given number of times.
import { patiently, tryTimeoutMs } from '../../../functions/domain/validation/patient-dns';

const etimeout = () => Object.assign(new Error('timeout'), { code: 'ETIMEOUT' });

/** A question that times out after `tryMs` the first `timeouts` times it is asked, then answers. */
function flaky(timeouts: number, tryMs: number) {
  let asked = 0;
  const ask = () =>
    new Promise<string[]>((resolve, reject) => {
      const n = ++asked;
      setTimeout(() => (n <= timeouts ? reject(etimeout()) : resolve(['192.0.2.1'])), tryMs);
    });
  return { ask, asked: () => asked };
}

it('asks again after each timed-out try until an answer comes within the budget', async () => {
  const q = flaky(3, 20);
  await expect(patiently(q.ask, 1000, Infinity)).resolves.toEqual(['192.0.2.1']);
  expect(q.asked()).toBe(4);
});

it('reads as ETIMEOUT once the budget has passed, without waiting for the try in flight', async () => {
  const q = flaky(1000, 1000);
  const started = performance.now();
  await expect(patiently(q.ask, 150, Infinity)).rejects.toMatchObject({ code: 'ETIMEOUT' });
  // the try's own timeout (1 s) is not waited for
  expect(performance.now() - started).toBeLessThan(900);
  expect(q.asked()).toBe(1);
  // its late rejection is handled: nothing surfaces after the test
  await new Promise((resolve) => setTimeout(resolve, 1000));
});

it('stops after `attempts` tries, and at once on an answer that is not a timeout', async () => {
  const twice = flaky(5, 10);
  await expect(patiently(twice.ask, 1000, 2)).rejects.toMatchObject({ code: 'ETIMEOUT' });
  expect(twice.asked()).toBe(2);
  let asked = 0;
  const nx = () => {
    asked++;
    return Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' }));
  };
  await expect(patiently(nx, 1000, Infinity)).rejects.toMatchObject({ code: 'ENOTFOUND' });
  expect(asked).toBe(1);
});

it('tries a third of the budget, within 1-2 s, and never longer than the budget', () => {
  expect(tryTimeoutMs(5000)).toBe(1667);
  expect(tryTimeoutMs(30_000)).toBe(2000);
  expect(tryTimeoutMs(1500)).toBe(1000);
  expect(tryTimeoutMs(300)).toBe(300);
});
