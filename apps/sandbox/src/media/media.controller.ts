import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { SandboxConfig } from '../config';
import { sandboxMediaBytes, SANDBOX_MEDIA_MAX_SIZE, sizeOfHandle } from './sandbox-media';

/**
 * The bytes behind the emulated channels' inbound files (docs/sandbox.md, Inbound media): the URL
 * a WhatsApp media id resolves to (asked with the access token, like Meta's) and MAX attachment
 * URLs. Each file is made while it is sent.
 */
@Controller('_media')
export class SandboxMediaController {
  constructor(private readonly config: SandboxConfig) {}

  @Get(':handle')
  async file(
    @Param('handle') handle: string,
    @Query('type') type: string | undefined,
    @Headers('authorization') auth: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (handle.startsWith('wa.') && auth !== `Bearer ${this.config.WHATSAPP_ACCESS_TOKEN}`) {
      await reply
        .status(401)
        .send({ error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 } });
      return;
    }
    const size = Math.min(sizeOfHandle(handle), SANDBOX_MEDIA_MAX_SIZE);
    void reply.header('Content-Type', type || 'application/octet-stream').header('Content-Length', String(size));
    await reply.send(sandboxMediaBytes(size));
  }
}
