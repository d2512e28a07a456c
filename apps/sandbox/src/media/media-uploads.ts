import { Body, Controller, Delete, Get, HttpCode, Injectable, Post } from '@nestjs/common';

/** The channels whose media uploads the sandbox emulates. */
export type UploadChannel = 'whatsapp' | 'telegram' | 'max';

/**
 * Media uploads each emulated channel received (docs/sandbox.md, Media uploads): a WhatsApp
 * `POST /{phone-number-id}/media`, a Telegram send with a file in its multipart body, the bytes
 * posted to a MAX upload URL. Handed out ids are remembered, so a send by one is accepted.
 */
@Injectable()
export class MediaUploads {
  private readonly counts: Record<UploadChannel, number> = { whatsapp: 0, telegram: 0, max: 0 };
  private readonly handles = new Set<string>();
  private seq = 0;

  /** Counts an upload and answers the handle it gets (`prefix` + a sequence number). */
  record(channel: UploadChannel, prefix: string): string {
    const handle = `${prefix}${++this.seq}`;
    this.counted(channel, handle);
    return handle;
  }

  /** Counts an upload whose handle the channel gave out before the bytes came (MAX's upload token). */
  counted(channel: UploadChannel, handle: string): void {
    this.counts[channel] += 1;
    if (this.handles.size >= 100_000) this.handles.clear();
    this.handles.add(handle);
  }

  /** Whether the sandbox gave out this handle. */
  known(handle: string): boolean {
    return this.handles.has(handle);
  }

  /** Forgets a handle, as a channel does when one expires. */
  forget(handle: string): void {
    this.handles.delete(handle);
  }

  snapshot(): Record<UploadChannel, number> {
    return { ...this.counts };
  }

  reset(): void {
    this.counts.whatsapp = this.counts.telegram = this.counts.max = 0;
    this.handles.clear();
  }
}

/** `GET /_sandbox/media/uploads`: the uploads each channel received; `DELETE` forgets them and every handle. */
@Controller('_sandbox/media')
export class MediaUploadsController {
  constructor(private readonly uploads: MediaUploads) {}

  @Get('uploads')
  counts(): Record<UploadChannel, number> {
    return this.uploads.snapshot();
  }

  @Delete('uploads')
  @HttpCode(204)
  reset(): void {
    this.uploads.reset();
  }

  /** Makes a handle unknown, as the channel does once it expires: a send by it is refused. */
  @Post('expire')
  @HttpCode(204)
  expire(@Body() body: { handle?: unknown }): void {
    if (typeof body?.handle === 'string') this.uploads.forget(body.handle);
  }
}
