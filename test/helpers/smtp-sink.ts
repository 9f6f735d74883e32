/**
 * The SMTP server of the mail tests: test/helpers/smtp-sink.mjs (the smtp-server package) in a child process on a
 * free loopback port. `next(to)` waits for the next mail to an address; `link(mail)` reads the first link out of
 * its HTML (quoted-printable decoded, as nodemailer encodes long lines).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort, killChild, waitForPort } from './child-server.js';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'smtp-sink.mjs');

export class SmtpSink {
  readonly mails: ReceivedMail[] = [];
  private waiters: (() => void)[] = [];
  private stopped = false;

  private constructor(
    readonly port: number,
    private readonly child: ChildProcess,
  ) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const message = JSON.parse(line) as ReceivedMail | { listening: number };
      if ('raw' in message) {
        this.mails.push(message);
        for (const wake of this.waiters.splice(0)) wake();
      }
    });
  }

  static async start(env: Record<string, string> = {}): Promise<SmtpSink> {
    const port = await freePort();
    const child = spawn(process.execPath, [SCRIPT, String(port)], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    });
    const sink = new SmtpSink(port, child);
    await waitForPort(port, 10_000, 'SMTP sink');
    return sink;
  }

  /** The settings that send Strata's mail here. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      EMAIL_TRANSPORT: 'smtp',
      EMAIL_SMTP_HOST: '127.0.0.1',
      EMAIL_SMTP_PORT: String(this.port),
      EMAIL_SMTP_IGNORE_TLS: 'true',
      EMAIL_FROM: 'strata@example.com',
      EMAIL_VERIFY_SETUP: 'false',
      ...extra,
    };
  }

  /** The first mail to `to` not yet taken; waits up to `ms` for it. */
  async next(to: string, ms = 10_000): Promise<ReceivedMail> {
    const deadline = Date.now() + ms;
    for (;;) {
      const index = this.mails.findIndex((mail) => mail.to.includes(to));
      if (index >= 0) return this.mails.splice(index, 1)[0]!;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no mail to ${to}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Stops the server (again: nothing; killChild would wait for an exit already seen after a SIGKILL). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await killChild(this.child);
  }
}

/** The body of a mail, quoted-printable decoded. */
export function mailBody(mail: ReceivedMail): string {
  const body = mail.raw.slice(mail.raw.indexOf('\r\n\r\n') + 4);
  return body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The first link of a mail that carries a token, and that token. */
export function mailLink(mail: ReceivedMail): { url: URL; token: string } {
  const href = /href="([^"]*token=[^"]*)"/.exec(mailBody(mail))?.[1];
  if (!href) throw new Error(`no link in mail:\n${mail.raw}`);
  const url = new URL(href.replace(/&amp;/g, '&'));
  return { url, token: url.searchParams.get('token')! };
}
