// Reviewer-written text (titles, evidence, reasons) is placed into Markdown reports whose shape
// the seeds fix line by line. A newline or a leading list marker inside such text could forge a
// report line (a fake "Summary:" or "Final decision:"), so every embedded value is folded onto one
// line and its Markdown control characters are escaped. Shared by the two-pass, weave and simple
// report renderers.

/** Collapse all whitespace runs (including newlines) to one space and trim. */
export function oneLine(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

/** One-line text safe to embed inside a Markdown list item or table cell. */
export function mdText(text: string): string {
  return oneLine(text).replace(/[\\`*_[\]|<>#]/gu, (c) => `\\${c}`);
}

/** A path or identifier rendered as inline code (backticks inside are replaced, never closed early). */
export function mdCode(text: string): string {
  return `\`${oneLine(text).replace(/`/gu, "'")}\``;
}
