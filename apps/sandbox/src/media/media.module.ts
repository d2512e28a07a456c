import { Module } from '@nestjs/common';
import { SandboxMediaController } from './media.controller';

/** The bytes of the emulated inbound files (WhatsApp media URLs, MAX attachment URLs). */
@Module({ controllers: [SandboxMediaController] })
export class SandboxMediaModule {}
