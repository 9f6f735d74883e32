/**
 * The mail service: the SMTP transport (nodemailer) built from EMAIL_*, the templates, and the queue. Flows call
 * `send(template, to, data)`; the project's name, colour, logo and URL are added to every template's data when the
 * mail is rendered.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { EmailConfig } from '../config/email-config.js';
import { SUBJECTS, type MailTemplate } from './default-templates.js';
import { MailQueue, type MailLog } from './mail-queue.js';
import { MailTemplates } from './mail-templates.js';

export interface MailerDeps {
  config: EmailConfig;
  /** PUBLIC_URL ('/' when unset): the logo's address in mails. */
  publicUrl: string;
  project: () => Promise<{ name: string; color: string; logo: string | null; url: string | null }>;
  log: MailLog;
}

function transportOf(config: EmailConfig): Transporter | null {
  if (config.transport !== 'smtp') return null;
  const { host, port, user, password, secure, ignoreTls, pool, name } = config.smtp;
  const options: SMTPTransport.Options = {
    host,
    port,
    secure,
    ignoreTLS: ignoreTls,
    ...(name ? { name } : {}),
    ...(user || password ? { auth: { user: user ?? '', pass: password ?? '' } } : {}),
    // A mail server that does not answer is given up on instead of holding the queue.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  };
  // The pooled transport takes the same options and keeps connections open between mails.
  if (!pool) return nodemailer.createTransport(options);
  const pooled: SMTPPool.Options = { ...options, pool: true };
  return nodemailer.createTransport(pooled);
}

export class Mailer {
  readonly queue: MailQueue;
  private readonly transport: Transporter | null;
  private readonly templates: MailTemplates;

  constructor(private readonly deps: MailerDeps) {
    this.transport = transportOf(deps.config);
    this.templates = new MailTemplates(deps.config.templatesPath);
    this.queue = new MailQueue(this.transport, deps.config.from, deps.config.queueMax, deps.log);
  }

  /** Whether mail can be sent at all (EMAIL_TRANSPORT set). */
  get enabled(): boolean {
    return this.transport !== null;
  }

  /** EMAIL_VERIFY_SETUP: one connection check at start, logged; never fails the start. */
  verify(): void {
    if (!this.transport || !this.deps.config.verifySetup) return;
    this.transport.verify().then(
      () => this.deps.log.info({}, 'Mail server reachable'),
      (error: { code?: unknown }) => this.deps.log.warn({ code: error.code }, 'Mail server check failed'),
    );
  }

  send(template: MailTemplate, to: string, data: Record<string, unknown>, subject = SUBJECTS[template]): void {
    this.queue.push({ to, subject, html: () => this.render(template, data) });
  }

  /**
   * Sends one mail now and waits for the server's answer (a flow's mail operation: a failure fails the operation, so
   * its delivery is tried again). `template`: a Liquid template by name (EMAIL_TEMPLATES_PATH or a default) with the
   * project's data added; else `html` as given.
   */
  async sendNow(mail: {
    to: string[];
    subject: string;
    html?: string;
    template?: string;
    data?: Record<string, unknown>;
  }) {
    if (!this.transport) throw new Error('Mail is not set up (EMAIL_TRANSPORT)');
    const html = mail.template ? await this.render(mail.template as MailTemplate, mail.data ?? {}) : (mail.html ?? '');
    await this.transport.sendMail({ from: this.deps.config.from, to: mail.to, subject: mail.subject, html });
  }

  close(): void {
    this.transport?.close();
  }

  private async render(template: MailTemplate, data: Record<string, unknown>): Promise<string> {
    const project = await this.deps.project();
    const base = this.deps.publicUrl === '/' ? null : this.deps.publicUrl;
    return this.templates.render(template, {
      ...data,
      projectName: project.name,
      projectColor: project.color,
      projectLogo: project.logo && base ? `${base}/assets/${project.logo}` : null,
      projectUrl: project.url,
    });
  }
}
