import { jobProgressWords } from '../../../console/src/words';

describe("a job's progress in words", () => {
  it('says the file is being read while no row is counted yet, not "0 of 0 emails"', () => {
    expect(jobProgressWords({ status: 'processing', processedEmails: 0, totalEmails: 0 })).toBe(
      'reading the file and counting its rows',
    );
  });

  it('counts the rows once the scan has', () => {
    expect(jobProgressWords({ status: 'processing', processedEmails: 1200, totalEmails: 10000 })).toBe(
      '1,200 of 10,000 emails',
    );
  });

  it('says nothing more for a job that is not processing', () => {
    expect(jobProgressWords({ status: 'completed', processedEmails: 5, totalEmails: 5 })).toBeUndefined();
  });
});
