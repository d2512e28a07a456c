import { INestApplication } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, getSchemaPath, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ApiConfig } from '../config';
import { LINK_TOKEN_SCHEME } from './api-problems.decorator';
import { ProblemDto } from './problem.dto';

/** swagger-ui-dist ships with @nestjs/swagger; its files are served from memory, a fixed list. */
function swaggerUiAssets(): Record<string, { type: string; body: Buffer }> {
  const root = dirname(
    require.resolve('swagger-ui-dist/package.json', { paths: [dirname(require.resolve('@nestjs/swagger'))] }),
  );
  const files: Record<string, string> = {
    'swagger-ui.css': 'text/css; charset=utf-8',
    'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
    'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
    'favicon-32x32.png': 'image/png',
  };
  return Object.fromEntries(
    Object.entries(files).map(([name, type]) => [name, { type, body: readFileSync(join(root, name)) }]),
  );
}

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Messaging Service API</title>
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/api/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>`;

const DOCS_INIT = `window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});`;

/**
 * The OpenAPI document, generated from the controllers and DTOs of an app. Works on an app created
 * with `preview: true` too (no provider instantiated: no database or NATS), which is how
 * `pnpm openapi:lint` and the document's tests build it.
 */
export function buildOpenApiDocument(app: INestApplication, publicUrl: string): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Messaging Service API')
      .setDescription(
        'Business-messaging API: applications, profiles, templates, message sends, balances and ' +
          'transactions, event subscriptions (webhooks). Every error is an RFC 9457 ' +
          'application/problem+json body; see docs/errors.md for the problem types.',
      )
      .setVersion('1')
      .addServer(`${publicUrl.replace(/\/+$/, '')}/api`)
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'A system user’s token' }, 'bearer')
      .addApiKey(
        { type: 'apiKey', in: 'query', name: 't', description: 'The token of an onboarding link (embed_link_url)' },
        LINK_TOKEN_SCHEME,
      )
      .build(),
    {
      // Routes are declared under the global prefix; the server URL above carries `/api`.
      ignoreGlobalPrefix: true,
      operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
    },
  );
  documentBodyProblems(document);
  return document;
}

/** Every route that takes a JSON body answers the body parser's and the validation's problems. */
function documentBodyProblems(document: OpenAPIObject): void {
  const problem = (description: string) => ({
    description,
    content: { 'application/problem+json': { schema: { $ref: getSchemaPath(ProblemDto) } } },
  });
  const parserProblems = {
    400: problem('Invalid request: not JSON, or a field is invalid (each named in errors[])'),
    413: problem('Body larger than 256 KiB'),
    415: problem('Body is not application/json'),
  };
  for (const item of Object.values(document.paths)) {
    for (const method of ['post', 'put', 'patch'] as const) {
      const operation = item[method];
      if (!operation?.requestBody) continue;
      for (const [status, response] of Object.entries(parserProblems)) operation.responses[status] ??= response;
    }
  }
}

/**
 * Serves the document: `/api/openapi.json` (and `.yaml`) and an interactive page at `/api/docs`.
 * The page's assets are served here rather than through @fastify/static, which would add a plugin
 * for four files.
 */
export function setupOpenApi(app: NestFastifyApplication, config: ApiConfig): void {
  const document = buildOpenApiDocument(app, config.API_PUBLIC_URL);
  SwaggerModule.setup('api/docs', app, document, {
    ui: false,
    jsonDocumentUrl: 'api/openapi.json',
    yamlDocumentUrl: 'api/openapi.yaml',
  });

  const assets = swaggerUiAssets();
  const fastify = app.getHttpAdapter().getInstance();
  fastify.get('/api/docs', (_req, reply) => {
    void reply.type('text/html; charset=utf-8').send(DOCS_PAGE);
  });
  fastify.get('/api/docs/init.js', (_req, reply) => {
    void reply.type('application/javascript; charset=utf-8').send(DOCS_INIT);
  });
  fastify.get<{ Params: { file: string } }>('/api/docs/assets/:file', (req, reply) => {
    const asset = Object.prototype.hasOwnProperty.call(assets, req.params.file) ? assets[req.params.file] : undefined;
    if (!asset) {
      void reply.callNotFound();
      return;
    }
    void reply.header('Cache-Control', 'public, max-age=86400').type(asset.type).send(asset.body);
  });
}
