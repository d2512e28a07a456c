/**
 * Unit specs sit beside the code and need nothing running; integration and end-to-end suites live
 * under each test/ folder and get Postgres and NATS from the integration project's global setup.
 */
const swc = [
  '@swc/jest',
  {
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];
// The console's components (apps/console) are TSX with Preact's JSX runtime.
const swcTsx = [
  '@swc/jest',
  {
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', tsx: true },
      transform: { react: { runtime: 'automatic', importSource: 'preact' } },
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];
const common = {
  transform: { '^.+\\.ts$': swc, '^.+\\.tsx$': swcTsx },
  moduleNameMapper: {
    '^@app/([a-z-]+)$': '<rootDir>/libs/$1/src',
    '^@messaging-platform/sdk$': '<rootDir>/libs/sdk/src',
  },
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'tsx', 'js', 'json'],
  // The build output and local service data hold copies of package.json files and sources.
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/.data/'],
};
module.exports = {
  ...common,
  maxWorkers: process.env.JEST_WORKERS || 2,
  testTimeout: 60000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs}/*/src/**/*.spec.ts', '<rootDir>/scripts/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      // Only the integration suites need Postgres and NATS (found or started here); unit specs need neither.
      globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
      testMatch: ['<rootDir>/{apps,libs}/*/test/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
    },
  ],
};
