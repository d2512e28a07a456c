import { channelSettings } from '@app/config';
import { MAX_CHANNEL, TELEGRAM_CHANNEL, WHATSAPP_CHANNEL } from '@app/contracts';
import { GatewayConfig } from '../../config';

/** The largest file each channel takes (`<CHANNEL>_MEDIA_MAX_BYTES`); null for a channel that takes no files. */
export function mediaCapOf(config: GatewayConfig, channel: string): number | null {
  if (channel === 'whatsapp') return channelSettings(config, WHATSAPP_CHANNEL).mediaMaxBytes;
  if (channel === 'telegram') return channelSettings(config, TELEGRAM_CHANNEL).mediaMaxBytes;
  if (channel === 'max') return channelSettings(config, MAX_CHANNEL).mediaMaxBytes;
  return null;
}

/** The largest file any channel takes: what the media library keeps at most. */
export function largestMediaCap(config: GatewayConfig): number {
  return Math.max(...['whatsapp', 'telegram', 'max'].map((c) => mediaCapOf(config, c) ?? 0));
}
