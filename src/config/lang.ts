/**
 * Terminal language: FLOWER_LANG, else the locale as POSIX orders it — LC_ALL, LC_MESSAGES, LANG
 * (`zh*` → zh; `C`, `C.UTF-8`, `POSIX`, `en_*` … → en), else en. Everything flower itself says follows
 * it (help, errors, the demo, the roles' rules); on-disk file names and the seed's step names stay Chinese.
 */
import type { EnvMap } from './env.js';

export type Lang = 'zh' | 'en';

export function detectLang(env: EnvMap = process.env): Lang {
  const pick = (v: string | undefined): Lang | undefined => {
    if (!v) return undefined;
    const l = v.trim().toLowerCase();
    if (!l) return undefined;
    return l.startsWith('zh') || l === 'cn' || l === 'chinese' ? 'zh' : 'en';
  };
  return pick(env.FLOWER_LANG) ?? pick(env.LC_ALL) ?? pick(env.LC_MESSAGES) ?? pick(env.LANG) ?? 'en';
}
