import { Controller, Get, Injectable, Query } from '@nestjs/common';

/** A read marker the emulated Graph API accepted: `status: read` on a message, maybe with typing. */
export interface ReadMarker {
  phone_number_id: string;
  message_id: string;
  /** The typing indicator asked for with it (`text`), or null. */
  typing: string | null;
}

/** Most read markers kept (the oldest go first). */
const KEPT = 1000;

/**
 * Read markers sent to `POST /{phone_number_id}/messages` (`{"status":"read","message_id":...}`,
 * optionally with `typing_indicator`): answered `{"success": true}` as Graph does, and kept for tests.
 */
@Injectable()
export class ReadMarkers {
  private readonly markers: ReadMarker[] = [];

  /** The marker `body` is, recorded; null when the body is not a read marker (a message to send). */
  take(phoneNumberId: string, body: unknown): { success: true } | null {
    const b = body as { status?: unknown; message_id?: unknown; typing_indicator?: { type?: unknown } } | null;
    if (!b || b.status !== 'read' || typeof b.message_id !== 'string') return null;
    const typing = typeof b.typing_indicator?.type === 'string' ? b.typing_indicator.type : null;
    this.markers.push({ phone_number_id: phoneNumberId, message_id: b.message_id, typing });
    if (this.markers.length > KEPT) this.markers.shift();
    return { success: true };
  }

  list(phoneNumberId?: string): ReadMarker[] {
    return this.markers.filter((m) => !phoneNumberId || m.phone_number_id === phoneNumberId);
  }
}

/** `GET /_sandbox/whatsapp/read_markers`: the read markers received, in order (docs/sandbox.md). */
@Controller('_sandbox/whatsapp')
export class ReadMarkersController {
  constructor(private readonly markers: ReadMarkers) {}

  @Get('read_markers')
  list(@Query('phone_number_id') phoneNumberId?: string): ReadMarker[] {
    return this.markers.list(phoneNumberId);
  }
}
