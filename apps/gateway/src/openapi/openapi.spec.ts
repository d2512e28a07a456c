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
  // An inbound file's link is opened by an agent's browser: its signature is the credential.
  // Signing in to the console, and taking an invitation, is how a console user gets its credential.
  // A contact import's CSV or NDJSON file is read from the request stream, never parsed as JSON.
  itDocumentsEveryRoute(() => ({ document, routes }), {
    minRoutes: 13,
    withoutCredential: [
      'Pixel_open',
      'Links_follow',
      'Media_download',
      'ConsoleSession_signIn',
      'ConsoleSession_accept',
    ],
    redirects: ['Links_follow'],
    streamedBodies: ['ContactImports_start'],
  });

  const answer = (operationId: string, status: string) => {
    const response = operationsOf(document).get(operationId)?.responses[status] as {
      content: Record<string, { schema: SchemaObject | ReferenceObject }>;
    };
    return response.content['application/json'].schema;
  };

  it('documents the send, the delivery report and its pages, without the channel callbacks', () => {
    expect(Object.keys(document.paths)).not.toContainEqual(expect.stringMatching(/inbound|course\/events\/|whatsapp/));
    const send = schemaOf(document, { $ref: '#/components/schemas/SendGatewayMessageDto' });
    // channel and to, or contact and channels; template or content: the service names whichever is missing.
    expect(send.required).toBeUndefined();
    expect(Object.keys(send.properties ?? {})).toEqual(expect.arrayContaining(['template', 'content']));
    expect(schemaOf(document, { $ref: '#/components/schemas/SendContentDto' }).required).toEqual(['type']);
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

  it("documents the contacts, their consent and imports, and a send's failover fields", () => {
    const responses = (operationId: string) => operationsOf(document).get(operationId)?.responses ?? {};
    const content = (operationId: string, status: string) =>
      (responses(operationId)[status] as { content: Record<string, { schema: SchemaObject | ReferenceObject }> })
        .content;
    expect(answer('Contacts_create', '201')).toEqual({ $ref: '#/components/schemas/ContactDto' });
    expect(Object.keys(responses('Contacts_create'))).toEqual(expect.arrayContaining(['400', '409', '413', '415']));
    expect(Object.keys(responses('Contacts_update'))).toEqual(expect.arrayContaining(['400', '403', '404', '409']));
    expect(content('Contacts_list', '200')).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/ContactPageDto' } },
      'text/csv': { schema: { type: 'string' } },
    });
    expect(answer('Contacts_setConsent', '200')).toEqual({ $ref: '#/components/schemas/ContactConsentDto' });
    expect(Object.keys(responses('Contacts_setConsent'))).toEqual(expect.arrayContaining(['400', '403', '404', '422']));
    expect(answer('ConsentSettings_update', '200')).toEqual({ $ref: '#/components/schemas/ConsentSettingsDto' });
    const start = operationsOf(document).get('ContactImports_start');
    expect(Object.keys((start?.requestBody as { content: object }).content)).toEqual([
      'text/csv',
      'application/x-ndjson',
    ]);
    expect(answer('ContactImports_start', '202')).toEqual({ $ref: '#/components/schemas/ContactImportDto' });
    expect(Object.keys(responses('ContactImports_start'))).toEqual(expect.arrayContaining(['400', '413', '415']));
    const send = schemaOf(document, { $ref: '#/components/schemas/SendGatewayMessageDto' });
    expect(Object.keys(send.properties ?? {})).toEqual(expect.arrayContaining(['contact', 'channels']));
    expect(Object.keys(responses('GatewayMessages_send'))).toEqual(
      expect.arrayContaining(['403', '404', '409', '422']),
    );
    const report = schemaOf(document, { $ref: '#/components/schemas/MessageReportDto' });
    expect(report.properties?.attempts).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/MessageAttemptDto' },
      description: expect.any(String),
    });
  });
  it('documents the campaigns: their definition, the estimate, transitions and the report as JSON or CSV', () => {
    const responses = (operationId: string) => operationsOf(document).get(operationId)?.responses ?? {};
    expect(answer('Campaigns_create', '201')).toEqual({ $ref: '#/components/schemas/CampaignDto' });
    expect(Object.keys(responses('Campaigns_create'))).toEqual(expect.arrayContaining(['400', '413', '415', '422']));
    expect(Object.keys(responses('Campaigns_update'))).toEqual(expect.arrayContaining(['400', '403', '404', '409']));
    const body = operationsOf(document).get('Campaigns_create')?.requestBody as {
      content: Record<string, { schema: ReferenceObject }>;
    };
    const definition = schemaOf(document, body.content['application/json'].schema);
    expect(Object.keys(definition.properties ?? {})).toEqual(
      expect.arrayContaining(['name', 'template', 'params', 'audience', 'channels', 'schedule', 'quiet_hours']),
    );
    expect(answer('Campaigns_estimate', '200')).toEqual({ $ref: '#/components/schemas/CampaignEstimateDto' });
    for (const action of ['launch', 'pause', 'resume', 'cancel']) {
      expect(answer(`Campaigns_${action}`, '200')).toEqual({ $ref: '#/components/schemas/CampaignDto' });
      expect(Object.keys(responses(`Campaigns_${action}`))).toEqual(expect.arrayContaining(['403', '404', '409']));
    }
    const report = responses('Campaigns_recipients')['200'] as { content: Record<string, unknown> };
    expect(report.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/CampaignRecipientPageDto' } },
      'text/csv': { schema: { type: 'string' } },
    });
  });
  it('answers every time as integer Unix seconds: no date-time anywhere, every *_at, at, since and end_by an integer', () => {
    const dateTimes: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) node.forEach((v, i) => walk(v, `${path}/${i}`));
      else if (node && typeof node === 'object') {
        if ((node as SchemaObject).format === 'date-time') dateTimes.push(path);
        for (const [k, v] of Object.entries(node)) walk(v, `${path}/${k}`);
      }
    };
    walk(document, '');
    expect(dateTimes).toEqual([]);
    // Every schema an answer reaches; a request body's may take other forms too (a campaign's
    // schedule takes ISO 8601), but reads back in seconds.
    const answered = new Set<string>();
    const reach = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(reach);
      else if (node && typeof node === 'object') {
        const ref = (node as ReferenceObject).$ref;
        const name = ref?.replace('#/components/schemas/', '');
        if (name && !answered.has(name)) {
          answered.add(name);
          reach(document.components?.schemas?.[name]);
        }
        Object.values(node).forEach(reach);
      }
    };
    for (const operation of operationsOf(document).values()) reach(operation.responses);
    expect([...answered]).toEqual(
      expect.arrayContaining(['ContactDto', 'CampaignDto', 'CampaignScheduleAnswerDto', 'CampaignRecipientDto']),
    );
    const notInteger: string[] = [];
    for (const name of answered) {
      const schema = document.components?.schemas?.[name];
      for (const [field, property] of Object.entries((schema as SchemaObject).properties ?? {})) {
        const isTime = /(^|_)at$/.test(field) || field === 'since' || field === 'end_by';
        if (isTime && (property as SchemaObject).type !== 'integer') notInteger.push(`${name}.${field}`);
      }
    }
    expect(notInteger).toEqual([]);
  });
});
