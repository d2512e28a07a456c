import { MAX_CHANNEL, TELEGRAM_CHANNEL, WHATSAPP_CHANNEL } from '@app/contracts';
import { TargetPolicy } from '@app/egress';
import { pacingOf, registerConnectorFactory } from './connector-factories';
import { MaxConnector } from './max';
import { TelegramConnector } from './telegram';
import { WhatsAppConnector } from './whatsapp';

/** The connectors of the built-in channels, each built from the settings its registration declares. */
registerConnectorFactory(
  WHATSAPP_CHANNEL,
  (s) =>
    new WhatsAppConnector({
      graphUrl: s.graphUrl,
      apiVersion: s.apiVersion,
      accessToken: s.accessToken,
      timeoutMs: s.timeoutMs,
      pacing: pacingOf(WHATSAPP_CHANNEL, s),
    }),
);
registerConnectorFactory(
  TELEGRAM_CHANNEL,
  (s, ctx) =>
    new TelegramConnector({
      apiUrl: s.apiUrl,
      timeoutMs: s.timeoutMs,
      openCredential: ctx.openCredential,
      pacing: pacingOf(TELEGRAM_CHANNEL, s),
    }),
);
registerConnectorFactory(
  MAX_CHANNEL,
  (s, ctx) =>
    new MaxConnector({
      apiUrl: s.apiUrl,
      timeoutMs: s.timeoutMs,
      openCredential: ctx.openCredential,
      pacing: pacingOf(MAX_CHANNEL, s),
      mediaTargets: new TargetPolicy({ allowPrivate: ctx.allowPrivateTargets }),
    }),
);
