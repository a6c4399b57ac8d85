import { eachLimited, mapLimited } from '../../functions/concurrency';

/** A call that stays in flight until the test releases it. */
function gate() {
  const waiting: Array<() => void> = [];
  return {
    wait: () => new Promise<void>((resolve) => waiting.push(resolve)),
    releaseOne: () => waiting.shift()?.(),
    get waiting() {
      return waiting.length;
    },
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('eachLimited', () => {
  it('keeps at most `limit` calls in flight and starts the next as one finishes, in order', async () => {
    const calls = gate();
    const started: number[] = [];
    const run = eachLimited([1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      await calls.wait();
    });
    await flush();
    expect(started).toEqual([1, 2]);
    calls.releaseOne();
    await flush();
    expect(started).toEqual([1, 2, 3]);
    expect(calls.waiting).toBe(2);
    while (calls.waiting > 0) {
      calls.releaseOne();
      await flush();
    }
    await run;
    expect(started).toEqual([1, 2, 3, 4, 5]);
  });

  it('does nothing for no items and runs everything at once under a limit above their count', async () => {
    const seen: string[] = [];
    await eachLimited([], 4, async () => {
      seen.push('never');
    });
    await eachLimited(['a', 'b'], 16, async (item) => {
      seen.push(item);
    });
    expect(seen).toEqual(['a', 'b']);
  });

  it('treats a limit below one as one, rather than skipping the items', async () => {
    const seen: number[] = [];
    await eachLimited([1, 2, 3], 0, async (n) => {
      seen.push(n);
    });
    expect(seen).toEqual([1, 2, 3]);
  });

  it('rejects with the first failure', async () => {
    await expect(
      eachLimited([1, 2, 3], 2, async (n) => {
        if (n === 2) throw new Error('part 2 failed');
      }),
    ).rejects.toThrow('part 2 failed');
  });
});

describe('mapLimited', () => {
  it("answers in the items' order although the calls finish in another", async () => {
    const calls = gate();
    let inFlight = 0;
    let most = 0;
    const run = mapLimited(['a', 'b', 'c', 'd'], 2, async (item) => {
      inFlight++;
      most = Math.max(most, inFlight);
      // 'a' is held back until the others are done, so it finishes last
      if (item === 'a') await calls.wait();
      inFlight--;
      return item.toUpperCase();
    });
    await flush();
    await flush();
    calls.releaseOne();
    expect(await run).toEqual(['A', 'B', 'C', 'D']);
    expect(most).toBe(2);
  });
});
