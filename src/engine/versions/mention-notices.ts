/**
 * A comment's mentions notify, as Directus 11's comments service does: once the comment is committed, each mentioned
 * user who may read the commented item — judged with their own rights — gets a service_notifications row (subject
 * "You were mentioned in <collection>", the comment quoted with mentions shown as names, a link to the item in the
 * app, the collection, the item, the sender). A mentioned user who may not read the item gets nothing. Each stored
 * notification is also handed to the mailer (`NotificationMailer`, given once mail is set up), which decides whom
 * to email; without one they are only stored.
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

/** What a mention's mail says: plain text (the mail's template escapes it), with the recipient's row. */
export interface MentionMail {
  /** The mentioned user: id, first_name, last_name, email, status, email_notifications. */
  recipient: Row;
  subject: string;
  /** The names as the message shows them (Directus's `userName`), unescaped. */
  recipientName: string;
  senderName: string;
  /** The comment, each mention shown as the user's name. */
  comment: string;
  collection: string;
  item: string;
  /** The item in the app (PUBLIC_URL/admin/content/...), null without PUBLIC_URL (a mail needs a full address). */
  url: string | null;
}

/** Where notifications are emailed from: called once they are stored; never throws nor waits for a mail server. */
export interface NotificationMailer {
  mentioned(mails: readonly MentionMail[]): void;
}

export interface MentionNoticesDeps {
  lookups: ItemLookups;
  writer: ItemsWriter;
  /** The rights of a mentioned user (null: no active user of that id). */
  accountabilityOf: (user: string) => Promise<Accountability | null>;
  /** The address the app is reached at (PUBLIC_URL), for the link to the item; '/' for a relative link. */
  publicUrl: string;
}

interface Notice {
  row: Notification;
  mail: MentionMail;
}

export class MentionNotices {
  private mailer: NotificationMailer | null = null;

  constructor(private readonly deps: MentionNoticesDeps) {}

  /** Mail is built after the engine (it reads the project settings through it): it plugs in here. */
  mailTo(mailer: NotificationMailer): void {
    this.mailer = mailer;
  }

  /** The writer's hook for created comments. */
  readonly created = async (_keys: readonly Key[], payloads: readonly Payload[], by: Accountability) => {
    const notices: Notice[] = [];
    for (const payload of payloads) notices.push(...(await this.forComment(payload, by)));
    if (!notices.length) return;
    const notifications = notices.map((notice) => notice.row);
    const target = await this.deps.writer.open('service_notifications', 'create', trusted(by), {
      system: true,
      reread: 'rows',
    });
    await this.deps.writer.create(target, notifications as unknown as Payload[], true, { fields: ['id'] });
    this.mailer?.mentioned(notices.map((notice) => notice.mail));
  };

  private async forComment(payload: Payload, by: Accountability): Promise<Notice[]> {
    const comment = typeof payload.comment === 'string' ? payload.comment : '';
    const mentioned = mentionedUsers(comment);
    if (!mentioned.length) return [];
    const collection = String(payload.collection);
    const item = String(payload.item);
    const names = await this.deps.lookups.users([...mentioned, ...(by.user ? [by.user] : [])]);
    const quoted = quote(comment, names);
    const base = this.deps.publicUrl.replace(/\/+$/, '');
    const href = `${base}/admin/content/${encodeURIComponent(collection)}/${encodeURIComponent(item)}`;
    const sender = by.user ? names.get(by.user.toLowerCase()) : undefined;
    const out: Notice[] = [];
    for (const user of mentioned) {
      const rights = await this.deps.accountabilityOf(user);
      if (!rights || !(await this.mayRead(collection, item, rights))) continue;
      const subject = `You were mentioned in ${collection}`;
      const row = {
        recipient: user,
        sender: by.user,
        subject,
        message: `\nHello ${userName(names.get(user))},\n\n${userName(sender)} has mentioned you in a comment:\n\n${quoted}\n\n<a href="${href}">Click here to view.</a>\n`,
        collection,
        item,
      };
      const mail: MentionMail = {
        recipient: names.get(user) ?? { id: user },
        subject,
        recipientName: plainName(names.get(user)),
        senderName: plainName(sender),
        comment: withNames(comment, names, plainName),
        collection,
        item,
        url: base.startsWith('http') ? href : null,
      };
      out.push({ row, mail });
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
  const shown = withNames(comment, names, (user) => `<em>${userName(user)}</em>`);
  return `> ${shown.replace(/\n+/g, '\n> ')}`;
}

function withNames(comment: string, names: Map<string, Row>, shown: (user: Row) => string): string {
  return comment.replace(/@([0-9a-f-]{36})/gi, (mention, id: string) => {
    const user = names.get(id.toLowerCase());
    return user ? shown(user) : mention;
  });
}

/** Directus's `userName`: first and last name, else the first name, the email, or "Unknown User". */
function plainName(user: Row | undefined): string {
  const first = typeof user?.first_name === 'string' ? user.first_name : '';
  const last = typeof user?.last_name === 'string' ? user.last_name : '';
  const email = typeof user?.email === 'string' ? user.email : '';
  return first && last ? `${first} ${last}` : first || email || 'Unknown User';
}

/** The name HTML-escaped, for the stored message (which is HTML). */
function userName(user: Row | undefined): string {
  return plainName(user).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
