/**
 * A comment's mentions by mail, as Directus's notifications service sends them: each mentioned user who has an email
 * address, is active and keeps `email_notifications` on gets the `user-mention` template (replaceable from
 * EMAIL_TEMPLATES_PATH), queued like every other mail, so a failing mail server never fails the comment.
 */
import type { MentionMail, NotificationMailer } from '../engine/versions/mention-notices.js';
import type { Mailer } from './mailer.js';

/** Whether a mentioned user is mailed: an address, an active account, and notifications by mail not turned off. */
export function wantsMail(recipient: Readonly<Record<string, unknown>>): boolean {
  const email = recipient.email;
  const off = recipient.email_notifications === false || recipient.email_notifications === 0;
  return typeof email === 'string' && email.includes('@') && recipient.status === 'active' && !off;
}

export class MentionMailer implements NotificationMailer {
  constructor(private readonly mailer: Mailer) {}

  mentioned(mails: readonly MentionMail[]): void {
    // Without EMAIL_TRANSPORT mentions are only stored (no "mail not sent" line per mention).
    if (!this.mailer.enabled) return;
    for (const mail of mails) {
      if (!wantsMail(mail.recipient)) continue;
      this.mailer.send(
        'user-mention',
        String(mail.recipient.email),
        {
          recipient: mail.recipientName,
          sender: mail.senderName,
          comment: mail.comment,
          collection: mail.collection,
          item: mail.item,
          url: mail.url,
        },
        mail.subject,
      );
    }
  }
}
