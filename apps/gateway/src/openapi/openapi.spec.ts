import { ModulesContainer } from '@nestjs/core';
import type {
  OpenAPIObject,
  ReferenceObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { DocumentedRoute, documentedRoutesOf, itDocumentsEveryRoute, operationsOf, schemaOf } from '@app/testing';
import { withPreviewGateway } from './openapi-preview';
import { buildGatewayOpenApiDocument } from './openapi';

describe("the gateway's OpenAPI document", () => {
  let document: OpenAPIObject;
  let routes: DocumentedRoute[];

  beforeAll(async () => {
    ({ document, routes } = await withPreviewGateway((app, config) => ({
      document: buildGatewayOpenApiDocument(app, config.GATEWAY_PUBLIC_URL),
      routes: documentedRoutesOf(app.get(ModulesContainer)),
    })));
  });

  // The tracking pixel is loaded by a recipient's reader: the token in its path is the credential.
  itDocumentsEveryRoute(() => ({ document, routes }), { minRoutes: 13, withoutCredential: ['Pixel_open'] });

  const answer = (operationId: string, status: string) => {
    const response = operationsOf(document).get(operationId)?.responses[status] as {
      content: Record<string, { schema: SchemaObject | ReferenceObject }>;
    };
    return response.content['application/json'].schema;
  };

  it('documents the send, the delivery report and its pages, without the channel callbacks', () => {
    expect(Object.keys(document.paths)).not.toContainEqual(expect.stringMatching(/inbound|course\/events\/|whatsapp/));
    const send = schemaOf(document, { $ref: '#/components/schemas/SendGatewayMessageDto' });
    expect(send.required).toEqual(['channel', 'to', 'template']);
    const idempotency = operationsOf(document)
      .get('GatewayMessages_send')
      ?.parameters?.find((p) => 'name' in p && p.name === 'Idempotency-Key');
    expect(idempotency).toMatchObject({ in: 'header', required: false });
    expect(answer('GatewayMessages_get', '200')).toEqual({ $ref: '#/components/schemas/MessageReportDto' });
    const page = schemaOf(document, answer('GatewayMessages_list', '200') as ReferenceObject);
    expect(Object.keys(page.properties ?? {})).toEqual(['data', 'next_cursor']);
    expect(answer('Connections_list', '200')).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/ConnectionDto' },
    });
    expect(document.components?.securitySchemes?.account).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});
