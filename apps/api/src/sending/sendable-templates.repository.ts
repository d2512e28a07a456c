import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { WindowClosedTemplate } from '@app/contracts';
import { BatchedLookup } from '@app/database';
import { TemplateEntity } from '../templates/template.entity';
import type { SendableTemplate } from './template-message';

const templateKey = (appId: number, name: string) => `${appId} ${name}`;

/** The templates a send may use, read as a send reads them (a read-only look at templates). */
@Injectable()
export class SendableTemplatesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * The app's templates of this name, every language and status (read-only look at templates).
   * Plain SQL, and the lookups of concurrent sends share one query: it runs on every template send.
   */
  findTemplates(appId: number, name: string): Promise<SendableTemplate[]> {
    return this.templatesByName.all({ appId, name });
  }

  /** Up to `limit` APPROVED templates of the app, by name and language (what a closed window can still send). */
  approvedOf(appId: number, limit: number): Promise<WindowClosedTemplate[]> {
    return this.ds.query(
      `SELECT name, language, category FROM templates
        WHERE app_id = $1 AND status = 'APPROVED' ORDER BY name, language LIMIT $2`,
      [appId, limit],
    );
  }

  private readonly templatesByName = new BatchedLookup<
    { appId: number; name: string },
    SendableTemplate & { key: string }
  >({
    queryKey: (q) => templateKey(q.appId, q.name),
    rowKey: (t) => t.key,
    load: async (queries) => {
      const rows: (Pick<
        TemplateEntity,
        'id' | 'name' | 'language' | 'category' | 'type' | 'status' | 'header' | 'body' | 'footer' | 'buttons'
      > & { app_id: number })[] = await this.ds.query(
        `SELECT t.app_id, t.id, t.name, t.language, t.category, t.type, t.status, t.header, t.body, t.footer, t.buttons
           FROM templates t JOIN unnest($1::integer[], $2::text[]) AS q(app_id, name)
             ON t.app_id = q.app_id AND t.name = q.name
          ORDER BY t.id`,
        [queries.map((q) => q.appId), queries.map((q) => q.name)],
      );
      return rows.map((t) => ({
        key: templateKey(t.app_id, t.name),
        id: t.id,
        name: t.name,
        language: t.language,
        category: t.category,
        type: t.type,
        status: t.status,
        header: t.header ? { text: t.header.text } : null,
        body: { text: t.body.text },
        footer: t.footer ? { text: t.footer.text } : null,
        buttons: (t.buttons ?? []).map((b) => ({ type: b.type, text: b.text, url: b.url })),
      }));
    },
  });
}
