// The last_error of a queued message the embedder refused on its own, as every archive keeps it.

/**
 * Marks last_error of a message the embedder refused on its own (its text, not the server, is the problem): such
 * a message is retried with the back-off, but a rebuild completes without it and searches name it.
 */
export const REFUSED_MARK = "refused input: ";

export const refusedError = (error: string): string => REFUSED_MARK + error;

/**
 * embedded_by of an error record `embedderId` refused on its own (its text, not the server, is the problem): it is
 * not sent again until its text changes or the error vectors are rebuilt.
 */
export const refusedBy = (embedderId: string): string => `refused:${embedderId}`;

/** The embedder's error of a last_error holding REFUSED_MARK. */
export const withoutRefusedMark = (error: string): string => error.slice(REFUSED_MARK.length);
