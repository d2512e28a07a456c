import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, IsNull, Not } from 'typeorm';
import { v4 as uuidv4 } from 'uuid';
import { BatchedLookup, EntityRows } from '@app/database';
import { AppEntity } from './app.entity';

/** What onboarding records about a connected WhatsApp number. */
export interface AppConnection {
  phone: string;
  wabaId: string;
  phoneNumberId: string;
}

/** The only place that queries apps. */
@Injectable()
export class WaAppsRepository {
  /** Apps by id, read without the query builder (every send reads its app). */
  private readonly rows: EntityRows<AppEntity>;

  constructor(@InjectDataSource() private readonly ds: DataSource) {
    this.rows = new EntityRows(ds, AppEntity);
  }

  /** A new app: INACTIVE, TIER_NOT_SET, UNKNOWN quality, no number yet. */
  async create(userId: string, name: string): Promise<AppEntity> {
    const repo = this.ds.getRepository(AppEntity);
    const app = repo.create({
      uuid: uuidv4(),
      userId,
      name,
      status: 'INACTIVE',
      messageLimit: 'TIER_NOT_SET',
      phoneQuality: 'UNKNOWN',
      phone: null,
      wabaId: null,
      phoneNumberId: null,
      isMmLiteSupported: false,
      isStopped: false,
      messageCap: null,
      restricted: false,
      restrictedUntil: null,
    });
    return repo.save(app);
  }

  /** The lookups of concurrent requests (every send reads its app) share one query. */
  findById(id: number): Promise<AppEntity | null> {
    return this.byId.one(id);
  }

  private readonly byId = new BatchedLookup<number, AppEntity>({
    load: (ids) => this.rows.byIds(ids),
    queryKey: String,
    rowKey: (app) => String(app.id),
  });

  /** The app with this id when it belongs to the tenant; null when it does not exist or is another tenant's. */
  findForTenant(id: number, userId: string): Promise<AppEntity | null> {
    return this.ds.getRepository(AppEntity).findOneBy({ id, userId });
  }

  findByUuid(uuid: string): Promise<AppEntity | null> {
    return this.ds.getRepository(AppEntity).findOneBy({ uuid });
  }

  findByWabaId(wabaId: string): Promise<AppEntity | null> {
    return this.ds.getRepository(AppEntity).findOneBy({ wabaId });
  }

  findByPhoneNumberId(phoneNumberId: string): Promise<AppEntity | null> {
    return this.ds.getRepository(AppEntity).findOneBy({ phoneNumberId });
  }

  /** Apps whose number is connected to the channel (template sync works on these). */
  findConnected(): Promise<AppEntity[]> {
    return this.ds.getRepository(AppEntity).find({
      where: { status: 'ACTIVE', wabaId: Not(IsNull()), phoneNumberId: Not(IsNull()) },
      order: { id: 'ASC' },
    });
  }

  /** Apps with a number on the channel, active or blocked by it (the account signals pull reads these). */
  findWithNumber(): Promise<AppEntity[]> {
    return this.ds.getRepository(AppEntity).find({
      where: { status: In(['ACTIVE', 'BLOCKED']), wabaId: Not(IsNull()), phoneNumberId: Not(IsNull()) },
      order: { id: 'ASC' },
    });
  }

  /**
   * Records the connected number and activates the app, once: null when the app already has a
   * number (a second completion of the same link changes nothing).
   */
  async connect(id: number, c: AppConnection): Promise<AppEntity | null> {
    const res = await this.ds
      .createQueryBuilder()
      .update(AppEntity)
      .set({ phone: c.phone, wabaId: c.wabaId, phoneNumberId: c.phoneNumberId, status: 'ACTIVE' })
      .where('id = :id AND waba_id IS NULL', { id })
      .execute();
    return (res.affected ?? 0) > 0 ? this.findById(id) : null;
  }
}
