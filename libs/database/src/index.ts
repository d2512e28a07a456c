export { dataSourceOptions, createDataSource } from './data-source';
export type { SchemaDefinition } from './data-source';
export { migrateSchema } from './migrate';
export type { MigrationResult } from './migrate';
export { databaseModule, postgresReadiness, POSTGRES_READINESS } from './database.module';
export { isPgError, PG_ERROR, returnedRows, sqlRows } from './rows';
export { GroupCommit } from './group-commit';
export { BatchedLookup, liveTokenOwners } from './batched-lookup';
export * from './rate-limit';
