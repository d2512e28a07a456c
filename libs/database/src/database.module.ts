import { DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { ReadinessProvider } from '@app/server';
import { dataSourceOptions, SchemaDefinition } from './data-source';

/** TypeORM for one service's schema. */
export function databaseModule(url: string, def: SchemaDefinition, poolSize = 10): DynamicModule {
  return TypeOrmModule.forRoot({ ...dataSourceOptions(url, def, poolSize), retryAttempts: 3, retryDelay: 500 });
}

export const POSTGRES_READINESS = Symbol('POSTGRES_READINESS');

/** Readiness: Postgres answers a trivial query. */
export const postgresReadiness: ReadinessProvider = {
  provide: POSTGRES_READINESS,
  inject: [DataSource],
  useFactory: (ds: DataSource) => ({
    name: 'postgres',
    check: async () => {
      await ds.query('SELECT 1');
    },
  }),
};
