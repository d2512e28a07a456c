import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ClaimMediaHandleRequest,
  ClaimMediaHandleResult,
  isUuid,
  KeepMediaHandleRequest,
  KeepMediaHandleResult,
  MEDIA_RPC,
  RpcReply,
} from '@app/contracts';
import { rpcAnswer } from '@app/messaging';
import { libraryObjectName } from './media-library.service';
import { MediaLibraryRepository } from './media-library.repository';

/** How long one sender's upload of a file to a connection may take before another may try. */
export const UPLOAD_LEASE_SECONDS = 120;

/**
 * The queue's questions about media library files (MEDIA_RPC, docs/media.md): a sender connection's
 * handle of a file, or the right to upload it (concurrent first sends: one uploads, the others are
 * told to wait), and the handle an upload got.
 */
@Controller()
export class MediaHandlesController {
  constructor(private readonly library: MediaLibraryRepository) {}

  @MessagePattern(MEDIA_RPC.claim)
  claim(@Payload() req: ClaimMediaHandleRequest): Promise<RpcReply<ClaimMediaHandleResult>> {
    return rpcAnswer(
      async (): Promise<ClaimMediaHandleResult> => {
        if (!isUuid(req.media_id) || !isUuid(req.user_id)) return { missing: true };
        const row = await this.library.findOfUser(req.user_id, req.media_id.toLowerCase());
        if (!row) return { missing: true };
        const claim = await this.library.claim(
          row.id,
          req.channel,
          req.connection,
          UPLOAD_LEASE_SECONDS,
          req.stale ?? null,
        );
        if (!('upload' in claim)) return claim;
        return {
          upload: {
            object: libraryObjectName(row.account_id, row.id),
            type: row.type,
            mime_type: row.mime_type,
            size: Number(row.size),
            file_name: row.file_name,
          },
        };
      },
      () => undefined,
    );
  }

  @MessagePattern(MEDIA_RPC.keep)
  keep(@Payload() req: KeepMediaHandleRequest): Promise<RpcReply<KeepMediaHandleResult>> {
    return rpcAnswer(
      async () => {
        if (!isUuid(req.media_id)) return { kept: false };
        const id = req.media_id.toLowerCase();
        if (req.handle === null) await this.library.release(id, req.channel, req.connection);
        else
          await this.library.keep(
            id,
            req.channel,
            req.connection,
            req.handle,
            req.expires_at === null ? null : new Date(req.expires_at * 1000),
          );
        return { kept: req.handle !== null };
      },
      () => undefined,
    );
  }
}
