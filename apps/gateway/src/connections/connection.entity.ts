import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { Channel } from '@app/contracts';

/** Every registered channel can be connected (its registration's `connection` says how). */
export type ConnectionChannel = Channel;
/** The built-in channels an account connects with a bot token (`connectsWithBot`). */
export type BotChannel = Exclude<ConnectionChannel, 'whatsapp' | 'course'>;

/** active: sends and callbacks flow; failing: the channel refuses the connection's credentials; disconnected: deleted. */
export type ConnectionState = 'active' | 'failing' | 'disconnected';

/** A channel an account connected: a linked WhatsApp app, a Telegram or MAX bot, or a course platform. */
@Entity({ name: 'connections' })
export class ConnectionEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'account_id' })
  accountId: string;

  @Column('text')
  channel: ConnectionChannel;

  @Column('text')
  state: ConnectionState;

  /** WhatsApp: the linked api app. */
  @Column('integer', { name: 'app_id', nullable: true })
  appId: number | null;

  /** Bots: the bot's id and username at the channel. */
  @Column('text', { name: 'bot_id', nullable: true })
  botId: string | null;

  @Column('text', { name: 'bot_username', nullable: true })
  botUsername: string | null;

  /** Bots: the token; course: the platform's api key; sealed (AES-256-GCM), dropped when the connection is deleted. */
  @Column('text', { nullable: true })
  credential: string | null;

  /** Bots and course: SHA-256 of the secret the channel (or platform) sends back with every call. */
  @Column('char', { length: 64, name: 'inbound_secret_hash', nullable: true })
  inboundSecretHash: string | null;

  /** Course: the platform's root URL, where status events are posted (base_url + events_path). */
  @Column('text', { name: 'base_url', nullable: true })
  baseUrl: string | null;

  @Column('text', { name: 'events_path', nullable: true })
  eventsPath: string | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}
