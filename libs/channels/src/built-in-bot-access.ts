import { MAX_CHANNEL, TELEGRAM_CHANNEL } from '@app/contracts';
import { TargetPolicy } from '@app/egress';
import { registerBotAccessFactory } from './bot-access';
import { MaxConnector } from './max';
import { TelegramConnector } from './telegram';

const failed = (f: { status: number | null; description: string }) => ({
  ok: false as const,
  status: f.status,
  reason: f.description,
});

/** Telegram and MAX bots as the connections API uses them (the connectors' management calls). */
registerBotAccessFactory(TELEGRAM_CHANNEL, (s, ctx) => {
  const telegram = new TelegramConnector({
    apiUrl: s.apiUrl,
    timeoutMs: s.timeoutMs,
    openCredential: ctx.openCredential,
  });
  return {
    identify: async (token) => {
      const r = await telegram.getMe(token);
      return r.ok ? { ok: true, id: String(r.value.id), username: r.value.username ?? null } : failed(r.failure);
    },
    register: async (token, url, secret) => {
      const r = await telegram.setWebhook(token, url, secret);
      return r.ok ? { ok: true } : failed(r.failure);
    },
    unregister: async (token) => ({ ok: (await telegram.deleteWebhook(token)).ok }),
    acknowledge: async (token, update) => {
      const id = (update as { callback_query?: { id?: unknown } } | null)?.callback_query?.id;
      if (typeof id === 'string' && id) await telegram.answerCallbackQuery(token, id);
    },
    typing: async (token, chatId) => {
      await telegram.sendTyping(token, chatId);
    },
  };
});
registerBotAccessFactory(MAX_CHANNEL, (s, ctx) => {
  const max = new MaxConnector({
    apiUrl: s.apiUrl,
    timeoutMs: s.timeoutMs,
    openCredential: ctx.openCredential,
    mediaTargets: new TargetPolicy({ allowPrivate: ctx.allowPrivateTargets }),
  });
  return {
    identify: async (token) => {
      const r = await max.getMe(token);
      return r.ok ? { ok: true, id: String(r.value.user_id), username: r.value.username ?? null } : failed(r.failure);
    },
    register: async (token, url, secret) => {
      const r = await max.subscribe(token, url, secret);
      return r.ok ? { ok: true } : failed(r.failure);
    },
    unregister: async (token, url) => ({ ok: (await max.unsubscribe(token, url)).ok }),
    // MAX shows no waiting state on a press; an answer (POST /answers) would have to carry a
    // message or a notification the business did not write.
    acknowledge: async () => undefined,
    // The dialog's messages marked read, then "typing..." (a MAX dialog's chat id, not the user id).
    typing: async (token, chatId) => {
      for (const action of ['mark_seen', 'typing_on'] as const) {
        const r = await max.sendAction(token, chatId, action);
        if (!r.ok) throw new Error(r.failure.description);
      }
    },
  };
});
