/**
 * A small, safe markdown subset for the notes flower's agents write (需求.md): headings, bullet and
 * numbered lists, fenced code, paragraphs. Every piece of text goes through `esc`; the only markup on
 * the page is the tags made here — agent-written text is never HTML, links and images stay text.
 */
import { Brief, BRIEF_NAMES, BRIEF_SECTIONS } from '../docs/index.js';
import { esc } from './sanitize.js';

const inline = (s: string): string =>
  esc(s)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');

export function mdHtml(text: string): string {
  const lines = String(text ?? '')
    .replace(/\r\n?/g, '\n')
    .split('\n');
  const out: string[] = [];
  let list: 'ul' | 'ol' | null = null;
  let para: string[] = [];
  const flush = () => {
    if (para.length) out.push(`<p>${para.map(inline).join('<br>')}</p>`);
    para = [];
  };
  const close = () => {
    if (list) out.push(`</${list}>`);
    list = null;
  };
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k]!;
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      flush();
      close();
      const body: string[] = [];
      while (++k < lines.length && !lines[k]!.trim().startsWith(fence[1]!)) body.push(lines[k]!);
      out.push(`<pre>${esc(body.join('\n'))}</pre>`);
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    const li = /^\s*(?:([-*+])|(\d+)[.)])\s+(.*)$/.exec(line);
    if (h) {
      flush();
      close();
      out.push(`<h5>${inline(h[2]!)}</h5>`);
    } else if (li) {
      flush();
      const kind = li[1] ? 'ul' : 'ol';
      if (list !== kind) {
        close();
        out.push(`<${kind}>`);
        list = kind;
      }
      out.push(`<li>${inline(li[3]!.replace(/^\[( |x|X)\]\s+/, (_m, c: string) => (c === ' ' ? '☐ ' : '☑ ')))}</li>`);
    } else if (line.trim() === '') {
      flush();
      close();
    } else {
      close();
      para.push(line);
    }
  }
  flush();
  close();
  return `<div class="md">${out.join('')}</div>`;
}

/** 需求.md as its sections (headings, lists, paragraphs, code), every text escaped — the goal's way. */
export function briefHtml(text: string): string {
  const b = Brief.parse(text);
  const secs = BRIEF_SECTIONS.filter((s) => b[s].trim());
  if (secs.length === 0) return mdHtml(text);
  const body = secs.map((s) => `<h4>${esc(BRIEF_NAMES[s])}</h4>${mdHtml(b[s])}`);
  for (const a of b.amendments) body.push(`<h4>${esc(a.label)} <span class="note">${esc(a.time)}</span></h4>${mdHtml(a.text)}`);
  return body.join('');
}
