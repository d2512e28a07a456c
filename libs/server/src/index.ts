export * from './problem';
export { ProblemFilter, toProblem, sendProblem, rpcProblemOf, isDependencyOutage } from './problem.filter';
export { createValidationPipe, flattenValidationErrors, findUnboundedInput, INPUT_LIMITS } from './validation';
export { createHttpApp, listen, BODY_LIMIT_BYTES, ADMIN_PORT_OFFSET } from './http-app';
export { startTracing, tracingRequested, traceHttpRequests, flushTraces } from './tracing';
export type { BodyLimitConfig, HttpAppOptions } from './http-app';
export {
  HealthModule,
  HealthController,
  Lifecycle,
  READINESS_CHECKS,
  readinessReport,
  startAdminServer,
} from './health';
export type { ReadinessCheck, ReadinessProvider, ReadinessReport } from './health';
export { loggingModule, httpLogOptions, pathOf, requestLogFields } from './logging';
export type { LoggingOptions } from './logging';
export { startDefaultMetrics, counter, histogram, metricsRegistry } from './metrics';
export { PeriodicJob, PeriodicService } from './periodic-job';
export { WorkLimit } from './work-limit';
export type { WorkLimitOptions } from './work-limit';
export { Clock } from './clock';
export { canonicalJson, requestHash, parseIdempotencyKey } from './idempotency-key';
export {
  IsCalendarDate,
  isCalendarDate,
  UsageQueryDto,
  UsageReportDto,
  UsageRowDto,
  usagePeriod,
  usageLastDay,
  usageCsv,
  sendUsage,
  ApiUsageResponse,
} from './usage';
export { FieldErrorDto, ProblemDto } from './openapi/problem.dto';
export { MessageChargeDto, MessageFailureDto, MessageTimelineEntryDto } from './openapi/message-report.dto';
export {
  WebhookAttemptFieldsDto,
  WebhookDeliveryFieldsDto,
  WebhookRotatedSecretFieldsDto,
  WebhookSubscriptionFieldsDto,
} from './openapi/webhook-views.dto';
export {
  ApiProblems,
  createOpenApiDocument,
  problemDecorator,
  PROBLEM_DESCRIPTIONS,
  serveOpenApi,
  withPreviewApp,
} from './openapi/openapi';
export type { OpenApiSite } from './openapi/openapi';
export { jsonArrayStream, nextPageLink } from './json-stream';
export {
  RAW_BODY,
  rawBodyOf,
  jsonBodyOf,
  mediaTypeOf,
  scanJson,
  parsedCost,
  installJsonBodies,
  MAX_JSON_DEPTH,
  PROCESS_BODY_BUDGET,
} from './json-body';
export type { JsonScan } from './json-body';
export { BodyBudget, BodyBudgetSpentProblem } from './body-budget';
