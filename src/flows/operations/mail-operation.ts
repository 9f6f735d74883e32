/**
 * Directus's mail operation through Strata's mailer (src/mail): `to` (an address or a list), `subject`, and either
 * `type: 'template'` with `template` (a Liquid template by name: EMAIL_TEMPLATES_PATH or a default) and `data`, or a
 * `body` written as `markdown` (the default, rendered to HTML) or `wysiwyg` (HTML as is). Sent at once and awaited:
 * a refused mail fails the operation (and an outbox delivery is tried again).
 */
import { marked } from 'marked';
import { asRecord } from '../safe-objects.js';
import { OperationError, type OperationHandler } from './operation-context.js';

/** Recipients of one mail operation at most. */
const MAX_RECIPIENTS = 100;
const ADDRESS = /^[^\s@<>,;]+@[^\s@<>,;]+$/;

function recipients(value: unknown): string[] {
  const list = (Array.isArray(value) ? value : String(value ?? '').split(','))
    .map((item) => String(item).trim())
    .filter(Boolean);
  if (list.length === 0) throw new OperationError('The mail has no recipient ("to")', null);
  if (list.length > MAX_RECIPIENTS)
    throw new OperationError(`A mail goes to ${MAX_RECIPIENTS} recipients at most`, null);
  const bad = list.find((address) => !ADDRESS.test(address));
  if (bad !== undefined) throw new OperationError(`"${bad}" is not an email address`, null);
  return list;
}

export const mail: OperationHandler = async (options, { services }) => {
  if (!services.mailer?.enabled) throw new OperationError('Mail is not set up (EMAIL_TRANSPORT)', null);
  const to = recipients(options.to);
  const subject = String(options.subject ?? '');
  if (options.type === 'template') {
    const template = String(options.template ?? '');
    if (!/^[\w-]+$/.test(template)) throw new OperationError(`"${template}" is not a template name`, null);
    await services.mailer.sendNow({ to, subject, template, data: asRecord(options.data) });
    return null;
  }
  const body = String(options.body ?? '');
  const html = options.type === 'wysiwyg' ? body : await marked.parse(body, { async: true });
  await services.mailer.sendNow({ to, subject, html });
  return null;
};

/** Directus's throw-error: fails the operation with `{ code, status, message }` as its value. */
export const throwError: OperationHandler = async (options) => {
  const message = String(options.message ?? 'An error was thrown');
  const status = Number(options.status) >= 400 && Number(options.status) < 600 ? Number(options.status) : 500;
  const code = String(options.code ?? 'FAILED_FLOW');
  throw new OperationError(message, { message, status, code });
};
