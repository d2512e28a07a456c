export * from './problem';
export { ProblemFilter, toProblem, sendProblem } from './problem.filter';
export { createValidationPipe, flattenValidationErrors } from './validation';
export { createHttpApp, listen, BODY_LIMIT_BYTES } from './http-app';
export type { HttpAppOptions } from './http-app';
export { HealthModule, HealthController, Lifecycle, READINESS_CHECKS } from './health';
export type { ReadinessCheck, ReadinessProvider } from './health';
export { loggingModule } from './logging';
export { startDefaultMetrics, counter, histogram, metricsRegistry } from './metrics';
