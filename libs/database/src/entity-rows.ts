import { DataSource, EntityManager, EntityMetadata, ObjectLiteral } from 'typeorm';
import { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { returnedRows } from './rows';

interface Layout {
  sql: string;
  metadata: EntityMetadata;
  columns: ColumnMetadata[];
}

/**
 * Reads an entity's rows by primary key in one plain statement, hydrated column by column by the
 * driver as TypeORM's own reads are (transformers, dates, numerics), without the query builder: a
 * `findBy({ id: In(ids) })` builds and parses its SQL, aliases every column and regroups the rows
 * on each call, which on the hot paths (an app per send, messages per group of status events)
 * cost more than the statement. For entities of plain columns only: one with relations or
 * embedded columns is refused when first read.
 */
export class EntityRows<T extends ObjectLiteral> {
  private layout?: Layout;

  constructor(
    private readonly ds: DataSource,
    private readonly target: new () => T,
  ) {}

  /** The rows with these primary keys, in no particular order; missing keys are left out. */
  async byIds(ids: readonly (string | number)[], em: EntityManager | DataSource = this.ds): Promise<T[]> {
    if (ids.length === 0) return [];
    const layout = this.layoutOf();
    const rows = returnedRows<Record<string, unknown>>(await em.query(layout.sql, [ids]));
    return rows.map((row) => this.entity(layout, row));
  }

  private entity(layout: Layout, row: Record<string, unknown>): T {
    const entity = layout.metadata.create() as T;
    const driver = this.ds.driver;
    for (const column of layout.columns) {
      column.setEntityValue(entity, driver.prepareHydratedValue(row[column.databaseName], column));
    }
    return entity;
  }

  private layoutOf(): Layout {
    if (this.layout) return this.layout;
    const metadata = this.ds.getMetadata(this.target);
    if (metadata.relations.length > 0 || metadata.embeddeds.length > 0 || metadata.primaryColumns.length !== 1) {
      throw new Error(`EntityRows reads entities of plain columns with one primary key; ${metadata.name} is not one`);
    }
    const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
    const columns = metadata.columns;
    const table = [metadata.schema, metadata.tableName]
      .filter(Boolean)
      .map((part) => quote(part!))
      .join('.');
    const key = quote(metadata.primaryColumns[0].databaseName);
    const sql = `SELECT ${columns.map((c) => quote(c.databaseName)).join(', ')} FROM ${table} WHERE ${key} = ANY($1)`;
    return (this.layout = { sql, metadata, columns });
  }
}
