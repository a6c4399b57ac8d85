// The API reference at /docs renders in headless Chromium under its own Content-Security-Policy: Swagger
// UI loads the document and lists the operations, and the browser reports no policy violation.
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime';
import { chromiumPath, launchChromium, type Browser } from './chromium';

jest.setTimeout(120_000);

if (!chromiumPath && process.env.CI)
  throw new Error('CI must run the browser tests: install chromium with apt');
if (!chromiumPath)
  process.stderr.write(
    'Skipping the /docs browser test: no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)\n',
  );
// Skipped only where no Chromium exists (and never in CI, see above), with the message above.
const describeInBrowser = chromiumPath ? describe : describe.skip;

let runtime: TestRuntime;
let browser: Browser;
const problems: string[] = [];

describeInBrowser('the API reference', () => {
  beforeAll(async () => {
    runtime = await startTestRuntime();
    browser = await launchChromium({ viewport: { width: 1100, height: 760 } });
    browser.context.on('weberror', (e) => problems.push(String(e.error())));
    browser.context.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await runtime?.stop();
  });

  it('renders the operations with its CSP on and reports no violation', async () => {
    const page = await browser.context.newPage();
    const response = await page.goto(`${runtime.baseUrl}/docs`);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.locator('.opblock-summary-path', { hasText: '/v1/email/validate-file' }).first().waitFor({
      timeout: 60_000,
    });
    // A blocked inline script or style shows up as a console error naming the policy.
    expect(problems).toEqual([]);
    await page.close();
  });
});
