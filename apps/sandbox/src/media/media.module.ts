import { Global, Module } from '@nestjs/common';
import { SandboxMediaController } from './media.controller';
import { MediaUploads, MediaUploadsController } from './media-uploads';

/**
 * The bytes of the emulated inbound files (WhatsApp media URLs, MAX attachment URLs), and the
 * count of media uploads each emulated channel received (global: every channel's emulator counts).
 */
@Global()
@Module({
  controllers: [SandboxMediaController, MediaUploadsController],
  providers: [MediaUploads],
  exports: [MediaUploads],
})
export class SandboxMediaModule {}
