import { Readable } from 'node:stream';
import { ConversationMessageCreatedData, EventEnvelope, Topology } from '@app/contracts';
import { TargetPolicy } from '@app/egress';
import { NatsClients } from '@app/messaging';
import { CredentialsBox } from '../connections/bot-channels';
import { GatewayConfig } from '../config';
import { MediaFetcher } from './media-fetcher';
import { MediaStore } from './media-store';
import { MediaRepository, MediaSourceRow } from './media.repository';

const ID = '0190a000-0000-7000-8000-0000000000aa';

function event(direction: 'in' | 'out' = 'in'): EventEnvelope<ConversationMessageCreatedData> {
  return {
    id: 'e1',
    type: 'conversation.message.created',
    created_at: 1,
    channel: 'whatsapp',
    data: { id: ID, direction } as ConversationMessageCreatedData,
  } as EventEnvelope<ConversationMessageCreatedData>;
}

function setup(row: Partial<MediaSourceRow> | null, graphUrl = 'http://127.0.0.1:9') {
  const config = Object.assign(new GatewayConfig(), { WHATSAPP_GRAPH_URL: graphUrl, MEDIA_FETCH_TIMEOUT_MS: 2000 });
  const source: MediaSourceRow | null = row && {
    message_id: ID,
    account_id: 'acc',
    channel: 'whatsapp',
    connection_id: 'conn',
    app_id: 1,
    credential: null,
    state: 'active',
    media: { handle: 'media.1', mime_type: 'image/jpeg', file_name: null, size: null },
    ...row,
  };
  const repo = {
    source: jest.fn(async () => source),
    find: jest.fn(async () => null),
    record: jest.fn(async () => undefined),
  };
  const store = { put: jest.fn(async (_: string, body: Readable) => ({ size: (await body.toArray()).length })) };
  const fetcher = new MediaFetcher(
    {} as NatsClients,
    new Topology(),
    config,
    repo as unknown as MediaRepository,
    store as unknown as MediaStore,
    {} as CredentialsBox,
    new TargetPolicy({ allowPrivate: true }),
  );
  return { fetcher, repo, store };
}

describe('MediaFetcher.handle', () => {
  it('leaves outbound messages and messages without a file alone', async () => {
    const { fetcher, repo } = setup(null);
    expect(await fetcher.handle(event('out'))).toEqual({ action: 'ack' });
    expect(await fetcher.handle(event())).toEqual({ action: 'ack' });
    expect(repo.record).not.toHaveBeenCalled();
  });

  it('keeps nothing of a file the channel declared past its cap', async () => {
    const { fetcher, repo, store } = setup({
      media: { handle: 'media.1', mime_type: 'application/pdf', file_name: 'a.pdf', size: 200 * 1024 * 1024 },
    });
    expect(await fetcher.handle(event())).toEqual({ action: 'ack' });
    expect(repo.record).toHaveBeenCalledWith(expect.objectContaining({ message_id: ID }), 'too_large', {
      mimeType: 'application/pdf',
      size: 200 * 1024 * 1024,
      fileName: 'a.pdf',
    });
    expect(store.put).not.toHaveBeenCalled();
  });

  it('tries an unreachable channel again later, and records failed on the last delivery', async () => {
    const { fetcher, repo } = setup({});
    expect(await fetcher.handle(event())).toMatchObject({ action: 'retry' });
    expect(repo.record).not.toHaveBeenCalled();
    expect(await fetcher.handle(event(), true)).toEqual({ action: 'ack' });
    expect(repo.record).toHaveBeenCalledWith(expect.anything(), 'failed', expect.anything());
  });
});
