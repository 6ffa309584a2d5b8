/**
 * The running flower watches its run's durable inbox (src/human/remote.ts): answers and remarks from
 * `flower answer` / `flower say` / the ui reach the channel the terminal answers, and a stop-after-step
 * aborts `stop` — the signal the workflow checks between steps. Shared by `flower` and `flower run`.
 */
import { InboxWatcher, type HumanChannel } from '../human/index.js';
import type { RunInbox } from '../state/index.js';
import type { Renderer } from './render.js';

export function watchInbox(inbox: RunInbox, channel: HumanChannel, ui: Renderer, stop: AbortController): InboxWatcher {
  const w = new InboxWatcher({
    inbox,
    channel,
    onStop: () => {
      if (!stop.signal.aborted) ui.line(ui.t.stopAsked);
      stop.abort();
    },
    onNotice: (text) => ui.line(`! ${text}`),
  });
  void w.start();
  return w;
}
