/**
 * `pnpm test:chaos`: the chaos suite alone (it starts its own Postgres and NATS, so it needs no
 * global setup), with the main configuration's transform and path mapping.
 */
const main = require('../../jest.config.js');

module.exports = {
  rootDir: '../..',
  transform: main.transform,
  moduleNameMapper: main.moduleNameMapper,
  moduleFileExtensions: main.moduleFileExtensions,
  modulePathIgnorePatterns: main.modulePathIgnorePatterns,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/chaos/**/*.chaos.ts'],
  testTimeout: 600_000,
  maxWorkers: 1,
};
