import { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { loadConfig } from '@app/config';
import { withPreviewApp } from '@app/server';
import { ApiModule } from '../app.module';
import { ApiConfig } from '../config';
import { buildOpenApiDocument } from './openapi';

/**
 * Runs `use` on the api created in preview mode, which reads the controllers' metadata without
 * instantiating a provider (no database, no NATS, no server).
 */
export function withPreviewApi<T>(
  use: (app: INestApplication, config: ApiConfig) => T | Promise<T>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<T> {
  const config = loadConfig(ApiConfig, env);
  return withPreviewApp(ApiModule.forRoot(config), (app) => use(app, config));
}

/** The api's OpenAPI document, as `/api/openapi.json` serves it, without running the api. */
export function previewOpenApiDocument(env: NodeJS.ProcessEnv = process.env): Promise<OpenAPIObject> {
  return withPreviewApi((app, config) => buildOpenApiDocument(app, config.API_PUBLIC_URL), env);
}
