/**
 * Chromium for the browser tests of `flower ui`: where it is (FLOWER_CHROMIUM, else Debian's), and one
 * headless context on a fresh profile folder (removed by the caller's `after`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = [process.env.FLOWER_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((f): f is string => !!f && fs.existsSync(f));

export async function launchBrowser(viewport?: { width: number; height: number }): Promise<{ browser: BrowserContext; profile: string }> {
  if (!CHROMIUM) throw new Error('no Chromium: the test should have been skipped');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    ...(viewport ? { viewport } : {}),
  });
  return { browser, profile };
}
