// How far a long job has got, in whole percent: 99 at most until it is done, so that 100 means complete.

export const percentDone = (done: number, total: number): number =>
  Math.min(99, Math.floor((100 * done) / Math.max(1, total)));
