import { Injectable, Logger } from '@nestjs/common';
import {
  CAMPAIGNS_RPC,
  CampaignRecipientInput,
  CampaignView,
  Channel,
  EventEnvelope,
  GATEWAY_MESSAGES_RPC,
  LinkClick,
  MessageClickedData,
  messageClickedEventId,
  Topology,
} from '@app/contracts';
import { EventPublisher, NatsClients, publishDurable, RpcCallOptions, RpcClient } from '@app/messaging';
import { Clock, counter } from '@app/server';
import { GatewayConfig } from '../config';
import { isPersonClick } from './link-previews';
import { LinksRepository } from './links.repository';
import { LINK_TOKEN, trackPage } from './tracked-links';

/** The broker has this long to store a click; the person was redirected long before. */
const CLICK_PUBLISH_TIMEOUT_MS = 5_000;
const LOOKUP: RpcCallOptions = { timeoutMs: 5_000, unavailable: 'The message cannot be looked up right now.' };

const requests = () => counter('gateway_link_requests_total', 'Tracked link requests by outcome', ['outcome']);

/**
 * Campaigns' tracked links (docs/campaigns.md#tracked-links): made at launch for the URLs in each
 * recipient's params, followed at once (a person's click stored in the INBOUND stream without
 * waiting, previews not counted), each recipient's first click recorded with its `message.clicked`
 * event, and the clicks added to the campaign's report.
 */
@Injectable()
export class LinksService {
  private readonly logger = new Logger('TrackedLinks');
  private readonly base: string;

  constructor(
    config: GatewayConfig,
    private readonly repo: LinksRepository,
    private readonly clients: NatsClients,
    private readonly topology: Topology,
    private readonly publisher: EventPublisher,
    private readonly rpc: RpcClient,
    private readonly clock: Clock,
  ) {
    this.base = config.GATEWAY_PUBLIC_URL.replace(/\/+$/, '');
  }

  /**
   * A launch's load page with its URLs tracked when the campaign asks for it; the first page drops
   * the links an interrupted launch made.
   */
  async track(
    accountId: string,
    campaign: CampaignView,
    page: CampaignRecipientInput[],
    first: boolean,
  ): Promise<CampaignRecipientInput[]> {
    if (!campaign.track_links) return page;
    if (first) await this.repo.deleteCampaign(campaign.id);
    const tracked = trackPage(page, { accountId, campaignId: campaign.id, base: this.base });
    await this.repo.insert(tracked.links);
    return tracked.page;
  }

  /**
   * A request of a short link: the URL to redirect to (null for a token the gateway never made). A
   * person's click is stored for recording without waiting for the broker; a preview's fetch or a
   * HEAD request is only redirected.
   */
  async follow(token: string, method: string, userAgent: string | undefined): Promise<string | null> {
    const link = LINK_TOKEN.test(token) ? await this.repo.find(token) : null;
    if (!link) {
      requests().inc({ outcome: 'unknown' });
      return null;
    }
    if (!isPersonClick(method, userAgent)) {
      requests().inc({ outcome: 'preview' });
      return link.url;
    }
    const click: LinkClick = { token, clicked_at: this.clock.nowSeconds() };
    // One id per recipient: a burst of clicks is stored once.
    publishDurable(
      this.clients.js,
      this.topology.linkClickSubject(),
      click,
      `click:${link.campaign_id}:${link.seq}`,
      {},
      CLICK_PUBLISH_TIMEOUT_MS,
    ).then(
      () => requests().inc({ outcome: 'stored' }),
      (err: unknown) => {
        requests().inc({ outcome: 'store_failed' });
        this.logger.error({ err, campaignId: link.campaign_id }, 'a click could not be stored; it is not recorded');
      },
    );
    return link.url;
  }

  /**
   * Records a stored click: the recipient's first one is its `message.clicked` event (one id per
   * message, so a click relayed twice is one event) and its row in link_clicks; later ones change
   * nothing. Throws while the api cannot answer: the click waits in INBOUND and is tried again.
   */
  async record(click: LinkClick): Promise<void> {
    const link = LINK_TOKEN.test(click.token) ? await this.repo.find(click.token) : null;
    if (!link || (await this.repo.hasClicked(link.campaign_id, link.seq))) return;
    const page = await this.rpc.call(
      CAMPAIGNS_RPC.recipients,
      { account_id: link.account_id, id: link.campaign_id, after: link.seq - 1, limit: 1 },
      LOOKUP,
    );
    const recipient = page.data[0];
    if (!recipient || recipient.seq !== link.seq || !recipient.message_id) return;
    const target = await this.rpc.call(GATEWAY_MESSAGES_RPC.readTarget, { id: recipient.message_id }, LOOKUP);
    if (!target.found) return;
    const event: EventEnvelope<MessageClickedData> = {
      id: messageClickedEventId(target.message_id),
      type: 'message.clicked',
      created_at: this.clock.nowSeconds(),
      channel: target.channel as Channel,
      app_id: target.app_id,
      user_id: target.user_id,
      data: {
        message_id: target.message_id,
        recipient: target.recipient,
        campaign_id: link.campaign_id,
        contact_id: link.contact_id,
        url: link.url,
        clicked_at: click.clicked_at,
      },
    };
    await this.publisher.publish(event as unknown as EventEnvelope);
    await this.repo.recordClick(link, target.message_id, new Date(click.clicked_at * 1000));
  }

  /** The campaign's view with its clicks: `clicked` and each variant's, when it tracks links. */
  async withClicks(accountId: string, view: CampaignView): Promise<CampaignView> {
    if (!view.track_links) return view;
    const clicks = await this.repo.clicks(accountId, view.id);
    return {
      ...view,
      clicked: clicks.total,
      ...(view.variant_results
        ? { variant_results: view.variant_results.map((v, i) => ({ ...v, clicked: clicks.perVariant.get(i) ?? 0 })) }
        : {}),
    };
  }
}
