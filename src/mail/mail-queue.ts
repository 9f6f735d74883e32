/**
 * Mail leaves off the request path: a request puts its mail on a bounded queue and answers; one sender drains the
 * queue through the transport. A failing or slow mail server never fails nor slows the request that caused the
 * mail: the failure is logged (recipient's domain and the server's error code, never credentials nor the link,
 * which carries a token), and a full queue drops the new mail with a warning.
 */
import type { Transporter } from 'nodemailer';

export interface QueuedMail {
  to: string;
  subject: string;
  /** Rendered when its turn comes (the project settings are read then, not on the request path). */
  html: () => Promise<string>;
}

export interface MailLog {
  warn(object: unknown, msg: string): void;
  info(object: unknown, msg: string): void;
}

/** Where a mail went, for logs: the domain only (the address is personal data). */
function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1);
}

export class MailQueue {
  private readonly waiting: QueuedMail[] = [];
  private draining: Promise<void> | null = null;
  /** Mails sent and failed since start (server info and tests). */
  readonly counts = { sent: 0, failed: 0, dropped: 0 };

  constructor(
    private readonly transport: Transporter | null,
    private readonly from: string,
    private readonly max: number,
    private readonly log: MailLog,
  ) {}

  /** Never throws and never waits for the mail server. */
  push(mail: QueuedMail): void {
    if (this.transport === null) {
      this.log.warn({ to: domainOf(mail.to), subject: mail.subject }, 'Mail not sent: EMAIL_TRANSPORT is not set');
      return;
    }
    if (this.waiting.length >= this.max) {
      this.counts.dropped++;
      this.log.warn({ to: domainOf(mail.to), queued: this.waiting.length }, 'Mail dropped: the mail queue is full');
      return;
    }
    this.waiting.push(mail);
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
    });
  }

  /** Resolves once every queued mail has been tried (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    // Let the request that queued the mail answer first.
    await new Promise((resolve) => setImmediate(resolve));
    for (let mail = this.waiting.shift(); mail; mail = this.waiting.shift()) {
      try {
        const html = await mail.html();
        await this.transport!.sendMail({ from: this.from, to: mail.to, subject: mail.subject, html });
        this.counts.sent++;
      } catch (error) {
        this.counts.failed++;
        const { code, responseCode } = error as { code?: unknown; responseCode?: unknown };
        this.log.warn({ to: domainOf(mail.to), code, responseCode }, 'Mail not sent: the mail server failed');
      }
    }
  }
}
