// One decision for ESM-only dependencies (@middy/core 6, request-filtering-agent 3): esbuild transforms
// TypeScript and those packages to CommonJS, so Jest runs in its ordinary CommonJS mode.
const transform = { '^.+\\.(t|j|mj)s$': '<rootDir>/test/esbuild-transformer.js' };
const common = {
  transform,
  transformIgnorePatterns: ['/node_modules/(?!(@middy|request-filtering-agent)/)'],
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  setupFiles: ['<rootDir>/test/helpers/env.ts'],
};
module.exports = {
  testTimeout: 60000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts', '<rootDir>/test/handlers/**/*.test.ts'],
    },
    { ...common, displayName: 'cdk', testMatch: ['<rootDir>/test/cdk/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      // The functions' IAM policies, synthesized once for the recorded-call check (test/helpers/iam-check.ts).
      globalSetup: '<rootDir>/test/helpers/iam-global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/iam-global-teardown.ts',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/e2e/**/*.test.ts'],
    },
    // The web console in headless Chromium (test/browser/chromium.ts finds the browser).
    {
      ...common,
      displayName: 'browser',
      testMatch: ['<rootDir>/test/browser/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/iam-global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/iam-global-teardown.ts',
    },
  ],
};
