import type { SchemaDefinition } from '@app/database';
import { apiSchema } from '../apps/api/src/database/schema';
import { gatewaySchema } from '../apps/gateway/src/database/schema';
import { webhooksSchema } from '../apps/webhooks/src/database/schema';

/** Every service schema, in the order migrations run. */
export const ALL_SCHEMAS: SchemaDefinition[] = [apiSchema, gatewaySchema, webhooksSchema];
