export {
  NOTIFICATION_VERSION,
  NOTIFICATION_KINDS,
  STOP_REASONS,
  notificationSchema,
  questionSchema,
  verdictSchema,
  stoppedSchema,
  finishedSchema,
  question,
  verdict,
  stopped,
  finished,
  stopReason,
  continueLine,
} from './payload.js';
export type {
  Notification,
  NotificationKind,
  QuestionNotification,
  VerdictNotification,
  StoppedNotification,
  FinishedNotification,
  StopReason,
  RunPlace,
} from './payload.js';
export { Notifier, DeliveryError, RETRY, SYSTEM_CLOCK } from './deliver.js';
export type { Transport, Clock, RetryPolicy, DeliveryFailure, NotifierOptions } from './deliver.js';
export { webhook, command } from './transports.js';
export { notifySettings, webhookUrl } from './settings.js';
export type { NotifySettings, NotifySources } from './settings.js';
