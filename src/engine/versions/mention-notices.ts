/**
 * A comment's mentions notify, as Directus 11's comments service does: once the comment is committed, each mentioned
 * user who may read the commented item — judged with their own rights — gets a service_notifications row (subject
 * "You were mentioned in <collection>", the comment quoted with mentions shown as names, a link to the item in the
 * app, the collection, the item, the sender). A mentioned user who may not read the item gets nothing. Email of
 * notifications is the mailer's (`NotificationMailer`); without one they are only stored.
 */
import type { Accountability } from '../../permissions/accountability.js';
import type { Payload } from '../../request/write-body.js';
import { ServiceError } from '../../errors/catalogue.js';
import type { Key } from '../../plan/mutation-plan.js';
import type { ItemsWriter } from '../write/items-writer.js';
import type { ItemLookups, Row } from './item-lookups.js';
import { mentionedUsers } from './mentions.js';
import { trusted } from './trusted.js';

export interface Notification {
  recipient: string;
  sender: string | null;
  subject: string;
  message: string;
  collection: string;
  item: string;
}

/** Where notifications are emailed from (the mail issue plugs in here): called with the rows once stored. */
export interface NotificationMailer {
  notified(notifications: readonly Notification[]): Promise<void>;
}

export interface MentionNoticesDeps {
  lookups: ItemLookups;
  writer: ItemsWriter;
  /** The rights of a mentioned user (null: no active user of that id). */
  accountabilityOf: (user: string) => Promise<Accountability | null>;
  /** The address the app is reached at (PUBLIC_URL), for the link to the item; '/' for a relative link. */
  publicUrl: string;
  mailer?: NotificationMailer;
}

export class MentionNotices {
  constructor(private readonly deps: MentionNoticesDeps) {}

  /** The writer's hook for created comments. */
  readonly created = async (_keys: readonly Key[], payloads: readonly Payload[], by: Accountability) => {
    const notifications: Notification[] = [];
    for (const payload of payloads) notifications.push(...(await this.forComment(payload, by)));
    if (!notifications.length) return;
    const target = await this.deps.writer.open('service_notifications', 'create', trusted(by), {
      system: true,
      reread: 'rows',
    });
    await this.deps.writer.create(target, notifications as unknown as Payload[], true, { fields: ['id'] });
    await this.deps.mailer?.notified(notifications);
  };

  private async forComment(payload: Payload, by: Accountability): Promise<Notification[]> {
    const comment = typeof payload.comment === 'string' ? payload.comment : '';
    const mentioned = mentionedUsers(comment);
    if (!mentioned.length) return [];
    const collection = String(payload.collection);
    const item = String(payload.item);
    const names = await this.deps.lookups.users([...mentioned, ...(by.user ? [by.user] : [])]);
    const quoted = quote(comment, names);
    const href = `${this.deps.publicUrl.replace(/\/+$/, '')}/admin/content/${encodeURIComponent(collection)}/${encodeURIComponent(item)}`;
    const sender = by.user ? names.get(by.user.toLowerCase()) : undefined;
    const out: Notification[] = [];
    for (const user of mentioned) {
      const rights = await this.deps.accountabilityOf(user);
      if (!rights || !(await this.mayRead(collection, item, rights))) continue;
      out.push({
        recipient: user,
        sender: by.user,
        subject: `You were mentioned in ${collection}`,
        message: `\nHello ${userName(names.get(user))},\n\n${userName(sender)} has mentioned you in a comment:\n\n${quoted}\n\n<a href="${href}">Click here to view.</a>\n`,
        collection,
        item,
      });
    }
    return out;
  }

  private async mayRead(collection: string, item: string, rights: Accountability): Promise<boolean> {
    try {
      await this.deps.lookups.assertReadable(collection, item, rights);
      return true;
    } catch (error) {
      if (error instanceof ServiceError) return false;
      throw error;
    }
  }
}

/** The comment as a quote, each mention shown as the user's name, as Directus writes it. */
function quote(comment: string, names: Map<string, Row>): string {
  const shown = comment.replace(/@([0-9a-f-]{36})/gi, (mention, id: string) => {
    const user = names.get(id.toLowerCase());
    return user ? `<em>${userName(user)}</em>` : mention;
  });
  return `> ${shown.replace(/\n+/g, '\n> ')}`;
}

/** Directus's `userName`: first and last name, else the first name, the email, or "Unknown User"; HTML-escaped. */
function userName(user: Row | undefined): string {
  const first = typeof user?.first_name === 'string' ? user.first_name : '';
  const last = typeof user?.last_name === 'string' ? user.last_name : '';
  const email = typeof user?.email === 'string' ? user.email : '';
  const name = first && last ? `${first} ${last}` : first || email || 'Unknown User';
  return name.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
