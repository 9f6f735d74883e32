/**
 * Debian's chromium driven by playwright-core (no browser download): CHROMIUM_PATH, or chromium found on PATH; the
 * e2e tests skip with a message when there is none (`.ci/run` installs it).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export function chromiumPath(): string | null {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || null;
    } catch {
      // not this name
    }
  }
  return null;
}

export async function launch(executablePath: string): Promise<Browser> {
  // Root (CI) cannot use chromium's sandbox; the browser only ever visits the Strata the test started on loopback.
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

const SCREENSHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/screenshots');

/** With STUDIO_SCREENSHOTS=1, saves the page as docs/screenshots/<name>.png (the README shows them). */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  if (process.env.STUDIO_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage });
}
