/**
 * Renders the mail templates (liquidjs): the built-in ones, each replaced by `<name>.liquid` from
 * EMAIL_TEMPLATES_PATH when that folder has one (read once at start). Every output is HTML-escaped, so an address or
 * name a caller chose cannot add markup or links to a mail.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Liquid } from 'liquidjs';
import { ConfigError } from '../config/env-values.js';
import { DEFAULT_TEMPLATES } from './default-templates.js';

const EXT = '.liquid';
/** A template file larger than this is refused at start (a mistake, not a template). */
const MAX_TEMPLATE_BYTES = 256 * 1024;

function overrides(folder: string | null): Map<string, string> {
  const found = new Map<string, string>();
  if (folder === null) return found;
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    throw new ConfigError('EMAIL_TEMPLATES_PATH', `cannot read the folder "${folder}"`);
  }
  for (const name of names) {
    if (!name.endsWith(EXT)) continue;
    const file = path.join(folder, name);
    if (statSync(file).size > MAX_TEMPLATE_BYTES)
      throw new ConfigError('EMAIL_TEMPLATES_PATH', `${name} is larger than ${MAX_TEMPLATE_BYTES} bytes`);
    found.set(name.slice(0, -EXT.length), readFileSync(file, 'utf8'));
  }
  return found;
}

export class MailTemplates {
  private readonly liquid: Liquid;

  constructor(folder: string | null) {
    const templates: Record<string, string> = Object.create(null);
    for (const [name, text] of [...DEFAULT_TEMPLATES, ...overrides(folder)]) templates[`${name}${EXT}`] = text;
    this.liquid = new Liquid({ templates, extname: EXT, outputEscape: 'escape', strictFilters: true });
  }

  render(template: string, data: Record<string, unknown>): Promise<string> {
    return this.liquid.renderFile(template, data) as Promise<string>;
  }
}
