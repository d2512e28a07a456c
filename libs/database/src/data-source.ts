import { DataSource, DataSourceOptions, MixedList, EntitySchema } from 'typeorm';
import { nameRepeatedStatements } from './prepared-statements';

/** What a service declares about the schema it owns. */
export interface SchemaDefinition {
  /** Postgres schema name, also the service name (`api`, `gateway`, `webhooks`). */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  entities: MixedList<Function | string | EntitySchema<any>>;

  migrations: MixedList<Function | string>;
}

/** TypeORM options for one service's schema; `synchronize` is always off: migrations own the schema. */
export function dataSourceOptions(url: string, def: SchemaDefinition, poolSize = 10): DataSourceOptions {
  nameRepeatedStatements();
  return {
    type: 'postgres',
    url,
    schema: def.schema,
    entities: def.entities,
    migrations: def.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    // Raw SQL (migrations, repository queries) names tables without a schema: resolve them in the
    // service's own schema, as the entities do.
    extra: { max: poolSize, application_name: def.schema, options: `-c search_path=${def.schema},public` },
  };
}

export function createDataSource(url: string, def: SchemaDefinition, poolSize = 10): DataSource {
  return new DataSource(dataSourceOptions(url, def, poolSize));
}
