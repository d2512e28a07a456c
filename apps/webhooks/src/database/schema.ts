import type { SchemaDefinition } from '@app/database';

/** The webhooks service's schema: its entities and migrations, in order. */
export const webhooksSchema: SchemaDefinition = {
  schema: 'webhooks',
  entities: [],
  migrations: [],
};
