export { startTestInfra } from './infra';
export type { TestInfra, TestInfraOptions } from './infra';
export { waitFor, sleep } from './wait';
export { spawnTs, waitForLine, killHard, REPO_ROOT } from './processes';
