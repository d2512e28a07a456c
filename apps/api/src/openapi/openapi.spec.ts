import { ModulesContainer } from '@nestjs/core';
import type {
  OpenAPIObject,
  OperationObject,
  ReferenceObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import {
  DocumentedRoute,
  documentedRoutesOf,
  itDocumentsEveryRoute,
  operationsOf,
  schemaOf as schemaOfDocument,
} from '@app/testing';
import { withPreviewApi } from './openapi-preview';
import { buildOpenApiDocument } from './openapi';

describe('the OpenAPI document', () => {
  let document: OpenAPIObject;
  let routes: DocumentedRoute[];
  let operations: Map<string, OperationObject>;

  beforeAll(async () => {
    ({ document, routes } = await withPreviewApi((app, config) => ({
      document: buildOpenApiDocument(app, config.API_PUBLIC_URL),
      routes: documentedRoutesOf(app.get(ModulesContainer)),
    })));
    operations = operationsOf(document);
  });

  const schemaOf = (ref: ReferenceObject): SchemaObject => schemaOfDocument(document, ref);

  itDocumentsEveryRoute(() => ({ document, routes }), { minRoutes: 21 });

  it("documents the subscriptions' request bodies and answers, the message status and a send's template values", () => {
    const create = schemaOf({ $ref: '#/components/schemas/CreateSubscriptionDto' });
    expect(Object.keys(create.properties ?? {})).toEqual(['url', 'events', 'app_id', 'description']);
    expect(create.required).toEqual(['url', 'events']);
    const status = operations.get('Messages_status')?.responses['200'] as {
      content: Record<string, { schema: ReferenceObject }>;
    };
    expect(status.content['application/json'].schema.$ref).toBe('#/components/schemas/MessageStatusDto');
    const template = schemaOf({ $ref: '#/components/schemas/TemplateSendDto' });
    expect(template.properties?.components).toMatchObject({
      allOf: [{ $ref: '#/components/schemas/TemplateSendComponentsDto' }],
    });
  });
});
