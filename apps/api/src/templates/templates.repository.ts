import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, MoreThan } from 'typeorm';
import { isPgError, PG_ERROR } from '@app/database';
import type { TemplateCategory, TemplateQuality, TemplateStatus } from '@app/contracts';
import { FailureDetails, TemplateEntity } from './template.entity';

export type NewTemplate = Omit<TemplateEntity, 'id' | 'createdAt' | 'updatedAt'>;
export type StoredTemplateContent = Pick<TemplateEntity, 'category' | 'header' | 'body' | 'footer' | 'buttons'>;
export interface TemplateState {
  status: TemplateStatus;
  quality: TemplateQuality;
  failureDetails: FailureDetails | null;
}

/** Raised when an app already has a template with this name and language. */
export class DuplicateTemplateError extends Error {
  constructor() {
    super('duplicate template name and language');
    this.name = 'DuplicateTemplateError';
  }
}

/** The only place that queries templates. */
@Injectable()
export class TemplatesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  private get repo() {
    return this.ds.getRepository(TemplateEntity);
  }

  async insert(t: NewTemplate): Promise<TemplateEntity> {
    try {
      return await this.repo.save(this.repo.create(t));
    } catch (err) {
      if (isPgError(err, PG_ERROR.uniqueViolation)) {
        throw new DuplicateTemplateError();
      }
      throw err;
    }
  }

  findForApp(appId: number, id: number): Promise<TemplateEntity | null> {
    return this.repo.findOneBy({ appId, id });
  }

  listForApp(appId: number): Promise<TemplateEntity[]> {
    return this.repo.find({ where: { appId }, order: { id: 'ASC' } });
  }

  /** An app's templates by id, `batch` at a time (a list written as it is read). */
  async *batchesForApp(appId: number, batch: number): AsyncGenerator<TemplateEntity[]> {
    let after = 0;
    for (;;) {
      const rows = await this.repo.find({ where: { appId, id: MoreThan(after) }, order: { id: 'ASC' }, take: batch });
      if (rows.length) yield rows;
      if (rows.length < batch) return;
      after = rows[rows.length - 1].id;
    }
  }

  async exists(appId: number, name: string, language: string): Promise<boolean> {
    return this.repo.existsBy({ appId, name, language });
  }

  /** The template a channel callback names: by its channel id, else by name and language. */
  async findByChannelRef(
    appId: number,
    waId: string,
    name?: string,
    language?: string,
  ): Promise<TemplateEntity | null> {
    const byId = waId ? await this.repo.findOneBy({ appId, waId }) : null;
    if (byId || !name || !language) return byId;
    return this.repo.findOneBy({ appId, name, language });
  }

  /**
   * An APPROVED template of the app, by name and, when given, language (without one: the oldest
   * approved language of that name). Only approved templates can be sent.
   */
  findApproved(appId: number, name: string, language?: string): Promise<TemplateEntity | null> {
    return this.repo.findOne({
      where: { appId, name, status: 'APPROVED', ...(language ? { language } : {}) },
      order: { id: 'ASC' },
    });
  }

  /** New content after an edit: back to moderation. */
  async updateContent(id: number, content: StoredTemplateContent, status: TemplateStatus): Promise<void> {
    await this.repo.update({ id }, { ...content, status, failureDetails: null });
  }

  async updateState(id: number, state: TemplateState): Promise<void> {
    await this.repo.update({ id }, state);
  }

  /**
   * Moves a template from `from` to another category; false when its category is no longer `from`
   * (a concurrent callback or sync moved it first), so one change is applied, and told, once.
   */
  async moveCategory(id: number, from: TemplateCategory, to: TemplateCategory): Promise<boolean> {
    const result = await this.repo.update({ id, category: from }, { category: to });
    return (result.affected ?? 0) > 0;
  }

  async delete(id: number): Promise<void> {
    await this.repo.delete({ id });
  }
}
