/** Terminal language: FLOWER_LANG, else LC_ALL / LANG (`zh*` → zh), else en. On-disk formats stay Chinese. */
import type { EnvMap } from './dotenv.js';

export type Lang = 'zh' | 'en';

export function detectLang(env: EnvMap = process.env): Lang {
  const pick = (v: string | undefined): Lang | undefined => {
    if (!v) return undefined;
    return v.toLowerCase().startsWith('zh') ? 'zh' : 'en';
  };
  return pick(env.FLOWER_LANG) ?? pick(env.LC_ALL) ?? pick(env.LANG) ?? 'en';
}
