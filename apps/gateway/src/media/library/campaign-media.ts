import { Injectable } from '@nestjs/common';
import {
  CampaignDefinition,
  CampaignView,
  GATEWAY_TEMPLATES_RPC,
  GatewayTemplateView,
  SendContent,
} from '@app/contracts';
import { RpcCallOptions, RpcClient, RpcProblemError } from '@app/messaging';
import { AuthenticatedAccount } from '../../accounts/authenticated-account';
import { contentsOf } from '../../campaigns/campaign-definition';
import { campaignMediaIds } from './campaign-media-ids';
import { MediaLibraryRepository } from './media-library.repository';
import { MediaLibraryService } from './media-library.service';

const TEMPLATE_READ: RpcCallOptions = {
  timeoutMs: 5_000,
  unavailable: "The campaign's bot templates cannot be read right now; retry later.",
};

/** The channels bot templates are sent on. */
const BOT_CHANNELS = new Set<string>(['telegram', 'max']);

/**
 * The media library files a campaign sends (docs/media.md#files-campaigns-send), checked by the
 * rule of `POST /v1/messages` when its definition is written and again at its estimate and launch,
 * and remembered, so that a file a campaign still sends is not deleted under it.
 */
@Injectable()
export class CampaignMedia {
  constructor(
    private readonly library: MediaLibraryService,
    private readonly repository: MediaLibraryRepository,
    private readonly rpc: RpcClient,
  ) {}

  /**
   * Each `media_id` the campaign sends: its content's and its content variants' (on every channel
   * of `channels`), and those of the bot templates it names (on its Telegram and MAX): the
   * account's file, of the content's type, within each channel's cap; otherwise 422
   * `media-unusable` naming the field (`content.media_id`, `variants[1].content.media_id`,
   * `template`, `fallback_template`, `variants[0].template`).
   */
  async check(account: AuthenticatedAccount, definition: CampaignDefinition): Promise<void> {
    const channels = definition.channels;
    for (const [at, content] of contentsOf(definition as unknown as Record<string, unknown>)) {
      const field = `${at}.media_id`;
      await this.library.checkContent(account, content as SendContent, channels, { field, subject: field });
    }
    const botChannels = channels.filter((c) => BOT_CHANNELS.has(c));
    if (!botChannels.length) return;
    for (const named of templatesOf(definition)) {
      for (const template of await this.botTemplates(account, named.name, named.language)) {
        if (!template.content) continue;
        await this.library.checkContent(account, template.content, botChannels, {
          field: named.field,
          subject: `${named.field} ${named.name} (${template.language})'s content.media_id`,
        });
      }
    }
  }

  /** Remembers the files the campaign's contents send, replacing what its earlier definition sent. */
  async remember(account: AuthenticatedAccount, campaign: CampaignView): Promise<void> {
    await this.repository.rememberCampaignUses(account.id, campaign.id, campaignMediaIds(campaign));
  }

  /** The account's bot templates of the name (of the language, when given); none when it has none. */
  private async botTemplates(
    account: AuthenticatedAccount,
    name: string,
    language: string | null,
  ): Promise<GatewayTemplateView[]> {
    const found = await this.rpc
      .call(
        GATEWAY_TEMPLATES_RPC.get,
        { account_id: account.id, app_id: null, name, ...(language ? { language } : {}) },
        TEMPLATE_READ,
      )
      .catch((err: unknown) => {
        // No template of the name: the estimate and the launch refuse that by their own check.
        if (err instanceof RpcProblemError && err.problem.status === 404) return { data: [] };
        throw err;
      });
    return found.data.filter((t) => t.source === 'bot');
  }
}

/** The templates a campaign names, each with its field and language. */
function templatesOf(d: CampaignDefinition): { field: string; name: string; language: string | null }[] {
  const out: { field: string; name: string; language: string | null }[] = [];
  if (d.template) out.push({ field: 'template', name: d.template, language: d.language ?? null });
  if (d.fallback_template)
    out.push({ field: 'fallback_template', name: d.fallback_template, language: d.language ?? null });
  (d.variants ?? []).forEach((v, i) => {
    if (v.template) out.push({ field: `variants[${i}].template`, name: v.template, language: v.language ?? null });
  });
  return out;
}
