import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '@app/server';
import { SandboxModule } from './app.module';
import { SandboxConfig } from './config';

/** Largest media upload the emulated MAX upload URL takes. */
const UPLOAD_LIMIT_BYTES = 20 * 1024 * 1024;

/** Builds the sandbox (not yet listening): used by main.ts and by the test suites. */
export async function createSandboxApp(config: SandboxConfig): Promise<NestFastifyApplication> {
  const app = await createHttpApp(SandboxModule.forRoot(config), { name: 'sandbox' });
  // Media uploads (the MAX upload URL) arrive as raw bytes or multipart: kept as a buffer.
  app
    .getHttpAdapter()
    .getInstance()
    .addContentTypeParser(
      ['application/octet-stream', 'multipart/form-data'],
      { parseAs: 'buffer', bodyLimit: UPLOAD_LIMIT_BYTES },
      (_req: unknown, body: Buffer, done: (err: Error | null, body?: Buffer) => void) => done(null, body),
    );
  return app;
}
