import type { SendMediaType } from './content';

/**
 * Request/reply between the queue (which sends a media library file) and the gateway (which keeps
 * the library and each channel connection's handle of each file, docs/media.md).
 */
export const MEDIA_RPC = {
  /** The connection's handle of a file, or the right to upload it (one sender uploads, others wait). */
  claim: 'media.handles.claim',
  /** The handle an upload got (or null: the upload failed, the claim ends). */
  keep: 'media.handles.keep',
} as const;

export interface ClaimMediaHandleRequest {
  media_id: string;
  /** The message's user: a file of an account of another user is missing. */
  user_id: string;
  channel: string;
  /** The sender's connection as the work item names it (a phone_number_id, a bot connection id). */
  connection: string;
  /** A handle the channel refused as no longer valid: uploaded again rather than answered. */
  stale?: string | null;
}

/** The media store object to upload, and what the channel is told of it. */
export interface MediaUploadFile {
  object: string;
  type: SendMediaType;
  mime_type: string;
  size: number;
  file_name: string | null;
}

export type ClaimMediaHandleResult =
  /** `expires_at`: Unix seconds, null when it does not expire. */
  | { handle: string; expires_at: number | null }
  | { upload: MediaUploadFile }
  /** Another sender is uploading it: try again shortly. */
  | { wait: true }
  /** Deleted, or never the user's. */
  | { missing: true };

export interface KeepMediaHandleRequest {
  media_id: string;
  channel: string;
  connection: string;
  /** Null: the upload failed; the next send claims it again. */
  handle: string | null;
  /** Unix seconds; null: the handle does not expire. */
  expires_at: number | null;
}

export interface KeepMediaHandleResult {
  kept: boolean;
}
