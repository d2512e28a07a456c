import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type {
  TemplateButtonType,
  TemplateCategory,
  TemplateFlowAction,
  TemplateQuality,
  TemplateStatus,
  TemplateType,
} from '@app/contracts';

/** A text component (header or body) as written, with its example and the variable values taken from it. */
export interface StoredTextComponent {
  /** The text with its `{{n}}` variables, as submitted. */
  text: string;
  /** The example text, as submitted. */
  example: string;
  /** The example value of each variable, `{{1}}` first; empty when the text has no variables. */
  placeholders: string[];
}

export interface StoredButton {
  type: TemplateButtonType;
  text: string;
  /** URL buttons: the URL, possibly ending in `{{1}}`. */
  url?: string;
  /** URL buttons with a variable: the full example URL submitted to the channel. */
  example?: string;
  /** URL buttons: the example value of `{{1}}` (empty when the URL has no variable). */
  placeholders?: string[];
  /** PHONE_NUMBER buttons: the number called. */
  phone_number?: string;
  /** FLOW buttons: the Flow, how it opens, and its first screen. */
  flow_id?: string;
  flow_action?: TemplateFlowAction;
  navigate_screen?: string;
}

export interface FailureDetails {
  code: string;
  message: string;
}

/** A message template of an app, mirrored from the channel's moderation. */
@Entity({ name: 'templates' })
@Index(['appId', 'name', 'language'], { unique: true })
@Index(['appId', 'waId'])
export class TemplateEntity {
  @PrimaryGeneratedColumn('increment')
  id: number;

  @Column('integer', { name: 'app_id' })
  appId: number;

  /** The channel's identifier of the template. */
  @Column('text', { name: 'wa_id' })
  waId: string;

  @Column('text')
  name: string;

  @Column('text')
  language: string;

  @Column('text')
  category: TemplateCategory;

  @Column('text')
  type: TemplateType;

  @Column('text')
  status: TemplateStatus;

  @Column('text')
  quality: TemplateQuality;

  /** IMAGE, VIDEO and DOCUMENT templates: the example media submitted for moderation. */
  @Column('text', { name: 'media_url', nullable: true })
  mediaUrl: string | null;

  @Column('jsonb', { nullable: true })
  header: StoredTextComponent | null;

  @Column('jsonb')
  body: StoredTextComponent;

  @Column('jsonb', { nullable: true })
  footer: { text: string } | null;

  @Column('jsonb')
  buttons: StoredButton[];

  @Column('jsonb', { name: 'failure_details', nullable: true })
  failureDetails: FailureDetails | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}
