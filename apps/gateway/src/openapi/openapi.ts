import { INestApplication } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { OpenAPIObject } from '@nestjs/swagger';
import { createOpenApiDocument, serveOpenApi } from '@app/server';
import { GatewayConfig } from '../config';
import { SESSION_COOKIE } from '../console/console-auth';
import { CONSOLE_COOKIE_SCHEME } from '../console/console-session.controller';
import { ACCOUNT_TOKEN_SCHEME } from './gateway-problems.decorator';

/**
 * The gateway's OpenAPI document, generated from its controllers and DTOs (also on an app created
 * with `preview: true`: see openapi-preview.ts). Channel callbacks (WhatsApp, bots, course
 * platforms) are not in it: the channels call them, not client apps.
 */
export function buildGatewayOpenApiDocument(app: INestApplication, publicUrl: string): OpenAPIObject {
  const document = createOpenApiDocument(app, {
    title: 'Messaging Gateway API',
    description:
      'One send endpoint and one delivery report for WhatsApp, Telegram and MAX; the account’s channel ' +
      'connections, its usage report, its contacts (their consent, imports and export), course-platform ' +
      'rules and events, and the tracking pixel. Every ' +
      'error is an RFC 9457 application/problem+json body; see docs/errors.md for the problem types.',
    serverUrl: publicUrl,
    configure: (builder) =>
      builder
        .addBearerAuth(
          { type: 'http', scheme: 'bearer', description: 'A gateway account’s token (gk_…)' },
          ACCOUNT_TOKEN_SCHEME,
        )
        .addCookieAuth(
          SESSION_COOKIE,
          { type: 'apiKey', in: 'cookie', description: 'A console session (docs/console.md)' },
          CONSOLE_COOKIE_SCHEME,
        ),
  });
  // An operation without a credential (the tracking pixel: its token is in the path) says so.
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const operation = item[method];
      if (operation && !operation.security) operation.security = [];
    }
  }
  return document;
}

/** Serves the document: `/v1/openapi.json` (and `.yaml`) and an interactive page at `/v1/docs`. */
export function setupGatewayOpenApi(app: NestFastifyApplication, config: GatewayConfig): void {
  serveOpenApi(app, buildGatewayOpenApiDocument(app, config.GATEWAY_PUBLIC_URL), '/v1');
}
