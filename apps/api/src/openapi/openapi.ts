import { INestApplication } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { OpenAPIObject } from '@nestjs/swagger';
import { createOpenApiDocument, serveOpenApi } from '@app/server';
import { ApiConfig } from '../config';
import { LINK_TOKEN_SCHEME } from './api-problems.decorator';

/**
 * The api's OpenAPI document, generated from its controllers and DTOs (also on an app created with
 * `preview: true`: see openapi-preview.ts).
 */
export function buildOpenApiDocument(app: INestApplication, publicUrl: string): OpenAPIObject {
  return createOpenApiDocument(app, {
    title: 'Messaging Service API',
    description:
      'Business-messaging API: applications, profiles, templates, message sends, balances and ' +
      'transactions, event subscriptions (webhooks). Every error is an RFC 9457 ' +
      'application/problem+json body; see docs/errors.md for the problem types.',
    serverUrl: `${publicUrl.replace(/\/+$/, '')}/api`,
    configure: (builder) =>
      builder
        .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'A system user’s token' }, 'bearer')
        .addApiKey(
          { type: 'apiKey', in: 'query', name: 't', description: 'The token of an onboarding link (embed_link_url)' },
          LINK_TOKEN_SCHEME,
        ),
  });
}

/** Serves the document: `/api/openapi.json` (and `.yaml`) and an interactive page at `/api/docs`. */
export function setupOpenApi(app: NestFastifyApplication, config: ApiConfig): void {
  serveOpenApi(app, buildOpenApiDocument(app, config.API_PUBLIC_URL), '/api');
}
