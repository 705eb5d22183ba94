// The DocumentStatus values and how far each takes a document, read once for dxs test, dxs load
// (k6) and dxs fuzz, so the three judge the same answer the same way (issue 36). Pure: k6 loads it.

export const DOCUMENT_STATUSES = ['Pending', 'PendingInPlatform', 'Converting', 'ConversionComplete', 'ConversionFailed', 'Sent', 'Delivered', 'Stopped', 'Sold'] as const;

/**
 * Statuses after which we stop polling. Transitions are not shown: this is our reading of the
 * names (delivered, failed, stopped), and polling is bounded by the async timeout regardless.
 */
export const FINAL_STATUSES: readonly string[] = ['Delivered', 'ConversionFailed', 'Stopped'];

/**
 * Listed statuses that may be the last one a document shows ("Transitions: not shown"): a PDF
 * mailed or a letter posted may never be confirmed as Delivered, and a document Sold (a status the
 * list names, when it occurs is not shown) may rest there, or move on. A document that stays in one
 * of them for a third of the async timeout counts as settled, so a target whose documents end there
 * neither holds each poll for the whole timeout nor breaks the `outbound-final` prerequisite, and
 * one that moves on from it is still followed (not cut short, as a final status would be).
 */
export const MAY_BE_LAST_STATUSES: readonly string[] = ['Sent', 'Sold'];

/** Where a sent document's way ends, or may rest: a settled document (what a load flow counts as sent). */
export const SETTLED_STATUSES: readonly string[] = [...MAY_BE_LAST_STATUSES, ...FINAL_STATUSES];

export function isFinalStatus(status: string | undefined): boolean {
  return status !== undefined && FINAL_STATUSES.includes(status);
}

/**
 * A document that got this far was sent: Sent, or a status that may follow it (Delivered, Sold).
 * What dxs load counts as a sent document, as dxs test takes a document resting in Sent or Sold as
 * settled (MAY_BE_LAST_STATUSES); ConversionFailed and Stopped are final without being sent.
 */
export const SENT_STATUSES: readonly string[] = ['Delivered', ...MAY_BE_LAST_STATUSES];
