import { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { loadConfig } from '@app/config';
import { withPreviewApp } from '@app/server';
import { GatewayModule } from '../app.module';
import { GatewayConfig } from '../config';
import { buildGatewayOpenApiDocument } from './openapi';

/**
 * Runs `use` on the gateway created in preview mode, which reads the controllers' metadata without
 * instantiating a provider (no database, no NATS, no server).
 */
export function withPreviewGateway<T>(
  use: (app: INestApplication, config: GatewayConfig) => T | Promise<T>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<T> {
  const config = loadConfig(GatewayConfig, env);
  return withPreviewApp(GatewayModule.forRoot(config), (app) => use(app, config));
}

/** The gateway's OpenAPI document, as `/v1/openapi.json` serves it, without running the gateway. */
export function previewGatewayOpenApiDocument(env: NodeJS.ProcessEnv = process.env): Promise<OpenAPIObject> {
  return withPreviewGateway((app, config) => buildGatewayOpenApiDocument(app, config.GATEWAY_PUBLIC_URL), env);
}
