export { serveUi, handle, newToken } from './server.js';
export type { UiApp, UiResponse, UiServer } from './server.js';
export { FileSource, findRunDir, parseManifest, readLineage, noteLayouts } from './data.js';
export { SqliteReader } from './sqlite.js';
export type { UiSource, SessionReader, Snapshot, Problem, UiRow, TranscriptPage } from './data.js';
export { curveSvg, curveLabel } from './curve.js';
export { foldCalls, callsBetween, figuresOf, verdictCallOf, spillOf } from './transcript.js';
export type { ModelCall, SessionFigures, VerdictCall } from './transcript.js';
export { clean, esc } from './sanitize.js';
