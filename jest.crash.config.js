// `npm run test:crash`: the crash suite (test/crash), which runs the local runtime as separate processes
// and kills them. Kept out of `npm test` for its length; CI (.ci/run) runs both.
const { projects } = require('./jest.config.js');
const { displayName: _unit, testMatch: _match, ...common } = projects[0];
module.exports = {
  testTimeout: 300000,
  projects: [{ ...common, displayName: 'crash', testMatch: ['<rootDir>/test/crash/**/*.test.ts'] }],
};
